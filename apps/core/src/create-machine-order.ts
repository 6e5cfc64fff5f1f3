import {
  claimDraft,
  claimRequest,
  draftKeyOf,
  fingerprintBytes,
  fingerprintJson,
  peekRequest,
} from "@mailpiece/idempotency";
import { startLifecycle } from "@mailpiece/lifecycle";
import type { BlobStore, Clock, IdGenerator, PaymentRail, Store } from "@mailpiece/ports";
import { campaignStatusView, spawnCampaignOrders } from "./campaign-orders.ts";
import type { CoreConfig } from "./config.ts";
import type { DocumentContext } from "./documents.ts";
import { enqueueFulfilment } from "./fulfilment.ts";
import type { OrderRecord } from "./order-record.ts";
import { addStep, aliasKey, findOrder, loadOrder, orderKey, updateOrder } from "./order-record.ts";
import type { OrderStatusView } from "./order-status.ts";
import { orderStatusView } from "./order-status.ts";
import { readCredential } from "./payments/credential.ts";
import type {
  CreateInput,
  CreateOutcome,
  PaymentAttempt,
  PaymentContext,
  PaymentOutcome,
} from "./payments/pay.ts";
import { payFor } from "./payments/pay.ts";
import type { Payable } from "./payments/payable.ts";
import { isPaidLike } from "./payments/payment-record.ts";
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
  /** The payment rails of this deployment, for confirming settlements. */
  rails: { x402?: PaymentRail; mpp?: PaymentRail };
}

export type CreateOrderInput = CreateInput;
export type CreateOrderOutcome = CreateOutcome<OrderStatusView>;

/** True when the request carries a credential of its rail (a malformed one included). */
function hasCredential(attempt: PaymentAttempt): boolean {
  try {
    return readCredential(attempt.rail, attempt.credential) !== undefined;
  } catch {
    return true;
  }
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
  if (known && isPaidLike(known.payment_status)) {
    return answer(await payFor(paymentContext(ctx), orderPayable(ctx), known, input.payment));
  }

  // Forms are re-checked at the stage the order is at: checkout when asking for the price, payment when paying.
  const stage = hasCredential(input.payment) ? "payment" : "checkout";
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

  const record = await open();
  if (record === "conflict") return conflict(requestId);
  if (!isPaidLike(record.payment_status)) {
    const used = await bindUpload(ctx, prepared, record.id);
    if (used) return used;
  }
  return answer(await payFor(paymentContext(ctx), orderPayable(ctx), record, input.payment));
}

/** The payment flow's view of a machine order: paid, it is queued for printing (a campaign spawns its pieces). */
export function orderPayable(ctx: OrderContext): Payable<OrderRecord> {
  return {
    kind: "order",
    load: async (id) => (await loadOrder(ctx.store, id))?.value,
    update: (id, change) => updateOrder(ctx.store, id, ctx.clock.now, change),
    charge: (record) => ({
      amount_cents: record.quote.price_cents,
      currency: "usd",
      description: `Mailpiece ${record.order.mailpiece_type}, ${record.document.page_count} page${record.document.page_count === 1 ? "" : "s"}, order ${record.id}`,
      order_ref: record.id,
    }),
    onSettled(record, at) {
      record.status = "queued";
      addStep(record, "payment_received", at);
      if (!record.campaign)
        record.lifecycle ??= startLifecycle({ source: "payment", at, id: ctx.ids.uuid() });
    },
    async afterPaid(record) {
      let paid = record;
      if (paid.campaign && paid.campaign.child_ids.length === 0) {
        // A paid campaign mails its pieces as orders of their own.
        const children = await spawnCampaignOrders(ctx.store, paid, ctx.clock.now());
        paid = await updateOrder(ctx.store, paid.id, ctx.clock.now, (o) => ({
          ...o,
          campaign: { ...o.campaign!, child_ids: children },
        }));
      } else if (paid.lifecycle) await enqueueFulfilment(ctx.store, paid.id, ctx.clock.now());
      // A paid order is no draft: the same letter sent again is a new mailing under a new request_id.
      await ctx.store.delete(draftKeyOf(paid.draft_key));
      return paid;
    },
  };
}

/** The payment flow's settings, from the core's configuration. */
export function paymentContext(ctx: OrderContext): PaymentContext {
  return {
    store: ctx.store,
    clock: ctx.clock,
    ids: ctx.ids,
    rails: ctx.rails,
    replayClaimTtlMs: ctx.config.replayClaimTtlMs,
    settleWaitMs: ctx.config.settleWaitMs,
    settleLeaseMs: ctx.config.settleLeaseMs,
  };
}

function answer(outcome: PaymentOutcome<OrderRecord>): CreateOrderOutcome {
  const order = orderStatusView(outcome.record);
  if (outcome.kind === "payment_required") {
    return {
      kind: "payment_required",
      challenge: outcome.challenge,
      order,
      ...(outcome.record.campaign ? {} : { document_sha256: outcome.record.document.sha256 }),
      ...(outcome.error ? { error: outcome.error } : {}),
    };
  }
  return { kind: outcome.kind, order, receiptHeaders: outcome.receiptHeaders };
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
