import { formatTime } from "./format-time.ts";
import type { Fact } from "./layout.ts";
import { MESSAGE_LIMITS } from "./limits.ts";
import type { InputReader } from "./read-input.ts";

export const PAYMENT_RAILS = ["x402", "mpp", "card", "credits"] as const;
export type PaymentRail = (typeof PAYMENT_RAILS)[number];

/** How each rail is named for people. */
export const RAIL_LABELS: Readonly<Record<PaymentRail, string>> = Object.freeze({
  x402: "x402",
  mpp: "MPP",
  card: "Card",
  credits: "Prepaid credits",
});

/**
 * What a receipt says about a payment, and all it says: the rail, its public reference (a transaction hash, a
 * payment id), who paid (a wallet address, a cardholder's name) and when. Everything given is printed in the
 * message, so never pass a secret here: no payment payload, signature, token, card number or key.
 */
export interface PaymentDetails {
  rail: PaymentRail;
  /** Up to 200 characters, or null when the rail has none to show. */
  reference: string | null;
  /** Up to 200 characters; absent or null shows nothing. */
  payer?: string | null;
  /** When the payment settled: ISO 8601 with a zone; shown in UTC. */
  paid_at: string;
}

export interface PaymentView {
  rail: PaymentRail;
  reference: string | null;
  payer: string | null;
  paid_at: number;
}

/** The `payment` field of an input. */
export function readPayment(reader: InputReader, value: unknown): PaymentView | undefined {
  const fields = reader.object(value, "payment", ["rail", "reference", "payer", "paid_at"]);
  if (fields === undefined) return undefined;
  const rule = { max: MESSAGE_LIMITS.payment_reference_chars };
  const rail = reader.oneOf(fields, "rail", "payment", PAYMENT_RAILS);
  if (fields.reference === undefined)
    reader.add("payment.reference", "required", "payment.reference is required (null when there is none).");
  const reference = reader.optionalText(fields, "reference", "payment", rule);
  const payer = reader.optionalText(fields, "payer", "payment", rule);
  const paidAt = reader.time(fields, "paid_at", "payment");
  if (rail === undefined || reference === undefined || payer === undefined || paidAt === undefined) {
    return undefined;
  }
  return { rail, reference, payer, paid_at: paidAt };
}

/** The rows a receipt shows for a payment. */
export function paymentFacts(payment: PaymentView): Fact[] {
  const rows: Fact[] = [
    { label: "Paid", value: formatTime(payment.paid_at) },
    { label: "Payment", value: RAIL_LABELS[payment.rail] },
  ];
  if (payment.reference !== null) rows.push({ label: "Reference", value: payment.reference });
  if (payment.payer !== null) rows.push({ label: "Paid by", value: payment.payer });
  return rows;
}
