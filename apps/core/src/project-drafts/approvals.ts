import type { Issue } from "@mailpiece/errors";
import { CoreError, invalidRequest } from "../errors.ts";
import type { KeyMode } from "../workspaces/api-keys.ts";
import type { Principal } from "../workspaces/workspaces.ts";
import { requirePermission } from "../workspaces/workspaces.ts";
import { type DraftContext, type DraftRecord, listDrafts, loadDraft } from "./draft-record.ts";
import { assertAllowed } from "./draft-states.ts";
import { type ApprovalSummary, approvalSummary, type ListPage } from "./draft-view.ts";
import { changeDraft } from "./drafts.ts";

/** The approval states a listing filters on. */
const LISTED = ["pending", "approved", "rejected"] as const;

/** The longest note a person may add to a decision. */
export const MAX_DECISION_NOTE_CHARS = 500;

/**
 * The approvals of one workspace and mode, oldest draft first, a page at a time (limit 1 to 100, default 20): every
 * draft with an approval request (pending, approved or rejected; `state` picks one), except discarded ones. Expense
 * summaries only. Throws invalid_query for a state, limit or cursor it cannot take.
 */
export async function listApprovals(
  ctx: DraftContext,
  owner: { workspace_id: string; mode: KeyMode },
  query: { state?: string; limit?: number; cursor?: string },
): Promise<ListPage<ApprovalSummary>> {
  return listDrafts(
    ctx,
    owner,
    query,
    LISTED,
    (draft, state) =>
      draft.state !== "discarded" &&
      draft.approval !== null &&
      (state === undefined || draft.approval.state === state),
    approvalSummary,
  );
}

/** The caller's approvals (GET /approvals); needs a key that may read. */
export function listCallerApprovals(
  ctx: DraftContext,
  principal: Principal,
  query: { state?: string; limit?: number; cursor?: string },
): Promise<ListPage<ApprovalSummary>> {
  requirePermission(principal, "read");
  return listApprovals(ctx, principal, query);
}

/** The approval summary of one of the caller's drafts (state none when no approval applies); not_found otherwise. */
export async function getApproval(
  ctx: DraftContext,
  principal: Principal,
  id: string,
): Promise<ApprovalSummary> {
  requirePermission(principal, "read");
  return approvalSummary(await loadDraft(ctx, principal, id));
}

/** A decision as a person sends it: `body` is `{revision?, note?}`, and where it was made. */
export interface DecisionInput {
  /** The revision the person saw (optional: the decision then holds only for it), and a note (optional). */
  body: unknown;
  via: "dashboard" | "admin_api";
}

/** The revision and note of a decision's body, or validation_failed with every issue. */
function readDecision(body: unknown): { revision?: number; note: string | null } {
  const input = body === undefined || body === null ? {} : body;
  if (typeof input !== "object" || Array.isArray(input)) {
    throw invalidRequest(
      [{ path: "", code: "invalid_type", message: "A decision is a JSON object." }],
      "decision",
    );
  }
  const fields = input as Record<string, unknown>;
  const issues: Issue[] = Object.keys(fields)
    .filter((key) => key !== "revision" && key !== "note")
    .map((key) => ({ path: key, code: "unknown_field", message: `${key} is not a field of a decision.` }));
  const { revision, note } = fields;
  if (revision !== undefined && !(Number.isSafeInteger(revision) && (revision as number) >= 1)) {
    issues.push({
      path: "revision",
      code: "invalid_revision",
      message: "revision must be an integer of at least 1.",
    });
  }
  if (
    note !== undefined &&
    note !== null &&
    (typeof note !== "string" || note.length > MAX_DECISION_NOTE_CHARS)
  ) {
    issues.push({
      path: "note",
      code: "invalid_note",
      message: `note must be a text of at most ${MAX_DECISION_NOTE_CHARS} characters.`,
    });
  }
  if (issues.length > 0) throw invalidRequest(issues, "decision");
  return {
    ...(revision === undefined ? {} : { revision: revision as number }),
    note: typeof note === "string" && note.trim() !== "" ? note.trim() : null,
  };
}

/** A workspace's draft in either mode (the operator names a workspace and a draft, not a mode); not_found else. */
async function operatorDraft(ctx: DraftContext, workspaceId: string, id: string): Promise<DraftRecord> {
  for (const mode of ["test", "live"] as const) {
    try {
      return await loadDraft(ctx, { workspace_id: workspaceId, mode }, id);
    } catch (error) {
      if (!(CoreError.isInstance(error) && error.code === "not_found")) throw error;
    }
  }
  throw new CoreError("not_found", "This workspace has no draft with this id.");
}

/**
 * A person's decision on a draft's pending approval (the operator's dashboard or admin API): approving or rejecting
 * moves the draft to approved or rejected. Approving neither charges nor sends: the draft's key releases it. With
 * `revision`, the decision holds only for that revision (state_conflict when the draft has moved on). Deciding the
 * same way again changes nothing. Throws validation_failed with every issue of the body, not_found, state_conflict.
 */
export async function decideApproval(
  ctx: DraftContext,
  workspaceId: string,
  id: string,
  decision: "approve" | "reject",
  input: DecisionInput,
): Promise<ApprovalSummary> {
  const { revision, note } = readDecision(input.body);
  const found = await operatorDraft(ctx, workspaceId, id);
  const target = decision === "approve" ? "approved" : "rejected";
  const decided = await changeDraft(ctx, found, id, (d) => {
    const sameRevision = revision === undefined || d.current.revision === revision;
    if (d.state === target && d.approval?.state === target && sameRevision) return undefined;
    assertAllowed(d, decision);
    if (!sameRevision) {
      throw new CoreError(
        "state_conflict",
        `Draft ${d.id} is waiting for approval of revision ${d.current.revision}, not ${String(revision)}: look at it again.`,
      );
    }
    return {
      ...d,
      state: target,
      approval: {
        ...d.approval!,
        state: target,
        decided_at: ctx.clock.now(),
        decided_via: input.via,
        note,
      },
    };
  });
  return approvalSummary(decided);
}
