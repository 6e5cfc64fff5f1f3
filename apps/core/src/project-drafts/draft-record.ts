import type { Clock, IdGenerator, Store } from "@mailpiece/ports";
import { CoreError } from "../errors.ts";
import type { KeyMode } from "../workspaces/api-keys.ts";
import type { DraftPrice, DraftTypeName, DraftTypes, SendBody } from "./draft-types.ts";
import type { ListPage } from "./draft-view.ts";

/**
 * Where a draft stands (spec 3): saved (`draft`), waiting for a person's decision (`approval_requested`), decided
 * (`approved`, `rejected`), being sent (`releasing`: the release is claimed, its order may exist), sent
 * (`released`) or given up (`discarded`). `released` and `discarded` are final.
 */
export type DraftState =
  | "draft"
  | "approval_requested"
  | "approved"
  | "rejected"
  | "releasing"
  | "released"
  | "discarded";

export const DRAFT_STATES: readonly DraftState[] = [
  "draft",
  "approval_requested",
  "approved",
  "rejected",
  "releasing",
  "released",
  "discarded",
];

/** Why a revision was made: the first save, a PATCH, a refresh's new quote. */
export type RevisionReason = "created" | "edited" | "refreshed";

/** One saved version of a draft's send body with its price; a revision never changes once made. */
export interface DraftRevision extends DraftPrice {
  revision: number;
  reason: RevisionReason;
  body: SendBody;
  /** The API key that saved it. */
  key_id: string;
  created_at: number;
}

/** The approval of one revision: asked for by a key, decided by a person (dashboard or admin API). */
export interface DraftApproval {
  revision: number;
  state: "pending" | "approved" | "rejected";
  requested_at: number;
  requested_by: string;
  decided_at: number | null;
  decided_via: "dashboard" | "admin_api" | null;
  note: string | null;
}

/** The release of one revision: claimed before the send, with the order once it exists. */
export interface DraftRelease {
  revision: number;
  idempotency_key: string;
  /** The state the claim was made from, restored when the send is refused. */
  from: "draft" | "approval_requested" | "approved";
  claimed_at: number;
  order_id: string | null;
  released_at: number | null;
}

/**
 * A draft, as stored under `project_drafts:<workspace>:<mode>:<id>`: the current revision in full, and a summary of
 * every revision; an earlier revision in full is kept under `project_draft_revisions:<id>:<number>`, written once
 * before a new revision replaces it.
 */
export interface DraftRecord {
  id: string;
  workspace_id: string;
  mode: KeyMode;
  type: DraftTypeName;
  state: DraftState;
  current: DraftRevision;
  revisions: Omit<DraftRevision, "body" | "key_id">[];
  approval: DraftApproval | null;
  release: DraftRelease | null;
  discarded_at: number | null;
  created_at: number;
  updated_at: number;
}

export interface DraftContext {
  store: Store;
  clock: Clock;
  ids: IdGenerator;
  types: DraftTypes;
}

/** The most revisions a draft keeps; past it, a new draft is saved instead. */
export const MAX_REVISIONS = 500;

const DRAFT_ID = /^drf_[0-9a-f]{44}$/;

export const draftKey = (workspaceId: string, mode: KeyMode, id: string) =>
  `project_drafts:${workspaceId}:${mode}:${id}`;
export const draftsPrefix = (workspaceId: string, mode: KeyMode) => `project_drafts:${workspaceId}:${mode}:`;
const revisionKey = (id: string, revision: number) =>
  `project_draft_revisions:${id}:${String(revision).padStart(6, "0")}`;

/**
 * A new draft id: `drf_`, the creation time in 12 hex digits, then 32 random hex digits. Ids sort by creation
 * time, so a workspace's drafts list oldest first.
 */
export function newDraftId(ctx: Pick<DraftContext, "clock" | "ids">): string {
  const time = Math.max(0, Math.floor(ctx.clock.now())).toString(16).padStart(12, "0").slice(-12);
  return `drf_${time}${ctx.ids.uuid().replaceAll("-", "")}`;
}

export const notFound = () => new CoreError("not_found", "No draft of this workspace and mode has this id.");

/** A draft of this workspace and mode; not_found for anything else (another workspace's, a malformed id). */
export async function loadDraft(
  ctx: Pick<DraftContext, "store">,
  owner: { workspace_id: string; mode: KeyMode },
  id: string,
): Promise<DraftRecord> {
  const found = DRAFT_ID.test(id)
    ? await ctx.store.get<DraftRecord>(draftKey(owner.workspace_id, owner.mode, id))
    : undefined;
  if (!found) throw notFound();
  return found.value;
}

/** Keeps the current revision in full before a new one replaces it (once: a second write finds it there). */
export async function archiveCurrent(ctx: Pick<DraftContext, "store">, draft: DraftRecord): Promise<void> {
  await ctx.store.create(revisionKey(draft.id, draft.current.revision), draft.current);
}

/** One revision of a draft in full; not_found for a number it never had. */
export async function loadRevision(
  ctx: Pick<DraftContext, "store">,
  draft: DraftRecord,
  revision: number,
): Promise<DraftRevision> {
  if (revision === draft.current.revision) return draft.current;
  const found =
    Number.isSafeInteger(revision) && revision >= 1 && revision < draft.current.revision
      ? await ctx.store.get<DraftRevision>(revisionKey(draft.id, revision))
      : undefined;
  if (!found) throw new CoreError("not_found", `This draft has no revision ${revision}.`);
  return found.value;
}

/** The summary of a revision that the draft record keeps. */
export function revisionSummary(revision: DraftRevision): DraftRecord["revisions"][number] {
  const { body: _body, key_id: _key, ...summary } = revision;
  return summary;
}

/** A page of records under `prefix` that `keep` accepts, in key order. */
interface RecordPage<T> {
  items: T[];
  cursor: string | undefined;
}

/** Records read at most per page of a filtered listing; a page that reaches it may hold fewer than asked. */
const SCAN_BUDGET = 1000;

/**
 * Up to `limit` drafts under `prefix` that `keep` accepts, from `cursor` (a store cursor this listing gave). Every
 * record read is either answered or passed, so the store's cursor after the last read is where the next page
 * starts. Throws invalid_query for a cursor the store refuses.
 */
async function pageDrafts(
  ctx: Pick<DraftContext, "store">,
  prefix: string,
  page: { limit: number; cursor?: string },
  keep: (draft: DraftRecord) => boolean,
): Promise<RecordPage<DraftRecord>> {
  const items: DraftRecord[] = [];
  let cursor = page.cursor;
  let scanned = 0;
  do {
    const limit = Math.min(page.limit - items.length, SCAN_BUDGET - scanned);
    const found = await ctx.store
      .list<DraftRecord>(prefix, { limit, ...(cursor === undefined ? {} : { cursor }) })
      .catch((error: unknown) => {
        if (cursor === undefined || cursor !== page.cursor) throw error;
        throw invalidCursor();
      });
    scanned += found.records.length;
    items.push(...found.records.map((record) => record.value).filter(keep));
    cursor = found.cursor;
  } while (cursor !== undefined && items.length < page.limit && scanned < SCAN_BUDGET);
  return { items, cursor };
}

const invalidCursor = () =>
  new CoreError("invalid_query", "cursor is not one this listing gave.", {
    issues: [{ path: "cursor", code: "invalid_cursor", message: "cursor is not one this listing gave." }],
  });

/**
 * A listing of one workspace and mode's drafts, oldest first, as the credit ledger pages (limit 1 to 100, default
 * 20; next_cursor): the drafts `keep` accepts for the query's state (one of `states`, or none), each as `view`
 * shows it. Throws invalid_query for a state, limit or cursor it cannot take.
 */
export async function listDrafts<T>(
  ctx: Pick<DraftContext, "store">,
  owner: { workspace_id: string; mode: KeyMode },
  query: { state?: string; limit?: number; cursor?: string },
  states: readonly string[],
  keep: (draft: DraftRecord, state: string | undefined) => boolean,
  view: (draft: DraftRecord) => T,
): Promise<ListPage<T>> {
  const limit = pageLimit(query.limit);
  const state = query.state;
  if (state !== undefined && !states.includes(state)) {
    const message = `state must be one of ${states.join(", ")}.`;
    throw new CoreError("invalid_query", message, {
      issues: [{ path: "state", code: "invalid_state", message }],
    });
  }
  const page = await pageDrafts(
    ctx,
    draftsPrefix(owner.workspace_id, owner.mode),
    { limit, ...(query.cursor === undefined ? {} : { cursor: query.cursor }) },
    (draft) => keep(draft, state),
  );
  return {
    object: "list",
    data: page.items.map(view),
    has_more: page.cursor !== undefined,
    next_cursor: page.cursor ?? null,
  };
}

/** The page size of a listing: an integer from 1 to 100, default 20 (as the credit ledger's). */
function pageLimit(limit: number | undefined): number {
  const value = limit ?? 20;
  if (!Number.isInteger(value) || value < 1 || value > 100) {
    throw new CoreError("invalid_query", "limit must be an integer from 1 to 100.", {
      issues: [{ path: "limit", code: "invalid_limit", message: "limit must be an integer from 1 to 100." }],
    });
  }
  return value;
}
