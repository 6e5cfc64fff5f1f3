import {
  claimDraft,
  claimReplay,
  claimRequest,
  draftKeyOf,
  fingerprintBytes,
  fingerprintJson,
  peekRequest,
} from "@mailpiece/idempotency";
import { startLifecycle } from "@mailpiece/lifecycle";
import type { Issue } from "@mailpiece/orders";
import type {
  BlobStore,
  Charge,
  Clock,
  IdGenerator,
  PaymentChallenge,
  PaymentRail,
  Store,
} from "@mailpiece/ports";
import { PaymentError } from "@mailpiece/ports";
import { campaignStatusView, spawnCampaignOrders } from "./campaign-orders.ts";
import type { CoreConfig } from "./config.ts";
import type { DocumentContext } from "./documents.ts";
import { enqueueFulfilment } from "./fulfilment.ts";
import type { OrderRecord } from "./order-record.ts";
import { addStep, aliasKey, findOrder, loadOrder, orderKey, updateOrder } from "./order-record.ts";
import type { OrderStatusView } from "./order-status.ts";
import { orderStatusView } from "./order-status.ts";
import { paymentWorkKey } from "./payment-reconciliation.ts";
import { limitUnpaidCreation } from "./rate-limit.ts";
import { requestIdOf } from "./request-id.ts";
import { consumeUpload, UPLOAD_MESSAGES } from "./uploads.ts";
import type { PreparedOrder } from "./validate-order.ts";
import { prepareOrder } from "./validate-order.ts";

export interface OrderContext extends DocumentContext {
  store: Store;
  blobs: BlobStore;
  clock: Clock;
  ids: IdGenerator;
  config: CoreConfig;
}

export interface CreateOrderInput {
  /** The request body exactly as received: a retry must repeat it byte for byte. */
  raw: Uint8Array | string;
  body: unknown;
  headers: Headers;
  rail: PaymentRail;
  /** Who is asking, for the unpaid-creation rate limit (the client IP). */
  clientKey: string;
  /** Absolute URL of the create endpoint; each charge names the order under it (`<resourceUrl>/<order id>`). */
  resourceUrl: string;
}

export type CreateOrderOutcome =
  | { kind: "invalid"; issues: Issue[] }
  | { kind: "conflict"; code: "request_id_conflict"; message: string }
  | { kind: "rate_limited"; retryAfterSeconds: number }
  | {
      kind: "payment_required";
      challenge: PaymentChallenge;
      order: OrderStatusView;
      /** The SHA-256 of the PDF that will print, for a preview link; absent for a campaign (no one PDF prints). */
      document_sha256?: string;
      error?: { code: string; message: string };
    }
  /** 202: settled (or settling), the order is durable and queued. */
  | { kind: "accepted"; order: OrderStatusView; receiptHeaders: Record<string, string> }
  /** 200: this logical order was already paid; nothing was charged now. */
  | { kind: "already_paid"; order: OrderStatusView; receiptHeaders: Record<string, string> };

const PAID_LIKE = new Set(["paid", "settled_pending_webhook", "settling"]);

function hasCredential(headers: Headers): boolean {
  return headers.has("payment-signature") || /^\s*payment\s/i.test(headers.get("authorization") ?? "");
}

/**
 * Creates (or resumes) a machine order and takes its payment, so that no retry, race or crash charges twice:
 * the request_id is claimed atomically, a payment credential's replay key is claimed before settling, the order is
 * marked as settling before money moves and as paid before the answer is sent.
 */
export async function createMachineOrder(
  ctx: OrderContext,
  input: CreateOrderInput,
): Promise<CreateOrderOutcome> {
  const outcome = await createOrPay(ctx, input);
  // A client sees the request_id it asked with, never the others collapsed onto the same order.
  if ("order" in outcome) return { ...outcome, order: scopedView(outcome.order, requestIdOf(input.body)) };
  return outcome;
}

async function createOrPay(ctx: OrderContext, input: CreateOrderInput): Promise<CreateOrderOutcome> {
  const fingerprint = fingerprintBytes(input.raw);
  const claimedId = requestIdOf(input.body);
  const seen = claimedId ? await peekRequest(ctx.store, claimedId, fingerprint) : undefined;
  const known =
    seen?.kind === "replay" ? (await loadOrder(ctx.store, seen.claim.order_id))?.value : undefined;
  // The identical body of an order already paid: answer from the order, without preparing the document again.
  if (known && PAID_LIKE.has(known.payment_status)) return settledAnswer(ctx, known.id);

  // Forms are re-checked at the stage the order is at: checkout when asking for the price, payment when paying.
  const stage = hasCredential(input.headers) ? "payment" : "checkout";
  const preparation = await prepareOrder(
    input.body,
    known ? { ...ctx, stage, orderId: known.id } : { ...ctx, stage },
  );
  if (!preparation.ok) return { kind: "invalid", issues: preparation.issues };
  const prepared = preparation.prepared;
  const requestId = prepared.order.request_id;
  if (seen?.kind === "conflict") return conflict(requestId);
  const open = async () => known ?? (await openOrder(ctx, prepared, fingerprint));

  // A request that would store a new order counts against its client's unpaid-creation limit.
  if (!known) {
    const limited = await limitUnpaidCreation(ctx, input.clientKey, ctx.config.unpaidRateLimit);
    if (limited) return limited;
  }

  let credential: ReturnType<PaymentRail["readCredential"]>;
  try {
    credential = input.rail.readCredential(input.headers);
  } catch (error) {
    if (!PaymentError.isInstance(error)) throw error;
    const opened = await open();
    if (opened === "conflict") return conflict(requestId);
    return challengeFor(input, opened, error);
  }

  if (!credential) {
    const opened = await open();
    if (opened === "conflict") return conflict(requestId);
    if (PAID_LIKE.has(opened.payment_status)) return settledAnswer(ctx, opened.id);
    const used = await bindUpload(ctx, prepared, opened.id);
    if (used) return used;
    return challengeFor(input, opened);
  }

  const record = await open();
  if (record === "conflict") return conflict(requestId);
  const used = await bindUpload(ctx, prepared, record.id);
  if (used) return used;
  if (PAID_LIKE.has(record.payment_status)) return settledAnswer(ctx, record.id);
  const charge = chargeFor(record, input.resourceUrl);

  let verified: Awaited<ReturnType<PaymentRail["verify"]>>;
  try {
    verified = await input.rail.verify(credential, charge);
  } catch (error) {
    if (!PaymentError.isInstance(error)) throw error;
    await noteFailure(ctx, record.id, error.code, error.message);
    return challengeFor(input, record, error);
  }

  const replay = await claimReplay(ctx.store, {
    replay_key: verified.replayKey,
    order_id: record.id,
    now: ctx.clock.now(),
    ttlMs: ctx.config.replayClaimTtlMs,
  });
  if (replay.kind === "taken") {
    if (replay.claim.order_id === record.id) {
      // The same credential is being settled by a concurrent request for this order: answer with its outcome.
      return settledAnswer(ctx, record.id, (order) => challengeFor(input, order));
    }
    return challengeFor(
      input,
      record,
      new PaymentError(
        "payment_replayed",
        "This payment credential was already used for another order. Pay the new challenge.",
      ),
    );
  }

  const startedAt = ctx.clock.now();
  // Noted before any money moves: if the answer of the settlement is lost (a crash, a timeout), the payment
  // reconciler finds this order and asks the rail where the settlement stands.
  await ctx.store.create(paymentWorkKey(record.id), { order_id: record.id });
  let mine = false;
  await updateOrder(ctx.store, record.id, ctx.clock.now, (order) => {
    // Decided afresh on every attempt: a retry after a lost race must see the winner's payment, not its own.
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
  if (!mine) return settledAnswer(ctx, record.id, (order) => challengeFor(input, order));

  let settlement: Awaited<ReturnType<PaymentRail["settle"]>>;
  try {
    settlement = await input.rail.settle(verified, charge);
  } catch (error) {
    if (PaymentError.isInstance(error) && error.code === "settlement_failed") {
      const failed = await updateOrder(ctx.store, record.id, ctx.clock.now, (order) => {
        order.payment_status = "unpaid";
        if (order.payment)
          order.payment = {
            ...order.payment,
            status: "failed",
            failure: { code: error.code, message: error.message },
          };
        order.payment_failures.push({ code: error.code, message: error.message, at: ctx.clock.now() });
        return order;
      });
      return challengeFor(input, failed, error);
    }
    // The outcome is unknown: keep the order as settling; it is reconciled, never charged again.
    const pending = await loadOrder(ctx.store, record.id);
    return { kind: "accepted", order: orderStatusView(pending!.value), receiptHeaders: {} };
  }

  const receiptHeaders = input.rail.receiptHeaders(settlement);
  const paid = await updateOrder(ctx.store, record.id, ctx.clock.now, (order) => {
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
      order.status = "queued";
      addStep(order, "payment_received", settlement.settledAt);
      if (!order.campaign)
        order.lifecycle ??= startLifecycle({
          source: "payment",
          at: settlement.settledAt,
          id: ctx.ids.uuid(),
        });
    }
    return order;
  });
  if (paid.payment_status === "paid") await ctx.store.delete(paymentWorkKey(paid.id));
  if (paid.campaign && paid.payment_status === "paid") {
    // A paid campaign mails its pieces as orders of their own.
    const children = await spawnCampaignOrders(ctx.store, paid, ctx.clock.now());
    await updateOrder(ctx.store, paid.id, ctx.clock.now, (o) => ({
      ...o,
      campaign: { ...o.campaign!, child_ids: children },
    }));
  } else if (paid.lifecycle) await enqueueFulfilment(ctx.store, paid.id, ctx.clock.now());
  // A paid order is no draft: the same letter sent again is a new mailing under a new request_id.
  await ctx.store.delete(draftKeyOf(paid.draft_key));
  return { kind: "accepted", order: orderStatusView(paid), receiptHeaders };
}

/** An upload token serves one order: bind it to this one, or refuse when another order has it. */
async function bindUpload(
  ctx: OrderContext,
  prepared: PreparedOrder,
  orderId: string,
): Promise<CreateOrderOutcome | undefined> {
  const doc = prepared.order.document;
  if (doc?.kind !== "pdf" || doc.source.type !== "upload_token") return undefined;
  if (await consumeUpload(ctx.store, doc.source.upload_token, orderId)) return undefined;
  return {
    kind: "invalid",
    issues: [
      { path: "pdf.upload_token", code: "upload_token_used", message: UPLOAD_MESSAGES.upload_token_used },
    ],
  };
}

function conflict(requestId: string): CreateOrderOutcome {
  return {
    kind: "conflict",
    code: "request_id_conflict",
    message: `request_id ${requestId} was already used with a different body. Retry with the byte-for-byte identical body, or use a new request_id for a new mailing.`,
  };
}

function chargeFor(record: OrderRecord, resourceUrl: string): Charge {
  return {
    amount_cents: record.quote.price_cents,
    currency: "usd",
    // The order's own URL: a payment signed for one order names it, and cannot pay another at the same price.
    resource_url: `${resourceUrl}/${record.id}`,
    description: `Mailpiece ${record.order.mailpiece_type}, ${record.document.page_count} page${record.document.page_count === 1 ? "" : "s"}, order ${record.id}`,
    order_ref: record.id,
  };
}

async function challengeFor(
  input: CreateOrderInput,
  record: OrderRecord,
  error?: PaymentError,
): Promise<CreateOrderOutcome> {
  const challenge = await input.rail.challenge(chargeFor(record, input.resourceUrl), error);
  return {
    kind: "payment_required",
    challenge,
    order: orderStatusView(record),
    ...(record.campaign ? {} : { document_sha256: record.document.sha256 }),
    ...(error ? { error: { code: error.code, message: error.message } } : {}),
  };
}

async function noteFailure(ctx: OrderContext, id: string, code: string, message: string): Promise<void> {
  await updateOrder(ctx.store, id, ctx.clock.now, (order) => {
    order.payment_failures = [...order.payment_failures, { code, message, at: ctx.clock.now() }].slice(-20);
    return order;
  });
}

/**
 * The answer for an order whose payment went through or is going through: waits a little for a settlement in
 * flight, then 200 when paid, or 202 with settled_pending_webhook while it is still being confirmed.
 */
async function settledAnswer(
  ctx: OrderContext,
  id: string,
  ifUnpaid?: (order: OrderRecord) => Promise<CreateOrderOutcome>,
): Promise<CreateOrderOutcome> {
  const deadline = Date.now() + ctx.config.settleWaitMs;
  for (;;) {
    const current = (await loadOrder(ctx.store, id))!.value;
    if (current.payment_status === "paid") {
      return {
        kind: "already_paid",
        order: orderStatusView(current),
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
        order: orderStatusView(current),
        receiptHeaders: current.payment?.receipt_headers ?? {},
      };
    }
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/**
 * Finds or makes the unpaid order for this request: claims the request_id (exactly one concurrent caller makes the
 * order), and collapses a recent unpaid duplicate (same document, parties and options under another request_id)
 * onto the earlier order. Returns "conflict" when the request_id turned out to be bound to another body.
 */
async function openOrder(
  ctx: OrderContext,
  prepared: PreparedOrder,
  fingerprint: string,
): Promise<OrderRecord | "conflict"> {
  const now = ctx.clock.now();
  const { order, document, view } = prepared;
  const { sha256 } = document;
  const blobKey = `documents:${sha256}`;
  if (!(await ctx.blobs.head(blobKey))) {
    // A campaign's document is its plan (JSON), never served as a PDF.
    const contentType = prepared.campaign ? "application/json" : "application/pdf";
    await ctx.blobs.put(blobKey, document.bytes, { contentType });
  }

  const draftKey = fingerprintJson({
    document: sha256,
    sender: order.sender,
    recipient: order.recipient,
    options: order.options,
    mailpiece_type: order.mailpiece_type,
    postcard_size: order.postcard_size ?? null,
  }).slice("sha256:".length);

  const id = ctx.ids.uuid();
  const draft = await claimDraft(ctx.store, {
    draft_key: draftKey,
    order_id: id,
    request_id: order.request_id,
    now,
    ttlMs: ctx.config.draftTtlMs,
  });
  if (draft.kind === "duplicate") {
    const existing = await loadOrder(ctx.store, draft.claim.order_id);
    if (
      existing &&
      existing.value.payment_status === "unpaid" &&
      existing.value.status === "awaiting_payment" &&
      existing.value.request_ids.length < MAX_REQUEST_IDS_PER_ORDER
    ) {
      const claim = await claimRequest(ctx.store, {
        request_id: order.request_id,
        fingerprint,
        order_id: existing.value.id,
        now,
      });
      if (claim.kind === "conflict") return "conflict";
      const target = claim.claim.order_id;
      await ctx.store.create(aliasKey(order.request_id), { order_id: target });
      return updateOrder(ctx.store, target, ctx.clock.now, (o) => {
        if (o.request_ids.includes(order.request_id)) return undefined;
        o.request_ids.push(order.request_id);
        return o;
      });
    }
  }

  const record: OrderRecord = {
    id,
    object: "order",
    request_ids: [order.request_id],
    fingerprint,
    draft_key: draftKey,
    order,
    document: {
      blob_key: blobKey,
      sha256,
      page_count: document.page_count,
      source: document.source,
      format: document.format ?? null,
    },
    quote: view.quote,
    ...(prepared.campaign ? { campaign: prepared.campaign } : {}),
    status: "awaiting_payment",
    payment_status: "unpaid",
    payment_failures: [],
    steps: [],
    created_at: now,
    updated_at: now,
  };
  await ctx.store.create(orderKey(id), record);
  const claim = await claimRequest(ctx.store, {
    request_id: order.request_id,
    fingerprint,
    order_id: id,
    now,
  });
  if (claim.kind === "conflict") {
    await ctx.store.delete(orderKey(id));
    return "conflict";
  }
  if (claim.kind === "replay") {
    // A concurrent identical request made the order first: use it, drop ours.
    await ctx.store.delete(orderKey(id));
    return (await loadOrder(ctx.store, claim.claim.order_id))!.value;
  }
  await ctx.store.create(aliasKey(order.request_id), { order_id: id });
  if (draft.kind === "duplicate") {
    // The earlier draft is full, paid or gone: later duplicates collapse onto this order instead.
    await ctx.store.put(
      draftKeyOf(draftKey),
      { draft_key: draftKey, order_id: id, request_id: order.request_id, claimed_at: now },
      { ttlMs: ctx.config.draftTtlMs },
    );
  }
  return record;
}

/** Status by order_id or any aliased request_id; the view names only the request_id asked with. */
export async function getOrderStatus(ctx: OrderContext, id: string): Promise<OrderStatusView | undefined> {
  const found = await findOrder(ctx.store, id);
  if (!found) return undefined;
  const view = found.value.campaign
    ? await campaignStatusView(ctx.store, found.value)
    : orderStatusView(found.value);
  return scopedView(view, id);
}

/**
 * How many request_ids may collapse onto one unpaid order. Recent unpaid duplicates (the same letter to the same
 * people under a new request_id) join the earlier order; past this many, a duplicate opens an order of its own, so
 * no record grows without bound.
 */
export const MAX_REQUEST_IDS_PER_ORDER = 20;

function scopedView(view: OrderStatusView, askedWith: string | undefined): OrderStatusView {
  const own = askedWith !== undefined && view.request_ids.includes(askedWith);
  return { ...view, request_ids: own ? [askedWith] : [] };
}

/** 409 for validate: the request_id is bound to another body. */
export async function requestConflict(
  ctx: OrderContext,
  requestId: string,
  raw: Uint8Array | string,
): Promise<boolean> {
  const seen = await peekRequest(ctx.store, requestId, fingerprintBytes(raw));
  return seen?.kind === "conflict";
}
