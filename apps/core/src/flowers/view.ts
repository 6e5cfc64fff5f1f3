import type { FloristEvent, FloristOrderStatus, PaymentProtocol } from "@mailpiece/ports";
import { FloristError } from "@mailpiece/ports";
import { publicPaymentStatus } from "../payments/payment-record.ts";
import type { FlowerQuoteBreakdown } from "./florist-checks.ts";
import { breakdown } from "./florist-checks.ts";
import type { FlowerContext, FlowerLetterStatus, FlowerOrderRecord } from "./record.ts";

export interface FlowerOrderView {
  object: "flower_letter";
  order_id: string;
  request_id: string;
  status: FlowerLetterStatus;
  payment_status: "unpaid" | "settled_pending_webhook" | "paid";
  is_paid: boolean;
  /** True once delivered, failed at the door, or refused by the florist. */
  terminal: boolean;
  product: { code: string; name: string };
  delivery_date: string;
  zipcode: string;
  note: string;
  allow_substitutions: boolean;
  recipient: { name: string; city: string; state: string; zipcode: string; country: string };
  quote: FlowerQuoteBreakdown;
  payment: {
    protocol: PaymentProtocol;
    reference: string | null;
    payer: string | null;
    amount_cents: number;
    settled_at: string | null;
  } | null;
  submission: {
    attempts: number;
    reference: string | null;
    submitted_at: string | null;
    last_error: { code: string; message: string; at: string } | null;
  };
  /** The florist's own status and events once the order is placed; null before, or when the florist is unreachable. */
  delivery: { status: FloristOrderStatus; events: FloristEvent[] } | null;
  created_at: string;
  updated_at: string;
}

export async function viewWithDelivery(
  ctx: FlowerContext,
  record: FlowerOrderRecord,
): Promise<FlowerOrderView> {
  const reference = record.submission.reference;
  if (reference === undefined) return flowerOrderView(ctx, record, null);
  try {
    const placed = await ctx.florist.status(reference);
    return flowerOrderView(ctx, record, { status: placed.status, events: placed.events });
  } catch (error) {
    if (FloristError.isInstance(error)) return flowerOrderView(ctx, record, null);
    throw error;
  }
}

const iso = (ms: number | undefined) => (ms === undefined ? null : new Date(ms).toISOString());

/** The view of a stored flower letter, with the florist's delivery status when known. */
export function flowerOrderView(
  ctx: Pick<FlowerContext, "bounds">,
  record: FlowerOrderRecord,
  delivery: FlowerOrderView["delivery"],
): FlowerOrderView {
  const payment_status = publicPaymentStatus(record.payment_status);
  const payment = record.payment && record.payment.status !== "failed" ? record.payment : undefined;
  const r = record.request.recipient;
  const last = record.submission.last_error;
  return {
    object: "flower_letter",
    order_id: record.id,
    request_id: record.request_id,
    status: record.status,
    payment_status,
    is_paid: payment_status === "paid",
    terminal:
      record.status === "submission_failed" ||
      delivery?.status === "delivered" ||
      delivery?.status === "failed",
    product: { code: record.product.code, name: record.product.name },
    delivery_date: record.request.delivery_date,
    zipcode: record.request.zipcode,
    note: record.request.note,
    allow_substitutions: record.request.allow_substitutions,
    recipient: { name: r.name, city: r.city, state: r.state, zipcode: r.zipcode, country: r.country },
    quote: breakdown(ctx, record.quote),
    payment: payment
      ? {
          protocol: payment.protocol,
          reference: payment.reference ?? null,
          payer: payment.payer ?? null,
          amount_cents: payment.amount_cents,
          settled_at: iso(payment.settled_at),
        }
      : null,
    submission: {
      attempts: record.submission.attempts,
      reference: record.submission.reference ?? null,
      submitted_at: iso(record.submission.submitted_at),
      last_error: last
        ? { code: last.code, message: last.message, at: new Date(last.at).toISOString() }
        : null,
    },
    delivery,
    created_at: new Date(record.created_at).toISOString(),
    updated_at: new Date(record.updated_at).toISOString(),
  };
}
