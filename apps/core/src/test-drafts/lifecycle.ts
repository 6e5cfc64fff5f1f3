import { createHash } from "node:crypto";

/**
 * The fake lifecycles a test draft can follow, asked for with the request's `simulate` field:
 * - `delivered` (the default): paid, submitted, accepted by the print provider, mailed, two tracking updates,
 *   delivered about two and a quarter days after creation.
 * - `provider_rejected`: the print provider refuses the piece five minutes in; the order fails and is refunded.
 * - `returned`: mailed, a delivery attempt fails, and the piece goes back to the sender five days in.
 * - `failed`: accepted, then production fails two hours in; the order is refunded.
 */
export const SIMULATIONS = ["delivered", "provider_rejected", "returned", "failed"] as const;
export type Simulation = (typeof SIMULATIONS)[number];

/** The lifecycle event types of spec 3's test-mode drafts, in the order a piece can meet them. */
export const TEST_EVENT_TYPES = [
  "mail.order.created",
  "mail.order.paid",
  "mail.order.submitted",
  "mail.order.provider_accepted",
  "mail.order.provider_rejected",
  "mail.order.mailed",
  "mail.order.tracking_updated",
  "mail.order.delivery_attempted",
  "mail.order.delivered",
  "mail.order.failed",
  "mail.order.refunded",
] as const;
export type TestEventType = (typeof TEST_EVENT_TYPES)[number];

/** The order statuses a test piece passes through (spec 3's order status values). */
export type TestOrderStatus =
  | "queued"
  | "submitted"
  | "accepted"
  | "in_transit"
  | "delivered"
  | "returned"
  | "failed";

/** What the fake carrier says of the piece, once the print provider has accepted it. */
export type TrackingStatus =
  | "pre_transit"
  | "in_transit"
  | "out_for_delivery"
  | "delivery_attempted"
  | "delivered"
  | "returned_to_sender";

/** One fake event as answered: a deterministic id, its type, when it happened and what it says. */
export interface TestEvent {
  id: string;
  type: TestEventType;
  created_at: string;
  data: {
    order_id: string;
    status_before: TestOrderStatus | null;
    status_after: TestOrderStatus;
    tracking_number: string | null;
    tracking_status: TrackingStatus | null;
    /** On paid and refunded events: always 0, nothing is charged. */
    amount_cents?: 0;
    currency?: "usd";
    /** Why, on a rejection, failure, delivery attempt or return. */
    reason?: string;
  };
}

/** One step of a lifecycle: its event, how long after creation it happens and what it changes. */
interface Step {
  type: TestEventType;
  afterMs: number;
  status: TestOrderStatus;
  /** The tracking status from this step on; absent keeps the previous one. */
  tracking?: TrackingStatus;
  reason?: string;
  /** A money movement (of zero): the event says amount_cents 0. */
  money?: true;
}

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/** Created and paid at once (nothing to charge), submitted to the print provider a minute later. */
const START: readonly Step[] = [
  { type: "mail.order.created", afterMs: 0, status: "queued" },
  { type: "mail.order.paid", afterMs: 0, status: "queued", money: true },
  { type: "mail.order.submitted", afterMs: MINUTE, status: "submitted" },
];
const ACCEPTED: Step = {
  type: "mail.order.provider_accepted",
  afterMs: 5 * MINUTE,
  status: "accepted",
  tracking: "pre_transit",
};
const MAILED: readonly Step[] = [
  { type: "mail.order.mailed", afterMs: HOUR, status: "in_transit", tracking: "in_transit" },
  { type: "mail.order.tracking_updated", afterMs: DAY, status: "in_transit", tracking: "in_transit" },
];

const LIFECYCLES: Readonly<Record<Simulation, readonly Step[]>> = {
  delivered: [
    ...START,
    ACCEPTED,
    ...MAILED,
    {
      type: "mail.order.tracking_updated",
      afterMs: 2 * DAY,
      status: "in_transit",
      tracking: "out_for_delivery",
    },
    { type: "mail.order.delivered", afterMs: 2 * DAY + 6 * HOUR, status: "delivered", tracking: "delivered" },
  ],
  provider_rejected: [
    ...START,
    {
      type: "mail.order.provider_rejected",
      afterMs: 5 * MINUTE,
      status: "submitted",
      reason: "The print provider refused the piece (simulated).",
    },
    {
      type: "mail.order.failed",
      afterMs: 5 * MINUTE + SECOND,
      status: "failed",
      reason: "No print provider accepted the piece (simulated).",
    },
    { type: "mail.order.refunded", afterMs: 10 * MINUTE, status: "failed", money: true },
  ],
  returned: [
    ...START,
    ACCEPTED,
    ...MAILED,
    {
      type: "mail.order.delivery_attempted",
      afterMs: 2 * DAY + 6 * HOUR,
      status: "in_transit",
      tracking: "delivery_attempted",
      reason: "No one could take the piece at the address (simulated).",
    },
    {
      type: "mail.order.tracking_updated",
      afterMs: 5 * DAY,
      status: "returned",
      tracking: "returned_to_sender",
      reason: "The piece was returned to the sender (simulated).",
    },
  ],
  failed: [
    ...START,
    ACCEPTED,
    {
      type: "mail.order.failed",
      afterMs: 2 * HOUR,
      status: "failed",
      reason: "Production failed at the print provider (simulated).",
    },
    { type: "mail.order.refunded", afterMs: 2 * HOUR + 5 * MINUTE, status: "failed", money: true },
  ],
};

/** Where a piece stands at some moment: the events so far and what they add up to. */
export interface LifecycleState {
  status: TestOrderStatus;
  /** Null until the print provider has accepted the piece. */
  tracking_number: string | null;
  tracking_status: TrackingStatus | null;
  events: TestEvent[];
  /** When the next event happens; null once the lifecycle is over. */
  next_event_at: string | null;
  /** When the last event so far happened. */
  updated_at: string;
}

/**
 * The events of a piece created at `createdAt` that follows `simulation`, as they stand at `now`: every step due by
 * then, in order. Pure: the same piece and moment always give the same events, ids included, so a later reading
 * shows the same events and those that have happened since.
 */
export function lifecycleAt(
  piece: { order_id: string; created_at: number; simulate: Simulation },
  now: number,
): LifecycleState {
  const steps = LIFECYCLES[piece.simulate];
  const trackingNumber = fakeTrackingNumber(piece.order_id);
  const events: TestEvent[] = [];
  let status: TestOrderStatus | null = null;
  let tracking: TrackingStatus | null = null;
  let next: Step | undefined;
  for (const [index, step] of steps.entries()) {
    if (piece.created_at + step.afterMs > now) {
      next = step;
      break;
    }
    tracking = step.tracking ?? tracking;
    events.push({
      id: `${piece.order_id.replace(/^tord_/, "tev_")}_${String(index + 1).padStart(2, "0")}`,
      type: step.type,
      created_at: new Date(piece.created_at + step.afterMs).toISOString(),
      data: {
        order_id: piece.order_id,
        status_before: status,
        status_after: step.status,
        tracking_number: tracking === null ? null : trackingNumber,
        tracking_status: tracking,
        ...(step.money ? { amount_cents: 0 as const, currency: "usd" as const } : {}),
        ...(step.reason === undefined ? {} : { reason: step.reason }),
      },
    });
    status = step.status;
  }
  const last = events[events.length - 1];
  return {
    // The first step is due at creation, so a piece read at or after it has at least one event.
    status: status ?? "queued",
    tracking_number: tracking === null ? null : trackingNumber,
    tracking_status: tracking,
    events,
    next_event_at: next ? new Date(piece.created_at + next.afterMs).toISOString() : null,
    updated_at: last?.created_at ?? new Date(piece.created_at).toISOString(),
  };
}

/** How long after creation a lifecycle's last event happens. */
export function lifecycleLengthMs(simulation: Simulation): number {
  const steps = LIFECYCLES[simulation];
  return steps[steps.length - 1]!.afterMs;
}

/**
 * A tracking number no carrier issues: "TEST" and 20 digits taken from the order id, so that it is the same on
 * every reading.
 */
export function fakeTrackingNumber(orderId: string): string {
  const digest = createHash("sha256").update(orderId).digest();
  return `TEST${Array.from(digest.subarray(0, 20), (byte) => byte % 10).join("")}`;
}
