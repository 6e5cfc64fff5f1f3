import type { FlowerLetter, FlowerQuoteBounds } from "@mailpiece/flowers";
import { claimRequest } from "@mailpiece/idempotency";
import type {
  Clock,
  FloristProduct,
  FloristProvider,
  FloristQuote,
  IdGenerator,
  Store,
} from "@mailpiece/ports";
import { isValidKey } from "@mailpiece/ports";
import type { PaymentContext } from "../payments/pay.ts";
import type { Payable } from "../payments/payable.ts";
import type { PaymentRecord, PaymentStatus } from "../payments/payment-record.ts";
import type { RateLimit } from "../rate-limit.ts";
import { updateRecord } from "../records.ts";
import {
  attemptSubmission,
  dropFlowerSubmission,
  FIRST_RETRY_MS,
  noteFlowerSubmission,
} from "./submission.ts";

/** What the flower-letter use cases work with. */
export interface FlowerContext {
  store: Store;
  clock: Clock;
  ids: IdGenerator;
  florist: FloristProvider;
  /** The price range of one flower letter; default `FLOWER_LETTER_BOUNDS` (1.00 to 250.00). */
  bounds?: FlowerQuoteBounds;
  /** The payment flow's settings and rails, shared with machine orders. */
  payments: PaymentContext;
  /** Unpaid creations per client, shared with machine orders. */
  unpaidRateLimit: RateLimit;
}

/**
 * Where a flower letter stands with its florist: waiting for payment; paid and queued for the florist (also after a
 * submission whose outcome is unknown, which is retried under the same key); placed with the florist; or refused
 * by the florist for good after payment (it needs a person: a refund or another date).
 */
export type FlowerLetterStatus = "awaiting_payment" | "submission_queued" | "submitted" | "submission_failed";

export interface FlowerSubmissionRecord {
  /** Submits tried so far, each under the order id as idempotency key. */
  attempts: number;
  queued_at?: number;
  reference?: string;
  submitted_at?: number;
  last_error?: { code: string; message: string; at: number };
}

/** A flower letter as stored: the request as validated, the product and quote shown at the 402, money, florist. */
export interface FlowerOrderRecord {
  id: string;
  object: "flower_letter";
  request_id: string;
  fingerprint: string;
  request: FlowerLetter;
  product: FloristProduct;
  /** The price is kept from the first 402 on: the buyer pays what they were shown. */
  quote: FloristQuote;
  quoted_at: number;
  /** The florist's `name`. */
  florist: string;
  status: FlowerLetterStatus;
  payment_status: PaymentStatus;
  payment?: PaymentRecord;
  /** Failed payment attempts, newest last, for support. */
  payment_failures: { code: string; message: string; at: number }[];
  submission: FlowerSubmissionRecord;
  /** When the mail server took the payment receipt (milliseconds since the epoch). */
  receipt_emailed_at?: number;
  created_at: number;
  updated_at: number;
}

export const flowerLetterKey = (id: string) => `flower-letters:${id}`;
export const flowerAliasKey = (requestId: string) => `flower-letter-aliases:${requestId}`;
/** Flower letters claim their request_ids in a namespace of their own, apart from machine orders. */
export const flowerClaimId = (requestId: string) => `flower-letter:${requestId}`;

export async function loadFlowerLetter(store: Store, id: string): Promise<FlowerOrderRecord | undefined> {
  return (await store.get<FlowerOrderRecord>(flowerLetterKey(id)))?.value;
}

/** Resolves an order id or the request_id that made it; undefined for anything that cannot be one. */
export async function findFlowerLetter(
  store: Store,
  idOrRequestId: string,
): Promise<FlowerOrderRecord | undefined> {
  if (typeof idOrRequestId !== "string" || !isValidKey(flowerAliasKey(idOrRequestId))) return undefined;
  const direct = await loadFlowerLetter(store, idOrRequestId);
  if (direct) return direct;
  const alias = await store.get<{ order_id: string }>(flowerAliasKey(idOrRequestId));
  return alias ? loadFlowerLetter(store, alias.value.order_id) : undefined;
}

/** Compare-and-set update of a stored flower letter (see `updateRecord`). */
export function updateFlowerLetter(
  ctx: Pick<FlowerContext, "store" | "clock">,
  id: string,
  change: (order: FlowerOrderRecord) => FlowerOrderRecord | undefined,
): Promise<FlowerOrderRecord> {
  return updateRecord(ctx.store, flowerLetterKey(id), ctx.clock.now, change);
}

/** A flower letter as the payment flow sees it: paid, it is queued for its florist and submitted. */
export function flowerPayable(ctx: FlowerContext): Payable<FlowerOrderRecord> {
  return {
    kind: "flower_letter",
    load: (id) => loadFlowerLetter(ctx.store, id),
    update: (id, change) => updateFlowerLetter(ctx, id, change),
    charge: (record) => ({
      amount_cents: record.quote.total_cents,
      currency: "usd",
      description: `Mailpiece flower letter: ${record.product.name}, delivered to ${record.request.zipcode} on ${record.request.delivery_date}, order ${record.id}`,
      order_ref: record.id,
    }),
    onSettled(record) {
      record.status = "submission_queued";
      record.submission.queued_at = ctx.clock.now();
    },
    async afterPaid(record) {
      if (record.status !== "submission_queued") return record;
      // The payment is durable: only now does the florist hear of the order. The queue entry goes first, so a
      // crash or a lost answer is retried by the worker (submissions are idempotent by the order id).
      await noteFlowerSubmission(ctx.payments.jobs, record.id, ctx.clock.now() + FIRST_RETRY_MS);
      const submitted = await attemptSubmission(ctx, record.id);
      if (submitted.status !== "submission_queued") await dropFlowerSubmission(ctx.payments.jobs, record.id);
      return submitted;
    },
  };
}

/**
 * Finds or makes the unpaid flower letter for this request: claims the request_id (exactly one concurrent caller
 * makes the order). Returns "conflict" when the request_id turned out to be bound to another body.
 */
export async function openFlowerLetter(
  ctx: FlowerContext,
  request: FlowerLetter,
  product: FloristProduct,
  quote: FloristQuote,
  fingerprint: string,
): Promise<FlowerOrderRecord | "conflict"> {
  const now = ctx.clock.now();
  const id = ctx.ids.uuid();
  const record: FlowerOrderRecord = {
    id,
    object: "flower_letter",
    request_id: request.request_id,
    fingerprint,
    request,
    product,
    quote,
    quoted_at: now,
    florist: ctx.florist.name,
    status: "awaiting_payment",
    payment_status: "unpaid",
    payment_failures: [],
    submission: { attempts: 0 },
    created_at: now,
    updated_at: now,
  };
  await ctx.store.create(flowerLetterKey(id), record);
  const claim = await claimRequest(ctx.store, {
    request_id: flowerClaimId(request.request_id),
    fingerprint,
    order_id: id,
    now,
  });
  if (claim.kind === "conflict") {
    await ctx.store.delete(flowerLetterKey(id));
    return "conflict";
  }
  if (claim.kind === "replay") {
    // A concurrent identical request made the order first: use it, drop ours.
    await ctx.store.delete(flowerLetterKey(id));
    return (await loadFlowerLetter(ctx.store, claim.claim.order_id))!;
  }
  await ctx.store.create(flowerAliasKey(request.request_id), { order_id: id });
  return record;
}
