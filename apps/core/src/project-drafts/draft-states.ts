import { CoreError } from "../errors.ts";
import type { DraftRecord, DraftState } from "./draft-record.ts";

/** The actions on a draft that depend on its state. */
export type DraftAction =
  | "edit"
  | "refresh"
  | "request_approval"
  | "withdraw"
  | "discard"
  | "release"
  | "approve"
  | "reject";

/**
 * The states each action may start from (spec 3's approval workflow):
 * - edit (PATCH) and refresh make a new revision of any unsent draft that is not waiting on its release;
 * - request_approval from draft; withdraw from approval_requested (back to draft);
 * - approve and reject (a person's decision) from approval_requested;
 * - discard from any unsent state (final);
 * - release from approved, or from draft and approval_requested for a key that needs no approval (the release
 *   checks which); a rejected revision is never released: it is edited (a new revision) or discarded.
 */
export const ALLOWED_FROM: Readonly<Record<DraftAction, readonly DraftState[]>> = {
  edit: ["draft", "approval_requested", "approved", "rejected"],
  refresh: ["draft", "approval_requested", "approved", "rejected"],
  request_approval: ["draft"],
  withdraw: ["approval_requested"],
  discard: ["draft", "approval_requested", "approved", "rejected"],
  release: ["draft", "approval_requested", "approved"],
  approve: ["approval_requested"],
  reject: ["approval_requested"],
};

const DOING: Record<DraftAction, string> = {
  edit: "edited",
  refresh: "refreshed",
  request_approval: "sent for approval",
  withdraw: "withdrawn from approval",
  discard: "discarded",
  release: "released",
  approve: "approved",
  reject: "rejected",
};

const WHY: Record<DraftState, string> = {
  draft: "it is a draft without an approval request",
  approval_requested: "its approval was requested and is not decided",
  approved: "its revision is approved",
  rejected: "its revision was rejected: save a new revision, or discard it",
  releasing: "its release is under way: release it again to finish it",
  released: "it was released",
  discarded: "it was discarded",
};

/** state_conflict: the draft's state does not allow the action; the message says which state it is in. */
export function stateConflict(draft: DraftRecord, action: DraftAction): CoreError {
  return new CoreError(
    "state_conflict",
    `Draft ${draft.id} cannot be ${DOING[action]}: ${WHY[draft.state]} (state ${draft.state}).`,
  );
}

/** Throws state_conflict unless the draft's state allows the action. */
export function assertAllowed(draft: DraftRecord, action: DraftAction): void {
  if (!ALLOWED_FROM[action].includes(draft.state)) throw stateConflict(draft, action);
}
