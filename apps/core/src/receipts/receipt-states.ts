import { isTerminal } from "@mailpiece/lifecycle";
import { wantsElectronicReturnReceipt } from "@mailpiece/ports";
import type { OrderRecord } from "../order-record.ts";

/**
 * The states of an electronic return receipt, decided here and nowhere else.
 *
 * A letter asks for one with `certified`, `certified_return_receipt` and `return_receipt_format` electronic. Its
 * receipt record is opened when the letter is delivered, and moves only along these arrows (`MOVES` below):
 *
 * ```
 * awaiting      -> stored | unavailable
 * stored        -> emailed | email_failed | expired
 * email_failed  -> emailed | expired
 * emailed       -> expired
 * ```
 *
 * - `awaiting`: the letter is delivered; its print provider is asked for the receipt, the looks spaced further and
 *   further apart, until it answers one or `acquireWithinMs` has passed since the delivery was noted.
 * - `stored`: the signed PDF is kept (blob `receipts:<order id>`) until `retention_until`.
 * - `emailed`, `email_failed`: err_delivery email only, as the email delivery reports it (`markEmailed`,
 *   `markEmailFailed`). A receipt whose email failed keeps its PDF and may still be emailed later.
 * - `unavailable` (final): no receipt within `acquireWithinMs`, a provider without electronic receipts, or one that
 *   does not know the job.
 * - `expired` (final): `retention_until` has passed; the PDF is deleted, the record (tracking number, signer, times)
 *   is kept.
 *
 * The order's err_status (spec 3) follows:
 * - `manual`: err_delivery manual, the receipt awaited or kept for download (`return_receipt_available` says which);
 *   also any order that asked for no electronic receipt (none, or a physical one), with nothing available.
 * - `pending`: err_delivery email, the receipt awaited or stored and not emailed yet.
 * - `sent`: emailed. `failed`: `unavailable` or `email_failed`, or a letter that ended without being delivered
 *   (returned, failed, canceled), so that no receipt will come. `expired`: past its retention.
 *
 * `err_delivered_at` is when the receipt reached the customer the way err_delivery says: for manual, when it was
 * stored and could be downloaded; for email, when it was emailed. `err_retention_until` is set once it is stored.
 */
export type ReceiptState = "awaiting" | "stored" | "emailed" | "email_failed" | "unavailable" | "expired";

/** err_status of spec 3. */
export type ErrStatus = "manual" | "pending" | "sent" | "failed" | "expired";

/** The moves a receipt record may make; any other is refused. */
const MOVES: Readonly<Record<ReceiptState, readonly ReceiptState[]>> = {
  awaiting: ["stored", "unavailable"],
  stored: ["emailed", "email_failed", "expired"],
  email_failed: ["emailed", "expired"],
  emailed: ["expired"],
  unavailable: [],
  expired: [],
};

/** The states in which the receipt's PDF is kept. */
const KEPT: ReadonlySet<ReceiptState> = new Set(["stored", "emailed", "email_failed"]);

export function canMove(from: ReceiptState, to: ReceiptState): boolean {
  return MOVES[from].includes(to);
}

/** True when a receipt in `state` has its PDF kept. */
export function pdfKept(state: ReceiptState): boolean {
  return KEPT.has(state);
}

/** What of an order the receipts read: its piece, its options, its status and where it was produced. */
export type ReceiptOrder = Pick<OrderRecord, "id" | "status" | "lifecycle" | "fulfilment" | "project"> & {
  order: Pick<OrderRecord["order"], "mailpiece_type" | "options">;
};

/** True when the order is a certified letter that asked for an electronic return receipt. */
export function asksForElectronicReceipt(order: ReceiptOrder): boolean {
  const options = order.order.options;
  return (
    order.order.mailpiece_type === "letter" && options.certified && wantsElectronicReturnReceipt(options)
  );
}

/** True when the order ended without being delivered: no receipt will come for it. */
export function endedUndelivered(order: ReceiptOrder): boolean {
  const status = order.lifecycle?.status;
  if (status === undefined) return order.status === "canceled" || order.status === "abandoned";
  return isTerminal(status) && status !== "delivered";
}

/** The err_status of an order that asked for an electronic receipt, its record in `state` (none yet: undefined). */
export function errStatusOf(
  order: ReceiptOrder,
  errDelivery: "manual" | "email",
  state: ReceiptState | undefined,
): ErrStatus {
  switch (state) {
    case undefined:
      if (endedUndelivered(order)) return "failed";
      return errDelivery === "email" ? "pending" : "manual";
    case "awaiting":
    case "stored":
      return errDelivery === "email" ? "pending" : "manual";
    case "emailed":
      return "sent";
    case "email_failed":
    case "unavailable":
      return "failed";
    case "expired":
      return "expired";
  }
}
