import { LifecycleError } from "./errors.ts";
import {
  type FollowResult,
  followProvider,
  PROVIDER_JOB_STATUSES,
  type ProviderJobStatus,
} from "./follow-provider.ts";
import type { EventIds, Lifecycle, TimelineEvent } from "./timeline.ts";
import type { WithLifecycle } from "./transition.ts";

/**
 * What the provider said when asked about the submission's idempotency key (`PrintProvider.lookup`):
 * - `found`: it holds a job for the key, with this status;
 * - `not_found`: it holds none, so nothing can be mailed from the lost attempt;
 * - `unknown`: it could not say (the lookup failed or timed out).
 */
export type ProviderAnswer =
  | { outcome: "found"; status: ProviderJobStatus; reference?: string }
  | { outcome: "not_found" }
  | { outcome: "unknown"; reason?: string };

export interface ReconcileMeta {
  /** Milliseconds since the epoch. */
  at: number;
  ids: EventIds;
  reason?: string;
}

/**
 * The decision for a `submission_pending` order:
 * - `advance`: the provider holds the job; the order has moved on to its status (source `reconciliation`);
 *   `reference` is the provider's reference when the answer carried one;
 * - `resubmit`: the provider never received the job; submitting again with the same idempotency key is safe.
 *   The order stays `submission_pending` until that submission answers: then `transition` it to `submitted`
 *   (source `reconciliation`), or leave it pending if that answer is lost too;
 * - `wait`: the provider could not say; the order stays `submission_pending` and is asked about again later.
 */
export type Reconciliation<T extends Lifecycle> =
  | (FollowResult<T> & { decision: "advance"; reference?: string })
  | { decision: "resubmit"; order: WithLifecycle<T>; events: TimelineEvent[] }
  | { decision: "wait"; order: WithLifecycle<T>; events: TimelineEvent[] };

/**
 * Decides what to do with a `submission_pending` order from the provider's answer about its idempotency key.
 * Pure: `order` is not changed. Throws `transition_not_allowed` for an order that is not `submission_pending`,
 * `invalid_input` for a malformed answer, and whatever `followProvider` throws when the provider reports a
 * status the order cannot reach.
 */
export function reconcileSubmission<T extends Lifecycle>(
  order: T,
  answer: ProviderAnswer,
  meta: ReconcileMeta,
): Reconciliation<T> {
  if (order.status !== "submission_pending") {
    throw new LifecycleError(
      "transition_not_allowed",
      `only a submission_pending order is reconciled; this one is ${order.status}`,
    );
  }
  switch (answer?.outcome) {
    case "found": {
      if (!(PROVIDER_JOB_STATUSES as readonly unknown[]).includes(answer.status)) {
        throw new LifecycleError(
          "invalid_input",
          `unknown provider status ${JSON.stringify(answer.status)}`,
          {
            field: "answer.status",
          },
        );
      }
      const followed = followProvider(order, answer.status, {
        source: "reconciliation",
        at: meta.at,
        ids: meta.ids,
        ...(meta.reason === undefined ? {} : { reason: meta.reason }),
      });
      return {
        decision: "advance",
        ...followed,
        ...(answer.reference === undefined ? {} : { reference: answer.reference }),
      };
    }
    case "not_found":
      return { decision: "resubmit", order: { ...order }, events: [] };
    case "unknown":
      return { decision: "wait", order: { ...order }, events: [] };
    default:
      throw new LifecycleError("invalid_input", "the provider answer must be found, not_found or unknown", {
        field: "answer.outcome",
      });
  }
}
