import { LifecycleError } from "./errors.ts";
import type { OrderStatus } from "./statuses.ts";
import type { EventIds, Lifecycle, TimelineEvent, TransitionSource } from "./timeline.ts";
import { transition, type WithLifecycle } from "./transition.ts";
import { canTransition } from "./transitions.ts";

/** A print job's status as a provider reports it (the `PrintJobStatus` of the PrintProvider port). */
export const PROVIDER_JOB_STATUSES = [
  "submitted",
  "accepted",
  "in_transit",
  "delivered",
  "returned",
  "failed",
  "canceled",
] as const;

export type ProviderJobStatus = (typeof PROVIDER_JOB_STATUSES)[number];

/**
 * The order statuses a job passes through to reach each provider status, from the moment it is submitted.
 * A job the provider canceled was submitted first; one it failed may have failed before or after acceptance.
 */
export const PROVIDER_PATHS: Readonly<Record<ProviderJobStatus, readonly OrderStatus[]>> = Object.freeze({
  submitted: Object.freeze<OrderStatus[]>(["submitted"]),
  accepted: Object.freeze<OrderStatus[]>(["submitted", "accepted"]),
  in_transit: Object.freeze<OrderStatus[]>(["submitted", "accepted", "in_transit"]),
  delivered: Object.freeze<OrderStatus[]>(["submitted", "accepted", "in_transit", "delivered"]),
  returned: Object.freeze<OrderStatus[]>(["submitted", "accepted", "in_transit", "returned"]),
  failed: Object.freeze<OrderStatus[]>(["failed"]),
  canceled: Object.freeze<OrderStatus[]>(["submitted", "canceled"]),
});

/** How far along the carrier's road a status is; a provider report behind the order changes nothing. */
const PROGRESS: Partial<Record<OrderStatus, number>> = {
  submitted: 1,
  accepted: 2,
  in_transit: 3,
  delivered: 4,
  returned: 4,
};

export interface FollowMeta {
  source: TransitionSource;
  /** Milliseconds since the epoch; every event of the walk gets this time. */
  at: number;
  /** One id per appended event. */
  ids: EventIds;
  reason?: string;
}

export interface FollowResult<T extends Lifecycle> {
  order: WithLifecycle<T>;
  /** The events appended, oldest first; empty when the order was already there (or ahead). */
  events: TimelineEvent[];
}

/**
 * Brings `order` to where the provider says its job is, one allowed transition at a time, through every status of
 * the job's path (`PROVIDER_PATHS`) that follows the order's own: a job found `in_transit` for a
 * `submission_pending` order gives `submitted`, `accepted`, `in_transit`. A report the order is already at, or
 * one behind the order on the carrier's road (`accepted` for an order `in_transit`), changes nothing. A report
 * the machine cannot reach (a `canceled` job for an order `accepted`, `failed` for one `in_transit`) throws
 * `transition_not_allowed`: a contradiction is never papered over. Pure: `order` is not changed.
 */
export function followProvider<T extends Lifecycle>(
  order: T,
  providerStatus: ProviderJobStatus,
  meta: FollowMeta,
): FollowResult<T> {
  const path = PROVIDER_PATHS[providerStatus];
  if (path === undefined) {
    throw new LifecycleError("invalid_input", `unknown provider status ${JSON.stringify(providerStatus)}`, {
      field: "status",
    });
  }
  if (typeof meta?.ids?.uuid !== "function") {
    throw new LifecycleError("invalid_input", "an id generator is required", { field: "ids" });
  }
  let current: WithLifecycle<T> = { ...order };
  const target = path[path.length - 1] as OrderStatus;
  const orderProgress = PROGRESS[current.status];
  const providerProgress = PROGRESS[target];
  if (orderProgress !== undefined && providerProgress !== undefined && orderProgress > providerProgress) {
    return { order: current, events: [] };
  }
  const at = path.indexOf(current.status);
  let remaining = at >= 0 ? path.slice(at + 1) : [...path];
  const events: TimelineEvent[] = [];
  while (remaining.length > 0) {
    const from: OrderStatus = current.status;
    const to = remaining[0] as OrderStatus;
    if (!canTransition(from, to)) {
      throw new LifecycleError(
        "transition_not_allowed",
        `an order in ${from} cannot follow its provider to ${providerStatus}`,
      );
    }
    const moved = transition(current, to, {
      source: meta.source,
      at: meta.at,
      id: meta.ids.uuid(),
      ...(meta.reason === undefined ? {} : { reason: meta.reason }),
    });
    events.push(moved.timeline[moved.timeline.length - 1] as TimelineEvent);
    current = moved as WithLifecycle<T>;
    remaining = remaining.slice(1);
  }
  return { order: current, events };
}
