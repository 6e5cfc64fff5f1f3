import type { FlowerLetter, FlowerQuoteBounds, FlowerRecipientValue } from "@mailpiece/flowers";
import {
  centsToUsd,
  checkFlowerQuote,
  FLOWER_LETTER_BOUNDS,
  validateFlowerLetterRequest,
} from "@mailpiece/flowers";
import { claimReplay, claimRequest, fingerprintBytes, peekRequest } from "@mailpiece/idempotency";
import type { Issue } from "@mailpiece/orders";
import type {
  Charge,
  Clock,
  FloristEvent,
  FloristOrder,
  FloristOrderStatus,
  FloristProduct,
  FloristProvider,
  FloristQuote,
  FloristQuoteLine,
  IdGenerator,
  PaymentChallenge,
  PaymentRail,
  Store,
  StoredRecord,
} from "@mailpiece/ports";
import {
  FloristError,
  isDefiniteFloristRefusal,
  isValidKey,
  PaymentError,
  PortError,
} from "@mailpiece/ports";
import { defaultCoreConfig } from "./config.ts";
import type { RateLimit } from "./rate-limit.ts";
import { limitUnpaidCreation } from "./rate-limit.ts";
import { requestIdOf } from "./request-id.ts";

/** What the flower-letter use cases work with. */
export interface FlowerContext {
  store: Store;
  clock: Clock;
  ids: IdGenerator;
  florist: FloristProvider;
  /** The price range of one flower letter; default `FLOWER_LETTER_BOUNDS` (1.00 to 250.00). */
  bounds?: FlowerQuoteBounds;
  /** How long a claimed payment credential stays claimed; default 7 days. */
  replayClaimTtlMs?: number;
  /** How long a retry waits for a settlement in flight before answering 202; default 10 s. */
  settleWaitMs?: number;
  /** Unpaid creations per client, shared with machine orders; default: the core's (10 per hour). */
  unpaidRateLimit?: RateLimit;
}

/** Where a flower letter stands with its money. */
export type FlowerPaymentStatus = "unpaid" | "settling" | "settled_pending_webhook" | "paid";

/**
 * Where a flower letter stands with its florist: waiting for payment; paid and queued for the florist (also after a
 * submission whose outcome is unknown, which is retried under the same key); placed with the florist; or refused
 * by the florist for good after payment (it needs a person: a refund or another date).
 */
export type FlowerLetterStatus = "awaiting_payment" | "submission_queued" | "submitted" | "submission_failed";

export interface FlowerPaymentRecord {
  protocol: "x402" | "mpp";
  replay_key: string;
  status: "settling" | "settled" | "pending" | "failed";
  reference?: string;
  payer?: string;
  amount_cents: number;
  started_at: number;
  settled_at?: number;
  /** What the rail needs to answer a paid retry with the same receipt. */
  receipt_headers?: Record<string, string>;
  failure?: { code: string; message: string };
}

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
  payment_status: FlowerPaymentStatus;
  payment?: FlowerPaymentRecord;
  /** Failed payment attempts, newest last, for support. */
  payment_failures: { code: string; message: string; at: number }[];
  submission: FlowerSubmissionRecord;
  created_at: number;
  updated_at: number;
}

/** A quote as a buyer sees it: the total, its parts and the range it must fall in. */
export interface FlowerQuoteBreakdown {
  total_cents: number;
  price_usd: string;
  currency: "usd";
  product_cents: number;
  delivery_cents: number;
  service_fee_cents: number;
  tax_cents: number;
  lines: FloristQuoteLine[];
  bounds: { min_cents: number; max_cents: number };
}

/** The answer of validate: what would be ordered, delivered where and when, for how much. */
export interface FlowerQuoteView {
  object: "flower_letter_quote";
  request_id: string;
  product: FloristProduct;
  delivery_date: string;
  zipcode: string;
  note: string;
  allow_substitutions: boolean;
  recipient: FlowerRecipientValue;
  quote: FlowerQuoteBreakdown;
}

/** What a buyer or agent sees when polling a flower letter. */
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
    protocol: "x402" | "mpp";
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

export interface FlowerCreateInput {
  /** The request body exactly as received: a retry must repeat it byte for byte. */
  raw: Uint8Array | string;
  body: unknown;
  headers: Headers;
  rail: PaymentRail;
  /** Who is asking, for the unpaid-creation limit (the client IP). */
  clientKey: string;
  /** Absolute URL of the create endpoint; each charge names the order under it (`<resourceUrl>/<order id>`). */
  resourceUrl: string;
}

export type FlowerCreateOutcome =
  /** 422: the request, the product, the ZIP, the date or the quote is not acceptable. Nothing was stored. */
  | { kind: "invalid"; issues: Issue[] }
  /** 409: the request_id was used with another body. */
  | { kind: "conflict"; code: "request_id_conflict"; message: string }
  /** 429: too many unpaid flower letters from this client; nothing was stored. */
  | { kind: "rate_limited"; retryAfterSeconds: number }
  /** 402: pay this challenge; `error` says why a credential sent was refused. */
  | {
      kind: "payment_required";
      challenge: PaymentChallenge;
      order: FlowerOrderView;
      error?: { code: string; message: string };
    }
  /** 202: paid (or settling), durable, and the florist submission is queued or done. */
  | { kind: "accepted"; order: FlowerOrderView; receiptHeaders: Record<string, string> }
  /** 200: this flower letter was already paid; nothing was charged now. */
  | { kind: "already_paid"; order: FlowerOrderView; receiptHeaders: Record<string, string> };

const DEFAULT_REPLAY_CLAIM_TTL_MS = 7 * 24 * 60 * 60 * 1000;
const DEFAULT_SETTLE_WAIT_MS = 10_000;
const PAID_LIKE: ReadonlySet<FlowerPaymentStatus> = new Set(["paid", "settled_pending_webhook", "settling"]);

export const flowerLetterKey = (id: string) => `flower-letters:${id}`;
export const flowerAliasKey = (requestId: string) => `flower-letter-aliases:${requestId}`;
/** Flower letters claim their request_ids in a namespace of their own, apart from machine orders. */
const claimId = (requestId: string) => `flower-letter:${requestId}`;

/**
 * Checks a flower-letter request and quotes it, changing nothing: the request (spec 1), then with the florist the
 * product, the ZIP coverage and the delivery date, then the final quote against the bounds. Florist trouble
 * (`florist_unavailable`) is thrown as the florist's FloristError.
 */
export async function validateFlowerLetter(
  ctx: FlowerContext,
  body: unknown,
): Promise<{ ok: true; view: FlowerQuoteView } | { ok: false; issues: Issue[] }> {
  const validation = validateFlowerLetterRequest(body);
  if (!validation.ok) return validation;
  const available = await checkAvailability(ctx, validation.request);
  if (!available.ok) return available;
  const priced = await priceWithFlorist(ctx, validation.request, available.product);
  if (!priced.ok) return priced;
  return { ok: true, view: quoteView(ctx, validation.request, available.product, priced.quote) };
}

/** True when `requestId` is bound to another body: validate answers 409. */
export async function flowerRequestConflict(
  ctx: FlowerContext,
  requestId: string,
  raw: Uint8Array | string,
): Promise<boolean> {
  const seen = await peekRequest(ctx.store, claimId(requestId), fingerprintBytes(raw));
  return seen?.kind === "conflict";
}

/**
 * Creates (or resumes) a flower letter and takes its payment, so that no retry, race or crash charges twice or
 * orders twice: the request_id is claimed atomically, the product, ZIP and date are checked with the florist before
 * every 402 and before money moves, a credential's replay key is claimed before settling, the order is marked as
 * settling before money moves and as paid before the florist hears of it, and the florist is asked under the order
 * id as idempotency key, so a retried submission never places a second order.
 */
export async function createFlowerLetter(
  ctx: FlowerContext,
  input: FlowerCreateInput,
): Promise<FlowerCreateOutcome> {
  const fingerprint = fingerprintBytes(input.raw);
  const claimedId = requestIdOf(input.body);
  const seen = claimedId ? await peekRequest(ctx.store, claimId(claimedId), fingerprint) : undefined;
  const known =
    seen?.kind === "replay" ? (await loadFlowerLetter(ctx.store, seen.claim.order_id))?.value : undefined;
  // The identical body of a flower letter already paid: answer from the order, without asking the florist again.
  if (known && PAID_LIKE.has(known.payment_status)) return settledAnswer(ctx, known.id);

  const validation = validateFlowerLetterRequest(input.body);
  if (!validation.ok) return { kind: "invalid", issues: validation.issues };
  const request = validation.request;
  if (seen?.kind === "conflict") return conflict(request.request_id);

  // Before any 402 and before money moves, the florist must still take it. A known order keeps its price.
  const available = await checkAvailability(ctx, request);
  if (!available.ok) return { kind: "invalid", issues: available.issues };
  const priced = known ? undefined : await priceWithFlorist(ctx, request, available.product);
  if (priced && !priced.ok) return { kind: "invalid", issues: priced.issues };
  const quote = priced?.ok ? priced.quote : undefined;
  const open = async () =>
    known ?? (await openFlowerLetter(ctx, request, available.product, quote, fingerprint));
  // A request that would store a new flower letter counts against its client's unpaid-creation limit.
  if (!known) {
    const limited = await limitUnpaidCreation(
      ctx,
      input.clientKey,
      ctx.unpaidRateLimit ?? defaultCoreConfig().unpaidRateLimit,
    );
    if (limited) return limited;
  }

  let credential: ReturnType<PaymentRail["readCredential"]>;
  try {
    credential = input.rail.readCredential(input.headers);
  } catch (error) {
    if (!PaymentError.isInstance(error)) throw error;
    const opened = await open();
    if (opened === "conflict") return conflict(request.request_id);
    return challengeFor(ctx, input, opened, error);
  }

  const record = await open();
  if (record === "conflict") return conflict(request.request_id);
  if (PAID_LIKE.has(record.payment_status)) return settledAnswer(ctx, record.id);
  if (!credential) return challengeFor(ctx, input, record);
  const charge = chargeFor(record, input.resourceUrl);

  let verified: Awaited<ReturnType<PaymentRail["verify"]>>;
  try {
    verified = await input.rail.verify(credential, charge);
  } catch (error) {
    if (!PaymentError.isInstance(error)) throw error;
    const noted = await noteFailure(ctx, record.id, error.code, error.message);
    return challengeFor(ctx, input, noted, error);
  }

  const replay = await claimReplay(ctx.store, {
    replay_key: verified.replayKey,
    order_id: record.id,
    now: ctx.clock.now(),
    ttlMs: ctx.replayClaimTtlMs ?? DEFAULT_REPLAY_CLAIM_TTL_MS,
  });
  if (replay.kind === "taken") {
    if (replay.claim.order_id === record.id) {
      // The same credential is being settled by a concurrent request for this order: answer with its outcome.
      return settledAnswer(ctx, record.id, (order) => challengeFor(ctx, input, order));
    }
    return challengeFor(
      ctx,
      input,
      record,
      new PaymentError(
        "payment_replayed",
        "This payment credential was already used for another order. Pay the new challenge.",
      ),
    );
  }

  const startedAt = ctx.clock.now();
  let mine = false;
  await updateFlowerLetter(ctx, record.id, (order) => {
    // Decided afresh on every compare-and-set attempt: only the attempt that writes "settling" owns the payment.
    mine = order.payment_status === "unpaid";
    if (!mine) return undefined;
    order.payment_status = "settling";
    order.payment = {
      protocol: input.rail.protocol,
      replay_key: verified.replayKey,
      status: "settling",
      amount_cents: verified.amount_cents,
      started_at: startedAt,
      ...(verified.payer === undefined ? {} : { payer: verified.payer }),
    };
    return order;
  });
  // Another credential for the same order got there first: this one moves no money.
  if (!mine) return settledAnswer(ctx, record.id, (order) => challengeFor(ctx, input, order));

  let settlement: Awaited<ReturnType<PaymentRail["settle"]>>;
  try {
    settlement = await input.rail.settle(verified, charge);
  } catch (error) {
    if (PaymentError.isInstance(error) && error.code === "settlement_failed") {
      const failed = await updateFlowerLetter(ctx, record.id, (order) => {
        order.payment_status = "unpaid";
        if (order.payment) {
          order.payment = {
            ...order.payment,
            status: "failed",
            failure: { code: error.code, message: error.message },
          };
        }
        order.payment_failures.push({ code: error.code, message: error.message, at: ctx.clock.now() });
        return order;
      });
      return challengeFor(ctx, input, failed, error);
    }
    // The outcome is unknown: keep the order as settling; it is reconciled, never charged again.
    const pending = (await loadFlowerLetter(ctx.store, record.id))!.value;
    return { kind: "accepted", order: await viewWithDelivery(ctx, pending), receiptHeaders: {} };
  }

  const receiptHeaders = input.rail.receiptHeaders(settlement);
  const paid = await updateFlowerLetter(ctx, record.id, (order) => {
    order.payment_status = settlement.status === "settled" ? "paid" : "settled_pending_webhook";
    order.payment = {
      protocol: settlement.protocol,
      replay_key: verified.replayKey,
      status: settlement.status,
      reference: settlement.reference,
      amount_cents: settlement.amount_cents,
      started_at: startedAt,
      settled_at: settlement.settledAt,
      receipt_headers: receiptHeaders,
      ...(settlement.payer === undefined ? {} : { payer: settlement.payer }),
    };
    if (settlement.status === "settled") {
      order.status = "submission_queued";
      order.submission.queued_at = ctx.clock.now();
    }
    return order;
  });
  // The payment is durable: only now does the florist hear of the order. The queue entry goes first, so a crash
  // or a lost answer is retried by the worker (submissions are idempotent by the order id).
  if (paid.status === "submission_queued") {
    await ctx.store.create(flowerWorkKey(paid.id), { order_id: paid.id, queued_at: ctx.clock.now() });
  }
  const submitted = paid.status === "submission_queued" ? await attemptSubmission(ctx, paid.id) : paid;
  if (submitted.status !== "submission_queued") await ctx.store.delete(flowerWorkKey(paid.id));
  return { kind: "accepted", order: await viewWithDelivery(ctx, submitted), receiptHeaders };
}

export const flowerWorkKey = (id: string) => `work:flowers:${id}`;

/**
 * Retries the florist submission of every paid flower letter still queued (a lost answer, a florist that was
 * down). Returns how many it tried.
 */
export async function retryFlowerSubmissions(ctx: FlowerContext): Promise<number> {
  let tried = 0;
  let cursor: string | undefined;
  do {
    const page = await ctx.store.list<{ order_id: string }>("work:flowers:", {
      limit: 200,
      ...(cursor ? { cursor } : {}),
    });
    for (const record of page.records) {
      tried++;
      const view = await submitFlowerLetter(ctx, record.value.order_id).catch(() => undefined);
      if (view && view.status !== "submission_queued") await ctx.store.delete(record.key);
    }
    cursor = page.cursor;
  } while (cursor);
  return tried;
}

/** A flower letter by its order id or its request_id; undefined when there is none. */
export async function getFlowerLetter(ctx: FlowerContext, id: string): Promise<FlowerOrderView | undefined> {
  const found = await findFlowerLetter(ctx.store, id);
  return found ? viewWithDelivery(ctx, found.value) : undefined;
}

/**
 * Submits a paid flower letter still queued for its florist, under its order id as idempotency key: for a worker
 * that retries submissions whose outcome was unknown (or that a crash interrupted). Changes nothing for an order
 * that is unpaid or already placed. Undefined when there is no such flower letter.
 */
export async function submitFlowerLetter(
  ctx: FlowerContext,
  id: string,
): Promise<FlowerOrderView | undefined> {
  const found = await findFlowerLetter(ctx.store, id);
  if (!found) return undefined;
  return viewWithDelivery(ctx, await attemptSubmission(ctx, found.value.id));
}

// ---------------------------------------------------------------------------------------------------------------
// Checking with the florist

type Checked<T> = ({ ok: true } & T) | { ok: false; issues: Issue[] };

/** Where a refusal of the florist points in the request. */
const FLORIST_PATHS: Partial<Record<string, string>> = {
  product_unknown: "product_code",
  zip_not_covered: "zipcode",
  delivery_date_unavailable: "delivery_date",
};

/** Runs a check with the florist; a refusal it makes while answering (its rules changed) is still an issue. */
async function withFlorist<T>(check: () => Promise<Checked<T>>): Promise<Checked<T>> {
  try {
    return await check();
  } catch (error) {
    const path = FloristError.isInstance(error) ? FLORIST_PATHS[error.code] : undefined;
    if (!FloristError.isInstance(error) || path === undefined) throw error;
    return { ok: false, issues: [{ path, code: error.code, message: `${error.message}.` }] };
  }
}

/** The product, the ZIP coverage and the delivery date, with the florist. */
function checkAvailability(
  ctx: FlowerContext,
  request: FlowerLetter,
): Promise<Checked<{ product: FloristProduct }>> {
  const country = request.recipient.country;
  return withFlorist<{ product: FloristProduct }>(async () => {
    const products = await ctx.florist.catalogue();
    const product = products.find((p) => p.code === request.product_code);
    const issues: Issue[] = [];
    if (!product) {
      issues.push({
        path: "product_code",
        code: "product_unknown",
        message: `No florist product has the code ${request.product_code}. Products: ${products.map((p) => p.code).join(", ")}.`,
      });
    }
    const coverage = await ctx.florist.coverage(request.zipcode, country);
    if (!coverage.covered) {
      issues.push({
        path: "zipcode",
        code: "zip_not_covered",
        message: `The florist does not deliver to ${request.zipcode} (${country}): ${coverage.reason}.`,
      });
    }
    if (!product || issues.length > 0) return { ok: false, issues };

    const dates = await ctx.florist.deliveryDates(product.code, request.zipcode, { country });
    if (dates.includes(request.delivery_date)) return { ok: true, product };
    const later = dates.filter((d) => d > request.delivery_date).slice(0, 5);
    const next = later.length > 0 ? later : dates.slice(0, 5);
    const message =
      next.length > 0
        ? `${product.name} cannot be delivered to ${request.zipcode} on ${request.delivery_date}. Available dates include ${next.join(", ")}.`
        : `${product.name} cannot be delivered to ${request.zipcode} on any date at the moment.`;
    return { ok: false, issues: [{ path: "delivery_date", code: "delivery_date_unavailable", message }] };
  });
}

/** The florist's final quote, which must fall within the bounds. */
function priceWithFlorist(
  ctx: FlowerContext,
  request: FlowerLetter,
  product: FloristProduct,
): Promise<Checked<{ quote: FloristQuote }>> {
  return withFlorist<{ quote: FloristQuote }>(async () => {
    const quote = await ctx.florist.quote({
      product_code: product.code,
      zip: request.zipcode,
      delivery_date: request.delivery_date,
      country: request.recipient.country,
    });
    const outOfBounds = checkFlowerQuote(quote.total_cents, ctx.bounds ?? FLOWER_LETTER_BOUNDS);
    return outOfBounds ? { ok: false, issues: [outOfBounds] } : { ok: true, quote };
  });
}

function breakdown(ctx: Pick<FlowerContext, "bounds">, quote: FloristQuote): FlowerQuoteBreakdown {
  const bounds = ctx.bounds ?? FLOWER_LETTER_BOUNDS;
  return {
    total_cents: quote.total_cents,
    price_usd: centsToUsd(quote.total_cents),
    currency: "usd",
    product_cents: quote.product_cents,
    delivery_cents: quote.delivery_cents,
    service_fee_cents: quote.service_fee_cents,
    tax_cents: quote.tax_cents,
    lines: quote.lines.map((line) => ({ ...line })),
    bounds: { min_cents: bounds.min_cents, max_cents: bounds.max_cents },
  };
}

function quoteView(
  ctx: FlowerContext,
  request: FlowerLetter,
  product: FloristProduct,
  quote: FloristQuote,
): FlowerQuoteView {
  return {
    object: "flower_letter_quote",
    request_id: request.request_id,
    product: { ...product },
    delivery_date: request.delivery_date,
    zipcode: request.zipcode,
    note: request.note,
    allow_substitutions: request.allow_substitutions,
    recipient: { ...request.recipient },
    quote: breakdown(ctx, quote),
  };
}

// ---------------------------------------------------------------------------------------------------------------
// Records

async function loadFlowerLetter(
  store: Store,
  id: string,
): Promise<StoredRecord<FlowerOrderRecord> | undefined> {
  return store.get<FlowerOrderRecord>(flowerLetterKey(id));
}

/** Resolves an order id or the request_id that made it; undefined for anything that cannot be one. */
async function findFlowerLetter(
  store: Store,
  idOrRequestId: string,
): Promise<StoredRecord<FlowerOrderRecord> | undefined> {
  if (typeof idOrRequestId !== "string" || !isValidKey(flowerAliasKey(idOrRequestId))) return undefined;
  const direct = await loadFlowerLetter(store, idOrRequestId);
  if (direct) return direct;
  const alias = await store.get<{ order_id: string }>(flowerAliasKey(idOrRequestId));
  return alias ? loadFlowerLetter(store, alias.value.order_id) : undefined;
}

/**
 * Applies `change` to the stored flower letter with compare-and-set, re-reading and re-applying on a conflict, so
 * concurrent updates never lose each other. `change` returns undefined to leave it as it is.
 */
async function updateFlowerLetter(
  ctx: FlowerContext,
  id: string,
  change: (order: FlowerOrderRecord) => FlowerOrderRecord | undefined,
): Promise<FlowerOrderRecord> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const current = await loadFlowerLetter(ctx.store, id);
    if (!current) throw new Error(`flower letter ${id} vanished`);
    const next = change(structuredClone(current.value));
    if (!next) return current.value;
    next.updated_at = ctx.clock.now();
    try {
      const saved = await ctx.store.put<FlowerOrderRecord>(flowerLetterKey(id), next, {
        ifVersion: current.version,
      });
      return saved.value;
    } catch (error) {
      if (PortError.isInstance(error) && error.code === "version_conflict") continue;
      throw error;
    }
  }
  throw new Error(`flower letter ${id} is too contended to update`);
}

/**
 * Finds or makes the unpaid flower letter for this request: claims the request_id (exactly one concurrent caller
 * makes the order). Returns "conflict" when the request_id turned out to be bound to another body.
 */
async function openFlowerLetter(
  ctx: FlowerContext,
  request: FlowerLetter,
  product: FloristProduct,
  quote: FloristQuote | undefined,
  fingerprint: string,
): Promise<FlowerOrderRecord | "conflict"> {
  if (!quote) throw new Error("a new flower letter needs its quote");
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
    request_id: claimId(request.request_id),
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
    return (await loadFlowerLetter(ctx.store, claim.claim.order_id))!.value;
  }
  await ctx.store.create(flowerAliasKey(request.request_id), { order_id: id });
  return record;
}

// ---------------------------------------------------------------------------------------------------------------
// Paying

function conflict(requestId: string): FlowerCreateOutcome {
  return {
    kind: "conflict",
    code: "request_id_conflict",
    message: `request_id ${requestId} was already used with a different body. Retry with the byte-for-byte identical body, or use a new request_id for a new flower letter.`,
  };
}

function chargeFor(record: FlowerOrderRecord, resourceUrl: string): Charge {
  return {
    amount_cents: record.quote.total_cents,
    currency: "usd",
    // The order's own URL: a payment signed for one order names it, and cannot pay another at the same price.
    resource_url: `${resourceUrl}/${record.id}`,
    description: `Mailpiece flower letter: ${record.product.name}, delivered to ${record.request.zipcode} on ${record.request.delivery_date}, order ${record.id}`,
    order_ref: record.id,
  };
}

async function challengeFor(
  ctx: FlowerContext,
  input: FlowerCreateInput,
  record: FlowerOrderRecord,
  error?: PaymentError,
): Promise<FlowerCreateOutcome> {
  const challenge = await input.rail.challenge(chargeFor(record, input.resourceUrl), error);
  return {
    kind: "payment_required",
    challenge,
    order: flowerOrderView(ctx, record, null),
    ...(error ? { error: { code: error.code, message: error.message } } : {}),
  };
}

async function noteFailure(
  ctx: FlowerContext,
  id: string,
  code: string,
  message: string,
): Promise<FlowerOrderRecord> {
  return updateFlowerLetter(ctx, id, (order) => {
    order.payment_failures = [...order.payment_failures, { code, message, at: ctx.clock.now() }].slice(-20);
    return order;
  });
}

/**
 * The answer for a flower letter whose payment went through or is going through: waits a little (real time, not
 * the business clock) for a settlement in flight, then 200 when paid, or 202 while it is still being confirmed.
 * A paid letter whose last submission failed with an unknown outcome is submitted again first (same key).
 */
async function settledAnswer(
  ctx: FlowerContext,
  id: string,
  ifUnpaid?: (order: FlowerOrderRecord) => Promise<FlowerCreateOutcome>,
): Promise<FlowerCreateOutcome> {
  const deadline = Date.now() + (ctx.settleWaitMs ?? DEFAULT_SETTLE_WAIT_MS);
  for (;;) {
    let current = (await loadFlowerLetter(ctx.store, id))!.value;
    if (current.payment_status === "paid") {
      if (current.status === "submission_queued" && current.submission.last_error !== undefined) {
        current = await attemptSubmission(ctx, id);
      }
      return {
        kind: "already_paid",
        order: await viewWithDelivery(ctx, current),
        receiptHeaders: current.payment?.receipt_headers ?? {},
      };
    }
    // A payment for this order is in flight (its credential was claimed a moment ago): wait for its outcome.
    const inFlight =
      current.payment_status === "settling" ||
      (ifUnpaid !== undefined && current.payment_status === "unpaid");
    if (!inFlight || Date.now() >= deadline) {
      if (current.payment_status === "unpaid" && ifUnpaid) return ifUnpaid(current);
      return {
        kind: "accepted",
        order: await viewWithDelivery(ctx, current),
        receiptHeaders: current.payment?.receipt_headers ?? {},
      };
    }
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Submitting

/** The order the florist receives: the request as validated, at the price that was paid. */
function floristOrderOf(record: FlowerOrderRecord): FloristOrder {
  const { request } = record;
  return {
    product_code: request.product_code,
    delivery_date: request.delivery_date,
    card_note: request.note,
    allow_substitutions: request.allow_substitutions,
    recipient: { ...request.recipient },
    customer: { ...request.customer },
    total_cents: record.quote.total_cents,
  };
}

/**
 * One submission of a paid, queued flower letter under its order id. A definite refusal marks it
 * `submission_failed`; any other failure leaves it queued with the error noted, to be submitted again.
 */
async function attemptSubmission(ctx: FlowerContext, id: string): Promise<FlowerOrderRecord> {
  const current = (await loadFlowerLetter(ctx.store, id))!.value;
  if (current.payment_status !== "paid" || current.status !== "submission_queued") return current;
  try {
    const placed = await ctx.florist.submit(floristOrderOf(current), { idempotencyKey: current.id });
    return await updateFlowerLetter(ctx, id, (order) => {
      if (order.status !== "submission_queued") return undefined;
      order.status = "submitted";
      order.submission = {
        ...order.submission,
        attempts: order.submission.attempts + 1,
        reference: placed.reference,
        submitted_at: Date.parse(placed.submitted_at),
      };
      delete order.submission.last_error;
      return order;
    });
  } catch (error) {
    const code = FloristError.isInstance(error) ? error.code : "florist_unavailable";
    const message = error instanceof Error ? error.message : String(error);
    const definite = isDefiniteFloristRefusal(error);
    return updateFlowerLetter(ctx, id, (order) => {
      if (order.status !== "submission_queued") return undefined;
      order.submission = {
        ...order.submission,
        attempts: order.submission.attempts + 1,
        last_error: { code, message, at: ctx.clock.now() },
      };
      if (definite) order.status = "submission_failed";
      return order;
    });
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Views

async function viewWithDelivery(ctx: FlowerContext, record: FlowerOrderRecord): Promise<FlowerOrderView> {
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
  const payment_status =
    record.payment_status === "paid"
      ? "paid"
      : record.payment_status === "unpaid"
        ? "unpaid"
        : "settled_pending_webhook";
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
