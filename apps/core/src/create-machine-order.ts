import {
  draftKeyOf,
  findRequestClaim,
  fingerprintBytes,
  fingerprintJson,
  peekRequest,
} from "@mailpiece/idempotency";
import { startLifecycle } from "@mailpiece/lifecycle";
import type { BlobStore, Clock, IdGenerator, JobQueue, Store } from "@mailpiece/ports";
import { campaignKind } from "./campaign-payable.ts";
import { campaignStatusView } from "./campaign-status.ts";
import type { CoreConfig } from "./config.ts";
import type { DocumentKeeper } from "./document-retention.ts";
import type { DocumentContext } from "./documents.ts";
import { invalidRequest, requestIdConflict } from "./errors.ts";
import { enqueueFulfilment } from "./fulfilment.ts";
import type { Mailing } from "./mailings.ts";
import { findMailing, loadMailing } from "./mailings.ts";
import type { MailingKind } from "./open-mailing.ts";
import { documentBlobKey, openMailing } from "./open-mailing.ts";
import type { MailingRecord, OrderRecord } from "./order-record.ts";
import { addStep, loadOrder, orderKey, updateOrder } from "./order-record.ts";
import type { OrderStatusView } from "./order-status.ts";
import { orderStatusView } from "./order-status.ts";
import { readCredential } from "./payments/credential.ts";
import type {
  CreateInput,
  CreateOutcome,
  PaymentAttempt,
  PaymentContext,
  PaymentOutcome,
  PaymentRails,
} from "./payments/pay.ts";
import { payFor } from "./payments/pay.ts";
import type { Payable } from "./payments/payable.ts";
import { isPaidLike } from "./payments/payment-record.ts";
import { limitUnpaidCreation } from "./rate-limit.ts";
import { requestIdOf } from "./request-id.ts";
import { consumeUpload, UPLOAD_MESSAGES } from "./uploads.ts";
import type { PreparedMailing, PreparedOrder } from "./validate-order.ts";
import { prepareOrder } from "./validate-order.ts";

export { MAX_REQUEST_IDS_PER_ORDER } from "./open-mailing.ts";

export interface OrderContext extends DocumentContext {
  store: Store;
  blobs: BlobStore;
  clock: Clock;
  ids: IdGenerator;
  config: CoreConfig;
  /** The payment rails of this deployment (and the hosted checkout's), for paying and confirming settlements. */
  rails: PaymentRails;
  /** Where paid orders wait for fulfilment. */
  jobs: JobQueue;
  /** Records who holds each document, for its collection after retention; absent: nothing is recorded. */
  documents?: DocumentKeeper;
  /** What every paid record gets once paid (its receipt email); absent: nothing. */
  paid?: PaymentContext["paid"];
}

export type CreateOrderInput = CreateInput;
export type CreateOrderOutcome = CreateOutcome<OrderStatusView>;

/** True when the request carries a credential of its rail (a malformed one included). */
async function hasCredential(attempt: PaymentAttempt): Promise<boolean> {
  try {
    return (await readCredential(attempt.rail, attempt.credential)) !== undefined;
  } catch {
    return true;
  }
}

/**
 * Creates (or resumes) a machine order, single or bulk, and takes its payment, so that no retry, race or crash
 * charges twice: the request_id is claimed atomically, a payment credential's replay key is claimed before settling,
 * the record is marked as settling before money moves and as paid before the answer is sent.
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
  const known = seen?.kind === "replay" ? await loadMailing(ctx, seen.claim.order_id) : undefined;
  // The identical body of an order already paid: answer from the order, without preparing the document again.
  if (known && isPaidLike(known.record.payment_status)) return payKnown(ctx, known, input.payment);

  // Forms are re-checked at the stage the order is at: checkout when asking for the price, payment when paying.
  const stage = (await hasCredential(input.payment)) ? "payment" : "checkout";
  const preparation = await prepareOrder(
    input.body,
    known ? { ...ctx, stage, orderId: known.record.id } : { ...ctx, stage },
  );
  if (!preparation.ok) throw invalidRequest(preparation.issues);
  const prepared = preparation.prepared;
  if (seen?.kind === "conflict") throw requestIdConflict(prepared.order.request_id, "mailing");
  // An identical body makes the same kind of record as the first time.
  const request = { fingerprint, input };
  return prepared.kind === "campaign"
    ? openAndPay(
        ctx,
        campaignKind(ctx),
        prepared,
        known?.kind === "campaign" ? known.record : undefined,
        request,
      )
    : openAndPay(ctx, orderKind(ctx), prepared, known?.kind === "order" ? known.record : undefined, request);
}

/** Opens (or resumes) the record of one kind for the request, within the unpaid-creation limit, and pays for it. */
async function openAndPay<P extends PreparedMailing, R extends MailingRecord>(
  ctx: OrderContext,
  kind: MailingKind<P, R>,
  prepared: P,
  known: R | undefined,
  request: { fingerprint: string; input: CreateOrderInput },
): Promise<CreateOrderOutcome> {
  const { input } = request;
  // A request that would store a new record counts against its client's unpaid-creation limit.
  if (!known) await limitUnpaidCreation(ctx, input.clientKey, ctx.config.unpaidRateLimit, "unpaid orders");
  const record = known ?? (await openMailing(ctx, kind, prepared, request.fingerprint));
  if (record === "conflict") throw requestIdConflict(prepared.order.request_id, "mailing");
  if (!isPaidLike(record.payment_status)) await bindUpload(ctx, kind.uploadToken(prepared), record.id);
  return pay(ctx, kind, record, input.payment);
}

function payKnown(ctx: OrderContext, known: Mailing, attempt: PaymentAttempt): Promise<CreateOrderOutcome> {
  return known.kind === "campaign"
    ? pay(ctx, campaignKind(ctx), known.record, attempt)
    : pay(ctx, orderKind(ctx), known.record, attempt);
}

async function pay<P extends PreparedMailing, R extends MailingRecord>(
  ctx: OrderContext,
  kind: MailingKind<P, R>,
  record: R,
  attempt: PaymentAttempt,
): Promise<CreateOrderOutcome> {
  return answer(kind, await payFor(paymentContext(ctx), kind.payable, record, attempt));
}

/** The payment flow's view of a single machine order: paid, it is queued for printing. */
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
      record.lifecycle ??= startLifecycle({ source: "payment", at, id: ctx.ids.uuid() });
    },
    async afterPaid(record) {
      await enqueueFulfilment(ctx.jobs, record.id, ctx.clock.now());
      // A paid order is no draft: the same letter sent again is a new mailing under a new request_id.
      await ctx.store.delete(draftKeyOf(record.draft_key));
      return record;
    },
  };
}

/** How a single machine order request is opened: as an order under `orders:<id>`, its PDF kept by content. */
export function orderKind(ctx: OrderContext): MailingKind<PreparedOrder, OrderRecord> {
  return {
    payable: orderPayable(ctx),
    key: orderKey,
    draftKey: ({ order, document }) =>
      fingerprintJson({
        document: document.sha256,
        sender: order.sender,
        recipient: order.recipient,
        options: order.options,
        mailpiece_type: order.mailpiece_type,
        postcard_size: order.postcard_size ?? null,
      }).slice("sha256:".length),
    document: (prepared) => prepared.document,
    create: ({ order, document, view }, base) => ({
      id: base.id,
      object: "order",
      request_ids: [order.request_id],
      fingerprint: base.fingerprint,
      draft_key: base.draft_key,
      order,
      document: {
        blob_key: documentBlobKey(document.sha256),
        sha256: document.sha256,
        page_count: document.page_count,
        source: document.source,
        format: document.format ?? null,
      },
      quote: view.quote,
      status: "awaiting_payment",
      payment_status: "unpaid",
      payment_failures: [],
      steps: [],
      created_at: base.now,
      updated_at: base.now,
    }),
    uploadToken: ({ order }) =>
      order.document?.kind === "pdf" && order.document.source.type === "upload_token"
        ? order.document.source.upload_token
        : undefined,
    view: orderStatusView,
    previewSha256: (record) => record.document.sha256,
  };
}

/** The payment flow's settings, from the core's configuration. */
export function paymentContext(ctx: OrderContext): PaymentContext {
  return {
    store: ctx.store,
    clock: ctx.clock,
    jobs: ctx.jobs,
    ids: ctx.ids,
    rails: ctx.rails,
    replayClaimTtlMs: ctx.config.replayClaimTtlMs,
    settleWaitMs: ctx.config.settleWaitMs,
    settleLeaseMs: ctx.config.settleLeaseMs,
    ...(ctx.paid ? { paid: ctx.paid } : {}),
  };
}

function answer<P extends PreparedMailing, R extends MailingRecord>(
  kind: MailingKind<P, R>,
  outcome: PaymentOutcome<R>,
): CreateOrderOutcome {
  const order = kind.view(outcome.record);
  if (outcome.kind === "payment_required") {
    const sha256 = kind.previewSha256(outcome.record);
    return {
      kind: "payment_required",
      challenge: outcome.challenge,
      order,
      ...(sha256 === undefined ? {} : { document_sha256: sha256 }),
      ...(outcome.error ? { error: outcome.error } : {}),
    };
  }
  return { kind: outcome.kind, order, receiptHeaders: outcome.receiptHeaders };
}

/** An upload token serves one order: bind it to this one, or refuse (validation_failed) when another has it. */
export async function bindUpload(
  ctx: OrderContext,
  uploadToken: string | undefined,
  orderId: string,
): Promise<void> {
  if (uploadToken === undefined) return;
  if (await consumeUpload(ctx.store, uploadToken, orderId)) return;
  throw invalidRequest([
    { path: "pdf.upload_token", code: "upload_token_used", message: UPLOAD_MESSAGES.upload_token_used },
  ]);
}

/**
 * Status by order or campaign id, or any aliased request_id; the view names only the request_id asked with. A
 * campaign's status is derived from its pieces.
 */
export async function getOrderStatus(ctx: OrderContext, id: string): Promise<OrderStatusView | undefined> {
  const found = await findMailing(ctx, id);
  if (!found) return undefined;
  const view =
    found.kind === "campaign"
      ? await campaignStatusView(ctx.store, found.record)
      : orderStatusView(found.record);
  return scopedView(view, id);
}

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
  // Most request_ids are new: the body is hashed only when a claim is there to compare with.
  const claim = await findRequestClaim(ctx.store, requestId);
  return claim !== undefined && claim.fingerprint !== fingerprintBytes(raw);
}
