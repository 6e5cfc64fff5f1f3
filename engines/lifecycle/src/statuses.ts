/**
 * The order statuses of the Projects API (spec 3), in the order an order normally passes through them.
 * - `queued`: accepted (and, for machine orders, paid), awaiting document preparation.
 * - `document_preparing`, `document_prepared`: the print-ready PDF is being made, then ready.
 * - `submitted`: a print provider holds the job.
 * - `accepted`: the provider accepted the piece into production; funds are captured.
 * - `in_transit`, `delivered`, `returned`: the carrier's part.
 * - `submission_pending`: a submission whose outcome is unknown; never retried blindly, only reconciled.
 * - `failed`, `canceled`: the order ends without a mailed piece (or with a piece that could not be produced).
 */
export const ORDER_STATUSES = [
  "queued",
  "document_preparing",
  "document_prepared",
  "submitted",
  "accepted",
  "in_transit",
  "delivered",
  "returned",
  "submission_pending",
  "failed",
  "canceled",
] as const;

export type OrderStatus = (typeof ORDER_STATUSES)[number];

/** Statuses no transition leaves. */
export const TERMINAL_STATUSES: readonly OrderStatus[] = Object.freeze([
  "delivered",
  "returned",
  "failed",
  "canceled",
]);

export function isOrderStatus(value: unknown): value is OrderStatus {
  return typeof value === "string" && (ORDER_STATUSES as readonly string[]).includes(value);
}

/** True for delivered, returned, failed and canceled: the order's story is over. */
export function isTerminal(status: OrderStatus): boolean {
  return TERMINAL_STATUSES.includes(status);
}
