import { DEFAULT_OPTIONS, type MailOptions } from "@mailpiece/orders";
import type { OrderRecord } from "../order-record.ts";

/**
 * The document source of a handwritten order: its document is the proof a handwriting machine writes from, one
 * letter sheet for a #10 double-window envelope. The order itself is stored as a letter of that one sheet; this
 * source makes it a handwritten piece for the print provider and for the API.
 */
export const HANDWRITTEN_SOURCE = "handwritten_proof";

/** What a handwritten piece is mailed with: standard mail, one side, no color, no proof of mailing or receipts. */
export const HANDWRITTEN_OPTIONS: Readonly<MailOptions> = Object.freeze({
  ...DEFAULT_OPTIONS,
  double_sided: false,
});

/** True for an order of a handwritten piece. */
export function isHandwrittenOrder(order: Pick<OrderRecord, "document">): boolean {
  return order.document.source === HANDWRITTEN_SOURCE;
}
