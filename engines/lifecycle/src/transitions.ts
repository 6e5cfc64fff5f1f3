import type { OrderStatus } from "./statuses.ts";

/**
 * The state machine as data: for each status, the statuses an order may move to next. Anything not listed is
 * refused with `transition_not_allowed`; a status never moves to itself.
 *
 * - Before submission an order can fail (the document cannot be made) or be canceled (and refunded).
 * - `document_prepared` goes to `submitted` when the provider answered, or to `submission_pending` when the outcome
 *   of the submission is unknown (a timeout, a lost answer).
 * - `submission_pending` is left only through reconciliation (source `reconciliation`): to `submitted` or
 *   `accepted` when the provider holds the job, to `failed` when it refused it.
 * - `submitted` can still be canceled (the provider allows it before production); from `accepted` on the piece is
 *   in production and can only fail, travel, arrive or come back.
 * - `delivered`, `returned`, `failed` and `canceled` are terminal.
 */
export const TRANSITIONS: Readonly<Record<OrderStatus, readonly OrderStatus[]>> = deepFreeze({
  queued: ["document_preparing", "failed", "canceled"],
  document_preparing: ["document_prepared", "failed", "canceled"],
  document_prepared: ["submitted", "submission_pending", "failed", "canceled"],
  submission_pending: ["submitted", "accepted", "failed"],
  submitted: ["accepted", "failed", "canceled"],
  accepted: ["in_transit", "failed"],
  in_transit: ["delivered", "returned"],
  delivered: [],
  returned: [],
  failed: [],
  canceled: [],
});

/** Statuses whose outgoing transitions only reconciliation may make. */
export const RECONCILIATION_ONLY: readonly OrderStatus[] = Object.freeze(["submission_pending"]);

/** True when the table has an edge from `from` to `to` (whatever the source). */
export function canTransition(from: OrderStatus, to: OrderStatus): boolean {
  return TRANSITIONS[from].includes(to);
}

function deepFreeze<T extends Record<string, readonly string[]>>(table: T): T {
  for (const value of Object.values(table)) Object.freeze(value);
  return Object.freeze(table);
}
