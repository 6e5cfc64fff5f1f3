export type { DecisionInput } from "./approvals.ts";
export { MAX_DECISION_NOTE_CHARS } from "./approvals.ts";
export type { DraftState, RevisionReason } from "./draft-record.ts";
export { DRAFT_STATES } from "./draft-record.ts";
export type {
  DraftOrder,
  DraftPrice,
  DraftType,
  DraftTypeName,
  DraftTypes,
  SendBody,
} from "./draft-types.ts";
export { createDraftTypes, DRAFT_TYPE_NAMES } from "./draft-types.ts";
export type { ApprovalState, ApprovalSummary, DraftRevisionView, DraftView, ListPage } from "./draft-view.ts";
export { orderDraftType } from "./order-draft-type.ts";
export type { DraftListQuery, ProjectDrafts } from "./project-drafts.ts";
export { createProjectDrafts } from "./project-drafts.ts";
export { releaseKey } from "./release.ts";
