import type { PaymentErrorCode, PaymentProtocol } from "@mailpiece/ports";

/** Where a paid thing (a machine order, a campaign, a flower letter) stands with its money. */
export type PaymentStatus =
  /** No payment yet: a challenge is what the buyer gets. */
  | "unpaid"
  /** A credential was accepted and settlement started; its outcome is not known yet. */
  | "settling"
  /** The rail reported the settlement as not final yet; it is confirmed later. Do not pay again. */
  | "settled_pending_webhook"
  | "paid";

/** One payment of one order, embedded in the order's record. The same type for every kind of order. */
export interface PaymentRecord {
  protocol: PaymentProtocol;
  replay_key: string;
  /** `settling` until settle answers; then `settled`, `pending` (confirmed later) or `failed`. */
  status: "settling" | "settled" | "pending" | "failed";
  /** Tells one attempt to settle from a later one with the same credential (after a release). */
  attempt: string;
  reference?: string;
  payer?: string;
  amount_cents: number;
  /** When settle began (the core's clock). A settle older than the settle lease is no longer running anywhere. */
  started_at: number;
  settled_at?: number;
  /** The verified payment's rail data, kept so the rail can confirm a settlement whose answer was lost. */
  details?: unknown;
  /** What the rail needs to answer a paid retry with the same receipt. */
  receipt_headers?: Record<string, string>;
  failure?: { code: PaymentErrorCode | string; message: string };
}

/** What the payment flow needs of a record: its id, its money fields, and when it last changed. */
export interface PayableRecord {
  id: string;
  payment_status: PaymentStatus;
  payment?: PaymentRecord;
  /** Failed payment attempts, newest last (at most 20), for support. */
  payment_failures: { code: string; message: string; at: number }[];
  updated_at: number;
}

/** The kinds of things paid for through the one payment flow. */
export type PayableKind = "order" | "campaign" | "flower_letter";

/** A payment in flight or awaiting confirmation: the payload of its job on the payments queue. */
export interface PaymentWork {
  kind: PayableKind;
  id: string;
  /** When the work was first noted (absent on work noted before this was kept). */
  noted_at?: number;
}

/**
 * The job queue of payments in flight or awaiting confirmation: a record's job is enqueued before any money moves
 * and taken back once its payment is recorded, so a job that comes due names a payment whose answer was lost or is
 * still pending, and its rail is asked where it stands.
 */
export const PAYMENTS_QUEUE = "payments";
export const paymentJobKey = (kind: PayableKind, id: string) => `${kind}:${id}`;
/** Where payments in flight were noted before they were jobs: each process lifts such notes onto the queue once. */
export const LEGACY_PAYMENT_WORK_PREFIX = "work:payments:";

/** The payment status a buyer sees: money in flight or awaiting confirmation is `settled_pending_webhook`. */
export function publicPaymentStatus(status: PaymentStatus): "unpaid" | "settled_pending_webhook" | "paid" {
  return status === "settling" ? "settled_pending_webhook" : status;
}

/** Paid, or with money in flight: never challenged again. */
export function isPaidLike(status: PaymentStatus): boolean {
  return status !== "unpaid";
}

/** Records a failed attempt on the record, keeping the newest 20. */
export function noteFailure(record: PayableRecord, code: string, message: string, at: number): void {
  record.payment_failures = [...record.payment_failures, { code, message, at }].slice(-20);
}
