import { LifecycleError } from "./errors.ts";
import { isOrderStatus, type OrderStatus } from "./statuses.ts";
import {
  eventTypeFor,
  type Lifecycle,
  type TimelineEvent,
  TRANSITION_SOURCES,
  type TransitionMeta,
} from "./timeline.ts";
import { canTransition, RECONCILIATION_ONLY } from "./transitions.ts";

/** The longest event id and reason the engine accepts. */
export const MAX_EVENT_ID_LENGTH = 255;
export const MAX_REASON_LENGTH = 1000;

/** `order` with the lifecycle part replaced; every other field is carried over unchanged. */
export type WithLifecycle<T extends Lifecycle> = Omit<T, "status" | "timeline"> & Lifecycle;

/**
 * The lifecycle of a new order: status `queued` and one `order.queued` event with `status_before` null.
 */
export function startLifecycle(meta: TransitionMeta): Lifecycle {
  return { status: "queued", timeline: [makeEvent(null, "queued", meta)] };
}

/**
 * Moves `order` to `to` and appends one timeline event. Pure: `order` is not changed; a new object is returned
 * with every other field of `order` carried over.
 *
 * Throws `LifecycleError`:
 * - `unknown_status` when `order.status` or `to` is not an order status,
 * - `inconsistent_timeline` when the timeline does not chain, does not end at `order.status`, or already holds
 *   `meta.id`,
 * - `transition_not_allowed` when `TRANSITIONS` has no edge from `order.status` to `to`, or the order is
 *   `submission_pending` and `meta.source` is not `reconciliation`,
 * - `invalid_input` for a malformed id, time, source or reason.
 */
export function transition<T extends Lifecycle>(
  order: T,
  to: OrderStatus,
  meta: TransitionMeta,
): WithLifecycle<T> {
  const from = order.status;
  if (!isOrderStatus(from)) throw new LifecycleError("unknown_status", `unknown order status ${show(from)}`);
  if (!isOrderStatus(to)) throw new LifecycleError("unknown_status", `unknown target status ${show(to)}`);
  checkTimeline(order);
  const event = makeEvent(from, to, meta);
  if (order.timeline.some((e) => e.id === event.id)) {
    throw new LifecycleError(
      "inconsistent_timeline",
      `the timeline already holds an event with id ${event.id}`,
    );
  }
  if (!canTransition(from, to)) {
    throw new LifecycleError("transition_not_allowed", `an order cannot move from ${from} to ${to}`);
  }
  if (RECONCILIATION_ONLY.includes(from) && meta.source !== "reconciliation") {
    throw new LifecycleError(
      "transition_not_allowed",
      `only reconciliation may move an order out of ${from} (source was ${meta.source})`,
    );
  }
  return { ...order, status: to, timeline: [...order.timeline, event] };
}

function makeEvent(before: OrderStatus | null, after: OrderStatus, meta: TransitionMeta): TimelineEvent {
  if (typeof meta !== "object" || meta === null) {
    throw new LifecycleError("invalid_input", "transition details are required", { field: "meta" });
  }
  const { id, at, source, reason } = meta;
  if (typeof id !== "string" || id.length === 0 || id.length > MAX_EVENT_ID_LENGTH) {
    throw new LifecycleError("invalid_input", `the event id must be 1 to ${MAX_EVENT_ID_LENGTH} characters`, {
      field: "id",
    });
  }
  const created_at = isoTime(at);
  if (created_at === undefined) {
    throw new LifecycleError("invalid_input", `at must be milliseconds since the epoch, got ${show(at)}`, {
      field: "at",
    });
  }
  if (!(TRANSITION_SOURCES as readonly unknown[]).includes(source)) {
    throw new LifecycleError("invalid_input", `unknown transition source ${show(source)}`, {
      field: "source",
    });
  }
  if (
    reason !== undefined &&
    (typeof reason !== "string" || reason.length === 0 || reason.length > MAX_REASON_LENGTH)
  ) {
    throw new LifecycleError("invalid_input", `a reason must be 1 to ${MAX_REASON_LENGTH} characters`, {
      field: "reason",
    });
  }
  const event: TimelineEvent = {
    id,
    event_type: eventTypeFor(after),
    status_before: before,
    status_after: after,
    source,
    created_at,
  };
  if (reason !== undefined) event.reason = reason;
  return event;
}

/** The event chain must be unbroken and end at the order's status. An empty timeline is accepted as is. */
function checkTimeline(order: Lifecycle): void {
  if (!Array.isArray(order.timeline)) {
    throw new LifecycleError("inconsistent_timeline", "the order has no timeline array");
  }
  let previous: TimelineEvent | undefined;
  for (const [index, event] of order.timeline.entries()) {
    if (!isOrderStatus(event?.status_after)) {
      throw new LifecycleError("inconsistent_timeline", `timeline[${index}] has no valid status_after`);
    }
    if (previous && event.status_before !== previous.status_after) {
      throw new LifecycleError(
        "inconsistent_timeline",
        `timeline[${index}] starts at ${show(event.status_before)} but the event before ended at ${previous.status_after}`,
      );
    }
    previous = event;
  }
  if (previous && previous.status_after !== order.status) {
    throw new LifecycleError(
      "inconsistent_timeline",
      `the timeline ends at ${previous.status_after} but the order is ${order.status}`,
    );
  }
}

/** ISO 8601 for milliseconds since the epoch, or undefined when it is not a representable time. */
export function isoTime(at: unknown): string | undefined {
  if (typeof at !== "number" || !Number.isFinite(at)) return undefined;
  const date = new Date(at);
  return Number.isNaN(date.getTime()) ? undefined : date.toISOString();
}

function show(value: unknown): string {
  return JSON.stringify(value) ?? String(value);
}
