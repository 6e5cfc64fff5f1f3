import { createHash } from "node:crypto";
import { claimRequest, fingerprintJson, requestKey } from "@mailpiece/idempotency";
import { LedgerError } from "@mailpiece/ledger";
import { startLifecycle } from "@mailpiece/lifecycle";
import type { MailOptions, NormalizedOrder, ProjectsAddress } from "@mailpiece/orders";
import type { IdGenerator, JobQueue } from "@mailpiece/ports";
import { PortError } from "@mailpiece/ports";
import { keepDocumentFor } from "../document-retention.ts";
import { CoreError, type CoreErrorCode } from "../errors.ts";
import { enqueueFulfilment } from "../fulfilment.ts";
import { documentBlobKey } from "../open-mailing.ts";
import { addStep, loadOrder, type OrderRecord, orderKey } from "../order-record.ts";
import type { QuoteView } from "../quote-order.ts";
import { BILLING_RAILS, creditBook, type WorkspaceCredits } from "../workspaces/credits.ts";
import type { Principal } from "../workspaces/workspaces.ts";
import type { ProjectDocumentContext } from "./documents.ts";
import { dropOrderIntent, noteOrderIntent, type OrderIntent } from "./order-intents.ts";
import { toParty } from "./order-parties.ts";
import { type ProjectOrderView, type ProjectSendInfo, projectOrderView } from "./order-view.ts";
import { unuseQuote, useQuote } from "./quotes.ts";

export interface ProjectOrderContext extends ProjectDocumentContext {
  ids: IdGenerator;
  credits: WorkspaceCredits;
  /** Where paid orders wait for fulfilment. */
  jobs: JobQueue;
  /**
   * Told after an order reserved credits, found too few, or had its reservation released: the mode's automatic
   * refill may start, or be armed again.
   */
  creditsChanged?: (workspaceId: string, mode: Principal["mode"]) => Promise<void>;
}

/**
 * What one order is made of once its request is checked and priced: the piece, its document, its parties and its
 * price. Plain data, so that a send can keep its plan for the retries of its Idempotency-Key (planOnce).
 */
export interface OrderPlan {
  /** The piece as the order stores it: a handwritten piece is a letter sheet whose document source says so. */
  mailpiece_type: "letter" | "postcard";
  postcard_size?: "4x6" | "6x9" | "11x6";
  options: MailOptions;
  /** The price that is reserved, then captured when a print provider accepts the piece. */
  price: QuoteView;
  /** The print-ready document, already in the blob store under documentBlobKey(sha256). */
  document: { sha256: string; page_count: number; source: string; format: string | null };
  recipient: ProjectsAddress;
  sender: ProjectsAddress;
  metadata: Record<string, string>;
  /** The quote the piece was priced by, and the uploaded document it prints: marked used by the order. */
  quote?: { id: string; document_id: string };
  /** The template and the version the letter was merged from. */
  template?: { id: string; version: number };
}

/** An order request's Idempotency-Key and what it is bound to: the same key with another fingerprint is refused. */
export interface OrderRequest {
  idempotencyKey: string | undefined;
  fingerprint: unknown;
}

const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,255}$/;
/** Refusals of a request for what it says (its body, the quote or template it names): they free its key. */
const REFUSALS: ReadonlySet<CoreErrorCode> = new Set(["validation_failed", "not_found", "state_conflict"]);
const planKey = (orderId: string) => `projects_order_plans:${orderId}`;
/** How long a send's plan (and its document) is kept for the retries of its Idempotency-Key. */
const PLAN_KEPT_MS = 24 * 60 * 60 * 1000;

/** The Idempotency-Key of an order request; idempotency_key_required when it is absent or malformed. */
export function requireIdempotencyKey(key: string | undefined): string {
  if (key === undefined || !IDEMPOTENCY_KEY.test(key)) {
    throw new CoreError(
      "idempotency_key_required",
      "Creating an order needs an Idempotency-Key header: 1 to 255 printable characters, a UUID for example.",
    );
  }
  return key;
}

/**
 * The one way a Projects API order is made (letters and postcards from quotes, template and handwritten sends), at
 * most once per Idempotency-Key: the same key and fingerprint answer the original order (idempotent_replay), another
 * fingerprint is request_id_conflict. `plan` checks and prices the request for the order id the key was claimed
 * for; a request it refuses reserves nothing and frees the key (a failure that may pass on a retry keeps it). Then the order's intent is noted (so that a crash
 * is reconciled), its quote marked used, its price reserved on the workspace's credits (insufficient_credits when
 * they do not cover it, and nothing is written), and the order written once, while its claim stands, and queued for
 * the same fulfilment as every order.
 */
export async function placeProjectOrder(
  ctx: ProjectOrderContext,
  principal: Principal,
  request: OrderRequest,
  plan: (orderId: string) => Promise<OrderPlan>,
): Promise<ProjectOrderView> {
  const key = requireIdempotencyKey(request.idempotencyKey);
  const claimId = `v1:${principal.workspace_id}:${principal.mode}:${createHash("sha256").update(key).digest("hex")}`;
  const claim = await claimRequest(ctx.store, {
    request_id: claimId,
    fingerprint: fingerprintJson(request.fingerprint),
    order_id: ctx.ids.uuid(),
    now: ctx.clock.now(),
  });
  if (claim.kind === "conflict") {
    throw new CoreError(
      "request_id_conflict",
      "This Idempotency-Key was used with another request; use a new key.",
    );
  }
  const orderId = claim.claim.order_id;
  const existing = (await loadOrder(ctx.store, orderId))?.value;
  if (existing) return projectOrderView(existing, claim.kind === "replay");

  // A request refused for what it says made nothing: the key it claimed is freed for the corrected request. A
  // failure that may pass on a retry (busy document workers, the store) keeps the key for that retry.
  const refused = async (error: unknown): Promise<never> => {
    if (claim.kind === "claimed" && CoreError.isInstance(error) && REFUSALS.has(error.code)) {
      await freeClaim(ctx, claimId, orderId).catch(() => undefined);
    }
    throw error;
  };
  const planned = await plan(orderId).catch(refused);
  const intent: OrderIntent = {
    order_id: orderId,
    workspace_id: principal.workspace_id,
    mode: principal.mode,
    ...(planned.quote ? { quote_id: planned.quote.id } : {}),
    amount_cents: planned.price.price_cents,
    claim_request_id: claimId,
    at: ctx.clock.now(),
  };
  await noteOrderIntent(ctx.jobs, intent, ctx.config.orderIntentGraceMs);
  if (planned.quote) {
    const quoteId = planned.quote.id;
    await useQuote(ctx, quoteId, orderId).catch(async (error: unknown) => {
      await dropOrderIntent(ctx.jobs, orderId);
      return refused(error);
    });
  }
  const book = creditBook(principal.workspace_id, principal.mode);
  let reservationId: string;
  try {
    reservationId = (
      await ctx.credits.ledger.reserve(book, {
        amount_cents: planned.price.price_cents,
        idempotency_key: `order:${orderId}`,
        reference: orderId,
      })
    ).id;
  } catch (error) {
    if (LedgerError.isInstance(error) && error.code === "insufficient_credits") {
      if (planned.quote) await unuseQuote(ctx, planned.quote.id, orderId);
      await dropOrderIntent(ctx.jobs, orderId);
      await ctx.creditsChanged?.(principal.workspace_id, principal.mode);
      throw new CoreError(
        "insufficient_credits",
        `The workspace's ${principal.mode} credits do not cover ${planned.price.price_cents} cents; top up and send again with the same Idempotency-Key.`,
      );
    }
    throw error;
  }
  const now = ctx.clock.now();
  const order: NormalizedOrder = {
    request_id: orderId,
    buyer_email: "",
    mailpiece_type: planned.mailpiece_type,
    ...(planned.postcard_size ? { postcard_size: planned.postcard_size } : {}),
    sender: toParty(planned.sender),
    recipient: toParty(planned.recipient),
    options: planned.options,
  };
  const project: ProjectSendInfo = {
    workspace_id: principal.workspace_id,
    mode: principal.mode,
    quote_id: planned.quote?.id ?? "",
    document_id: planned.quote?.document_id ?? "",
    ...(planned.template
      ? { template_id: planned.template.id, template_version: planned.template.version }
      : {}),
    billing_rail: BILLING_RAILS[principal.mode],
    reservation_id: reservationId,
    funds_status: "reserved",
    metadata: planned.metadata,
  };
  const record: OrderRecord = {
    id: orderId,
    object: "order",
    request_ids: [orderId],
    fingerprint: claim.claim.fingerprint,
    draft_key: "",
    order,
    document: { blob_key: documentBlobKey(planned.document.sha256), ...planned.document },
    quote: planned.price,
    status: "queued",
    payment_status: "paid",
    payment_failures: [],
    steps: [],
    lifecycle: startLifecycle({ source: "payment", at: now, id: ctx.ids.uuid() }),
    project,
    created_at: now,
    updated_at: now,
  };
  addStep(record, "payment_received", now);
  // An order names its document: it is kept for good.
  await keepDocumentFor(ctx, planned.document.sha256, "pinned");
  // Written only while the request's claim stands: a request the reconciler undid meanwhile (a process that stalled
  // past the grace) writes nothing; its reservation is released and the client's next retry starts afresh.
  const standing = (await ctx.store.get<{ order_id: string }>(requestKey(claimId)))?.value;
  if (standing?.order_id !== orderId) {
    throw new CoreError(
      "service_busy",
      "This request was interrupted and has been undone; send it again with the same Idempotency-Key.",
      { retryAfterSeconds: 1 },
    );
  }
  const stored = (await ctx.store.create(orderKey(orderId), record)).record.value;
  await enqueueFulfilment(ctx.jobs, orderId, now);
  await dropOrderIntent(ctx.jobs, orderId);
  await ctx.creditsChanged?.(principal.workspace_id, principal.mode);
  return projectOrderView(stored, claim.kind === "replay");
}

/** A send that is typeset and priced when it is made (a template or handwritten send). */
export interface SendRequest extends OrderRequest {
  /** The price the send was prepared at (a released draft): another price now is state_conflict. */
  expectedPriceCents?: number | undefined;
}

/** What a prepared send costs, as a draft shows it. */
export interface PreparedPrice {
  page_count: number;
  price_cents: number;
  currency: "usd";
  pricing_version: string;
  line_items: { code: string; description: string; amount_cents: number }[];
}

/**
 * Places the order of a send that is typeset and priced when it is made: `make` checks, typesets and prices it
 * (throwing as the send refuses it). Its plan is made once per order id and kept a day with its document: the
 * retries of its Idempotency-Key get the same document and price even when the template, the day or the price book
 * changed meanwhile, so that the reservation its key names is always for one amount.
 */
export function placeSend(
  ctx: ProjectOrderContext,
  principal: Principal,
  request: SendRequest,
  make: () => Promise<{ plan: OrderPlan; pdf: Uint8Array }>,
): Promise<ProjectOrderView> {
  return placeProjectOrder(ctx, principal, request, async (orderId) => {
    const plan = await planOnce(ctx, orderId, make);
    const expected = request.expectedPriceCents;
    if (expected !== undefined && plan.price.price_cents !== expected) {
      throw new CoreError(
        "state_conflict",
        `This send now costs ${plan.price.price_cents} cents, not the ${expected} it was prepared at; prepare it again.`,
      );
    }
    return plan;
  });
}

/** The price of a plan, as a prepared send shows it. */
export function preparedPrice(plan: OrderPlan): PreparedPrice {
  return {
    page_count: plan.document.page_count,
    price_cents: plan.price.price_cents,
    currency: "usd",
    pricing_version: plan.price.pricing_version,
    line_items: plan.price.line_items.map(({ code, description, amount_cents }) => ({
      code,
      description,
      amount_cents,
    })),
  };
}

/** The plan of a send, made once per order id (see placeSend); `make`'s document is kept as long as the plan. */
async function planOnce(
  ctx: ProjectOrderContext,
  orderId: string,
  make: () => Promise<{ plan: OrderPlan; pdf: Uint8Array }>,
): Promise<OrderPlan> {
  const kept = await ctx.store.get<OrderPlan>(planKey(orderId));
  if (kept) return kept.value;
  const { plan, pdf } = await make();
  await keepDocumentFor(ctx, plan.document.sha256, ctx.clock.now() + PLAN_KEPT_MS, pdf);
  // Of two retries that made a plan at once, the first one stored is the order's.
  return (await ctx.store.create(planKey(orderId), plan, { ttlMs: PLAN_KEPT_MS })).record.value;
}

/** Forgets a claim that made no order (only while it still names this order). */
async function freeClaim(ctx: ProjectOrderContext, claimId: string, orderId: string): Promise<void> {
  const claim = await ctx.store.get<{ order_id: string }>(requestKey(claimId));
  if (claim?.value.order_id !== orderId || (await loadOrder(ctx.store, orderId))) return;
  try {
    await ctx.store.delete(requestKey(claimId), { ifVersion: claim.version });
  } catch (error) {
    if (!(PortError.isInstance(error) && error.code === "version_conflict")) throw error;
  }
}
