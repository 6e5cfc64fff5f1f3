import { CoreError, type CoreErrorCode } from "../errors.ts";
import { updateRecord } from "../records.ts";
import { checkPermission } from "../workspaces/api-keys.ts";
import type { Principal } from "../workspaces/workspaces.ts";
import { requirePermission } from "../workspaces/workspaces.ts";
import { type DraftContext, type DraftRecord, draftKey, loadRevision } from "./draft-record.ts";
import { assertAllowed, stateConflict } from "./draft-states.ts";
import type { DraftOrder } from "./draft-types.ts";
import { changeDraft } from "./drafts.ts";

/** The idempotency key of a revision's send: one per draft and revision, so a retry sends nothing new. */
export const releaseKey = (draftId: string, revision: number) => `draft:${draftId}:r${revision}`;

/** Refusals of a send that spent nothing: the release is given back and may be tried again or revised. */
const REFUSALS: ReadonlySet<CoreErrorCode> = new Set([
  "validation_failed",
  "insufficient_credits",
  "request_id_conflict",
  "idempotency_key_required",
  "permission_denied",
  "approval_required",
  "forbidden",
  "not_found",
  "state_conflict",
]);

/**
 * Release: sends the draft's current revision once, with the idempotency key of the draft and revision, and answers
 * its order. The release is claimed in the store first (compare-and-set to `releasing`), so a retry (concurrent, or
 * from another process, or after a crash) sends the claimed revision with the same key and answers the same order;
 * once released, a retry answers that order again.
 *
 * Who may release: a key that may send in the draft's mode (permission_denied otherwise). A live key without
 * mailings.submit_without_approval releases only an approved revision (state_conflict otherwise: a new revision
 * needs a new approval); a key with it, and any test key, releases a draft without approval (a pending request is
 * closed). A rejected revision is never released. A refused send (validation_failed for an expired or used quote,
 * insufficient_credits) spends nothing and gives the claim back: the draft is as it was.
 */
export async function releaseProjectDraft(
  ctx: DraftContext,
  principal: Principal,
  id: string,
): Promise<DraftOrder> {
  const verdict = checkPermission(principal.mode, principal.permissions, "submit");
  if (verdict === "permission_denied") requirePermission(principal, "submit");
  const claimed = await changeDraft(ctx, principal, id, (d) => {
    // A claimed or finished release is carried on (or answered again) with the key it was claimed with.
    if (d.state === "releasing" || d.state === "released") return undefined;
    assertAllowed(d, "release");
    if (verdict === "approval_required" && d.state !== "approved") {
      throw new CoreError(
        "state_conflict",
        `Draft ${d.id} needs a person's approval of revision ${d.current.revision} before this key may release it (state ${d.state}): request approval, then release it once approved.`,
      );
    }
    const from = d.state as "draft" | "approval_requested" | "approved";
    return {
      ...d,
      state: "releasing",
      release: {
        revision: d.current.revision,
        idempotency_key: releaseKey(d.id, d.current.revision),
        from,
        claimed_at: ctx.clock.now(),
        order_id: null,
        released_at: null,
      },
    };
  });
  const release = claimed.release;
  if (!release || (claimed.state !== "releasing" && claimed.state !== "released")) {
    throw stateConflict(claimed, "release");
  }
  const type = ctx.types.get(claimed.type);
  if (!type) {
    throw new CoreError(
      "state_conflict",
      `Drafts of type ${claimed.type} are not offered by this deployment now.`,
    );
  }
  const revision = await loadRevision(ctx, claimed, release.revision);
  let order: DraftOrder;
  try {
    order = await type.send(principal, revision.body, release.idempotency_key);
  } catch (error) {
    if (CoreError.isInstance(error) && REFUSALS.has(error.code))
      await giveBack(ctx, claimed, release.revision);
    throw error;
  }
  await updateRecord<DraftRecord>(
    ctx.store,
    draftKey(claimed.workspace_id, claimed.mode, claimed.id),
    ctx.clock.now,
    (d) => {
      if (d.state === "released") return undefined;
      // A release given back by a refused attempt meanwhile is still this order's: the order exists, so it is released.
      const approval = d.approval?.state === "pending" ? null : d.approval;
      return {
        ...d,
        state: "released",
        approval,
        release: { ...release, order_id: order.id, released_at: ctx.clock.now() },
      };
    },
  );
  return order;
}

/** Undoes a release claim whose send was refused, unless the release moved on meanwhile. */
async function giveBack(ctx: DraftContext, draft: DraftRecord, revision: number): Promise<void> {
  await updateRecord<DraftRecord>(
    ctx.store,
    draftKey(draft.workspace_id, draft.mode, draft.id),
    ctx.clock.now,
    (d) =>
      d.state === "releasing" && d.release?.revision === revision && d.release.order_id === null
        ? { ...d, state: d.release.from, release: null }
        : undefined,
  );
}
