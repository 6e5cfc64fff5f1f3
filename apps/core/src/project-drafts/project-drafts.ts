import type { KeyMode } from "../workspaces/api-keys.ts";
import type { Principal } from "../workspaces/workspaces.ts";
import {
  type DecisionInput,
  decideApproval,
  getApproval,
  listApprovals,
  listCallerApprovals,
} from "./approvals.ts";
import type { DraftContext } from "./draft-record.ts";
import type { DraftOrder } from "./draft-types.ts";
import type { ApprovalSummary, DraftView, ListPage } from "./draft-view.ts";
import {
  createProjectDraft,
  discardProjectDraft,
  editProjectDraft,
  getProjectDraft,
  listProjectDrafts,
  refreshProjectDraft,
  requestDraftApproval,
  withdrawDraftApproval,
} from "./drafts.ts";
import { releaseProjectDraft } from "./release.ts";

/** A listing's query: a state to keep, the page size (1 to 100, default 20) and the cursor of a previous page. */
export interface DraftListQuery {
  state?: string;
  limit?: number;
  cursor?: string;
}

/**
 * Drafts and approvals of the Projects API (spec 3), in the caller's workspace and mode: anything of another
 * workspace or mode is not_found. Saving and reading spend nothing; only `release` sends. Reading needs a key that
 * may read; saving, editing, refreshing, asking for approval, withdrawing and discarding need a key that may
 * prepare mail of its mode (mailings.submit_test, or mailings.submit_live with or without approval). Each throws
 * validation_failed with every issue of a bad body, state_conflict for an action the draft's state does not allow,
 * permission_denied for a key that may not act.
 */
export interface ProjectDrafts {
  /** POST /drafts: `{type, ...the body of that type's send}`, saved as revision 1. */
  create(principal: Principal, body: unknown): Promise<DraftView>;
  /** GET /drafts/{id}: the draft with its current revision (or `revision`) and every revision's summary. */
  get(principal: Principal, id: string, revision?: number): Promise<DraftView>;
  /** GET /drafts: oldest first; `state` one of the draft states. Throws invalid_query. */
  list(principal: Principal, query: DraftListQuery): Promise<ListPage<DraftView>>;
  /** PATCH /drafts/{id}: a new revision (fields given replace, null removes); clears any approval. */
  edit(principal: Principal, id: string, patch: unknown): Promise<DraftView>;
  /** A new revision with a new quote of the same options; the approval carries over only at the same price. */
  refresh(principal: Principal, id: string): Promise<DraftView>;
  /** draft -> approval_requested (asking again while it waits changes nothing). */
  requestApproval(principal: Principal, id: string): Promise<DraftView>;
  /** approval_requested -> draft. */
  withdraw(principal: Principal, id: string): Promise<DraftView>;
  /** Any unsent state -> discarded, for good (discarding again changes nothing). */
  discard(principal: Principal, id: string): Promise<DraftView>;
  /**
   * Sends the current revision once and answers its order; every retry answers the same order. A live key without
   * mailings.submit_without_approval releases approved drafts only.
   */
  release(principal: Principal, id: string): Promise<DraftOrder>;
  /** GET /approvals: expense summaries of the drafts with an approval request; `state` pending, approved, rejected. */
  approvals(principal: Principal, query: DraftListQuery): Promise<ListPage<ApprovalSummary>>;
  /** GET /approvals/{draft_id}: one draft's summary (state none when no approval applies). */
  approval(principal: Principal, id: string): Promise<ApprovalSummary>;
  /** For the operator: one workspace's approvals in `mode`, as `approvals` lists them. */
  workspaceApprovals(
    workspaceId: string,
    mode: KeyMode,
    query: DraftListQuery,
  ): Promise<ListPage<ApprovalSummary>>;
  /**
   * For the operator (a person, in the dashboard or the admin API): approves or rejects a draft's pending approval,
   * of either mode. Approving neither charges nor sends.
   */
  decide(
    workspaceId: string,
    draftId: string,
    decision: "approve" | "reject",
    input: DecisionInput,
  ): Promise<ApprovalSummary>;
}

export function createProjectDrafts(ctx: DraftContext): ProjectDrafts {
  return {
    create: (principal, body) => createProjectDraft(ctx, principal, body),
    get: (principal, id, revision) => getProjectDraft(ctx, principal, id, revision),
    list: (principal, query) => listProjectDrafts(ctx, principal, query),
    edit: (principal, id, patch) => editProjectDraft(ctx, principal, id, patch),
    refresh: (principal, id) => refreshProjectDraft(ctx, principal, id),
    requestApproval: (principal, id) => requestDraftApproval(ctx, principal, id),
    withdraw: (principal, id) => withdrawDraftApproval(ctx, principal, id),
    discard: (principal, id) => discardProjectDraft(ctx, principal, id),
    release: (principal, id) => releaseProjectDraft(ctx, principal, id),
    approvals: (principal, query) => listCallerApprovals(ctx, principal, query),
    approval: (principal, id) => getApproval(ctx, principal, id),
    workspaceApprovals: (workspaceId, mode, query) =>
      listApprovals(ctx, { workspace_id: workspaceId, mode }, query),
    decide: (workspaceId, draftId, decision, input) =>
      decideApproval(ctx, workspaceId, draftId, decision, input),
  };
}
