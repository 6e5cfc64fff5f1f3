import type { Issue } from "@mailpiece/errors";
import { CoreError, invalidRequest } from "../errors.ts";
import { updateRecord } from "../records.ts";
import type { Principal } from "../workspaces/workspaces.ts";
import { requirePermission } from "../workspaces/workspaces.ts";
import {
  archiveCurrent,
  DRAFT_STATES,
  type DraftContext,
  type DraftRecord,
  type DraftRevision,
  draftKey,
  listDrafts,
  loadDraft,
  loadRevision,
  MAX_REVISIONS,
  newDraftId,
  type RevisionReason,
  revisionSummary,
} from "./draft-record.ts";
import { assertAllowed, type DraftAction } from "./draft-states.ts";
import { DRAFT_TYPE_NAMES, type DraftType, type DraftTypeName, type SendBody } from "./draft-types.ts";
import { type DraftView, draftView, type ListPage } from "./draft-view.ts";

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** The body without `type`, as a fresh object (keys such as "__proto__" stay plain data). */
const withoutType = (body: Record<string, unknown>): SendBody =>
  Object.fromEntries(Object.entries(body).filter(([key]) => key !== "type"));

/** The type a draft body names, or the issue at `type` naming the types this deployment accepts. */
function typeOf(ctx: DraftContext, value: unknown): { name: DraftTypeName; type: DraftType } | Issue {
  const accepted = ctx.types.names();
  const list = accepted.join(", ");
  const type = typeof value === "string" ? ctx.types.get(value) : undefined;
  if (type) return { name: value as DraftTypeName, type };
  if (value === undefined)
    return { path: "type", code: "required", message: `type is required: one of ${list}.` };
  const known = typeof value === "string" && (DRAFT_TYPE_NAMES as readonly string[]).includes(value);
  return {
    path: "type",
    code: "unsupported_type",
    message: known
      ? `Drafts of type ${value} are not offered by this deployment yet; type must be one of ${list}.`
      : `type must be one of ${list}.`,
  };
}

/** The problems of a send body for its type, as one validation_failed; nothing when it can be saved. */
async function checkBody(type: DraftType, principal: Principal, body: SendBody): Promise<void> {
  const issues = await type.validate(principal, body);
  if (issues.length > 0) throw invalidRequest(issues, "draft");
}

/**
 * Saves a new draft (revision 1) in the caller's workspace and mode: `{type, ...the send body of that type}`. It
 * spends and reserves nothing. Needs a key that may prepare mail of its mode. Throws validation_failed with every
 * issue (an unknown or unoffered `type` at `type`, the body's at their fields).
 */
export async function createProjectDraft(
  ctx: DraftContext,
  principal: Principal,
  body: unknown,
): Promise<DraftView> {
  requirePermission(principal, "prepare");
  if (!isObject(body)) {
    throw invalidRequest(
      [{ path: "", code: "invalid_type", message: "The draft must be a JSON object." }],
      "draft",
    );
  }
  const found = typeOf(ctx, body.type);
  if ("path" in found) throw invalidRequest([found], "draft");
  const given = withoutType(body);
  await checkBody(found.type, principal, given);
  const send = found.type.pin ? await found.type.pin(principal, given) : given;
  const price = await found.type.price(principal, send);
  const now = ctx.clock.now();
  const current: DraftRevision = {
    revision: 1,
    reason: "created",
    body: send,
    ...price,
    key_id: principal.key_id,
    created_at: now,
  };
  const record: DraftRecord = {
    id: newDraftId(ctx),
    workspace_id: principal.workspace_id,
    mode: principal.mode,
    type: found.name,
    state: "draft",
    current,
    revisions: [revisionSummary(current)],
    approval: null,
    release: null,
    discarded_at: null,
    created_at: now,
    updated_at: now,
  };
  const made = await ctx.store.create(draftKey(record.workspace_id, record.mode, record.id), record);
  if (!made.created) throw new CoreError("internal_error", "A new draft id collided with a stored one.");
  return draftView(made.record.value);
}

/** A draft of the caller's workspace and mode with its current revision (or `revision`); not_found otherwise. */
export async function getProjectDraft(
  ctx: DraftContext,
  principal: Principal,
  id: string,
  revision?: number,
): Promise<DraftView> {
  requirePermission(principal, "read");
  const draft = await loadDraft(ctx, principal, id);
  return draftView(draft, revision === undefined ? draft.current : await loadRevision(ctx, draft, revision));
}

/**
 * The caller's drafts, oldest first, a page at a time (limit 1 to 100, default 20; cursor from next_cursor), of
 * one state when `state` names one. Throws invalid_query for a state, limit or cursor it cannot take.
 */
export async function listProjectDrafts(
  ctx: DraftContext,
  principal: Principal,
  query: { state?: string; limit?: number; cursor?: string },
): Promise<ListPage<DraftView>> {
  requirePermission(principal, "read");
  return listDrafts(
    ctx,
    principal,
    query,
    DRAFT_STATES,
    (draft, state) => state === undefined || draft.state === state,
    (draft) => draftView(draft),
  );
}

/** The merge of a PATCH onto the current body: each field given replaces it, null removes it; `type` stays. */
function mergePatch(draft: DraftRecord, patch: unknown): SendBody {
  if (!isObject(patch)) {
    throw invalidRequest(
      [{ path: "", code: "invalid_type", message: "The patch must be a JSON object." }],
      "draft",
    );
  }
  const issues: Issue[] = [];
  if (patch.type !== undefined && patch.type !== draft.type) {
    issues.push({
      path: "type",
      code: "type_immutable",
      message: `This draft is a ${draft.type}; save a new draft for another type.`,
    });
  }
  const changes = Object.entries(patch).filter(([key]) => key !== "type");
  if (changes.length === 0 && issues.length === 0) {
    issues.push({ path: "", code: "empty_patch", message: "The patch changes no field of the draft." });
  }
  if (issues.length > 0) throw invalidRequest(issues, "draft");
  const changed = new Set(changes.map(([key]) => key));
  return Object.fromEntries([
    ...Object.entries(draft.current.body).filter(([key]) => !changed.has(key)),
    ...changes.filter(([, value]) => value !== null),
  ]);
}

/** Signals that the draft got a new revision while the next one was being prepared: prepare it again. */
class Superseded extends Error {}

/**
 * Makes the next revision of a draft and moves it on: `prepare` works out the new body and price from the draft as
 * read (it may call the type's validation, pricing and quoting), `settle` the state and approval that follow. The
 * current revision is kept in full first; a revision made meanwhile by another request starts it over.
 */
async function nextRevision(
  ctx: DraftContext,
  principal: Principal,
  id: string,
  action: DraftAction & ("edit" | "refresh"),
  prepare: (draft: DraftRecord, type: DraftType) => Promise<{ body: SendBody; reason: RevisionReason }>,
  settle: (draft: DraftRecord, next: DraftRevision) => Pick<DraftRecord, "state" | "approval">,
): Promise<DraftView> {
  requirePermission(principal, "prepare");
  for (let attempt = 0; attempt < 10; attempt++) {
    const draft = await loadDraft(ctx, principal, id);
    assertAllowed(draft, action);
    const type = ctx.types.get(draft.type);
    if (!type) {
      throw new CoreError(
        "state_conflict",
        `Drafts of type ${draft.type} are not offered by this deployment now.`,
      );
    }
    const prepared = await prepare(draft, type);
    const { reason } = prepared;
    await checkBody(type, principal, prepared.body);
    const body = type.pin ? await type.pin(principal, prepared.body) : prepared.body;
    const price = await type.price(principal, body);
    await archiveCurrent(ctx, draft);
    try {
      const saved = await updateRecord<DraftRecord>(
        ctx.store,
        draftKey(draft.workspace_id, draft.mode, draft.id),
        ctx.clock.now,
        (d) => {
          if (d.current.revision !== draft.current.revision) throw new Superseded();
          assertAllowed(d, action);
          if (d.revisions.length >= MAX_REVISIONS) {
            throw new CoreError(
              "state_conflict",
              `Draft ${d.id} has ${MAX_REVISIONS} revisions, the most a draft keeps; save a new draft.`,
            );
          }
          const next: DraftRevision = {
            revision: d.current.revision + 1,
            reason,
            body,
            ...price,
            key_id: principal.key_id,
            created_at: ctx.clock.now(),
          };
          return {
            ...d,
            ...settle(d, next),
            current: next,
            revisions: [...d.revisions, revisionSummary(next)],
          };
        },
      );
      return draftView(saved);
    } catch (error) {
      if (!(error instanceof Superseded)) throw error;
    }
  }
  throw new CoreError("storage_unavailable", `Draft ${id} is changing too often to save; try again.`);
}

/**
 * PATCH: a new revision of the body, each field given replacing the current one (null removes an optional field;
 * `type` cannot change). It clears any approval: the draft is a draft again and needs a new request. Throws
 * validation_failed (nothing is saved), state_conflict once released, releasing or discarded.
 */
export function editProjectDraft(
  ctx: DraftContext,
  principal: Principal,
  id: string,
  patch: unknown,
): Promise<DraftView> {
  return nextRevision(
    ctx,
    principal,
    id,
    "edit",
    async (draft) => ({ body: mergePatch(draft, patch), reason: "edited" }),
    () => ({ state: "draft", approval: null }),
  );
}

/**
 * Refresh: a new revision with a new quote of the same options (the type's requote; without one, the same body
 * priced again). When the price (and currency) is unchanged, the state and the approval carry over to the new
 * revision, since what a person approved is the same mail at the same price; when it changed, the draft is a draft
 * again and its approval must be asked for again.
 */
export function refreshProjectDraft(ctx: DraftContext, principal: Principal, id: string): Promise<DraftView> {
  return nextRevision(
    ctx,
    principal,
    id,
    "refresh",
    async (draft, type) => ({
      body: type.requote ? await type.requote(principal, draft.current.body) : draft.current.body,
      reason: "refreshed",
    }),
    (draft, next) =>
      next.price_cents === draft.current.price_cents && next.currency === draft.current.currency
        ? { state: draft.state, approval: draft.approval && { ...draft.approval, revision: next.revision } }
        : { state: "draft", approval: null },
  );
}

/** Applies a change of state to a draft of the caller's (or the operator's) workspace, with compare-and-set. */
export async function changeDraft(
  ctx: DraftContext,
  owner: Pick<DraftRecord, "workspace_id" | "mode">,
  id: string,
  change: (draft: DraftRecord) => DraftRecord | undefined,
): Promise<DraftRecord> {
  const draft = await loadDraft(ctx, owner, id);
  return updateRecord<DraftRecord>(
    ctx.store,
    draftKey(draft.workspace_id, draft.mode, draft.id),
    ctx.clock.now,
    change,
  );
}

/** A change of state by the draft's own workspace: needs a key that may prepare mail, answers the draft. */
async function act(
  ctx: DraftContext,
  principal: Principal,
  id: string,
  change: (draft: DraftRecord) => DraftRecord | undefined,
): Promise<DraftView> {
  requirePermission(principal, "prepare");
  return draftView(await changeDraft(ctx, principal, id, change));
}

/**
 * Asks a person to approve the current revision (dashboard or admin API); asking again while it waits changes
 * nothing. Throws state_conflict from any state but draft.
 */
export function requestDraftApproval(
  ctx: DraftContext,
  principal: Principal,
  id: string,
): Promise<DraftView> {
  return act(ctx, principal, id, (d) => {
    if (d.state === "approval_requested") return undefined;
    assertAllowed(d, "request_approval");
    return {
      ...d,
      state: "approval_requested",
      approval: {
        revision: d.current.revision,
        state: "pending",
        requested_at: ctx.clock.now(),
        requested_by: principal.key_id,
        decided_at: null,
        decided_via: null,
        note: null,
      },
    };
  });
}

/** Takes back an approval request: the draft is a draft again. Throws state_conflict unless it is waiting. */
export function withdrawDraftApproval(
  ctx: DraftContext,
  principal: Principal,
  id: string,
): Promise<DraftView> {
  return act(ctx, principal, id, (d) => {
    assertAllowed(d, "withdraw");
    return { ...d, state: "draft", approval: null };
  });
}

/**
 * Gives a draft up for good; discarding it again changes nothing. A pending approval request goes with it.
 * Throws state_conflict once its release has started.
 */
export function discardProjectDraft(ctx: DraftContext, principal: Principal, id: string): Promise<DraftView> {
  return act(ctx, principal, id, (d) => {
    if (d.state === "discarded") return undefined;
    assertAllowed(d, "discard");
    const approval = d.approval?.state === "pending" ? null : d.approval;
    return { ...d, state: "discarded", approval, discarded_at: ctx.clock.now() };
  });
}
