import type { OrderStatus } from "./statuses.ts";

/**
 * Who made a transition:
 * - `payment`: the payment flow (a settled payment queues a machine order),
 * - `customer`: the buyer or API client (a cancel request),
 * - `operator`: Mailpiece staff or the admin CLI,
 * - `system`: Mailpiece's own workers (document preparation, submission),
 * - `provider`: the print provider's status reports,
 * - `reconciliation`: the reconciler resolving a `submission_pending` order.
 */
export const TRANSITION_SOURCES = [
  "payment",
  "customer",
  "operator",
  "system",
  "provider",
  "reconciliation",
] as const;

export type TransitionSource = (typeof TRANSITION_SOURCES)[number];

/** `order.<status_after>`, for example `order.submitted`. */
export type TimelineEventType = `order.${OrderStatus}`;

/** One entry of an order's timeline (spec 3, "Timeline event"); one per transition. */
export interface TimelineEvent {
  id: string;
  event_type: TimelineEventType;
  /** Null only for the event that starts the lifecycle. */
  status_before: OrderStatus | null;
  status_after: OrderStatus;
  source: TransitionSource;
  /** ISO 8601 date-time in UTC. */
  created_at: string;
  /** Why, in words, when the caller said (a failure reason, a cancel note). */
  reason?: string;
}

/** The part of an order the lifecycle owns. */
export interface Lifecycle {
  status: OrderStatus;
  timeline: TimelineEvent[];
}

/** What the caller supplies for one transition: time from its Clock, the id from its IdGenerator. */
export interface TransitionMeta {
  source: TransitionSource;
  /** Milliseconds since the epoch. */
  at: number;
  id: string;
  reason?: string;
}

/** An id source; `IdGenerator` of `@mailpiece/ports` fits. */
export interface EventIds {
  uuid(): string;
}

export function eventTypeFor(status: OrderStatus): TimelineEventType {
  return `order.${status}`;
}
