import { createHash } from "node:crypto";
import { claimRequest, fingerprintJson, requestKey } from "@mailpiece/idempotency";
import { LedgerError } from "@mailpiece/ledger";
import { startLifecycle } from "@mailpiece/lifecycle";
import {
  type Issue,
  type NormalizedOrder,
  type Party,
  type ProjectsAddress,
  parseCreateOrderBody,
} from "@mailpiece/orders";
import type { IdGenerator, JobQueue } from "@mailpiece/ports";
import { PortError } from "@mailpiece/ports";
import { keepDocumentFor } from "../document-retention.ts";
import { CoreError } from "../errors.ts";
import { enqueueFulfilment } from "../fulfilment.ts";
import type { QueueWork } from "../job-runner.ts";
import { dropJob, liftLegacyNotes } from "../job-runner.ts";
import { documentBlobKey } from "../open-mailing.ts";
import { addStep, loadOrder, type OrderRecord, orderKey, updateOrder } from "../order-record.ts";
import { type TimelineEventView, timelineView } from "../order-status.ts";
import { updateRecord } from "../records.ts";
import { BILLING_RAILS, creditBook, type WorkspaceCredits } from "../workspaces/credits.ts";
import type { Principal } from "../workspaces/workspaces.ts";
import { type ProjectDocumentContext, requestProblems } from "./documents.ts";
import { loadQuote, type ProjectQuoteRecord, quoteKey } from "./quotes.ts";

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

/** The order response of spec 3. */
export interface ProjectOrderView {
  id: string;
  object: "letter" | "postcard";
  mailpiece_type: "letter" | "postcard";
  postcard_size: "4x6" | "6x9" | "11x6" | null;
  status: string;
  mode: "test" | "live";
  price_cents: number;
  currency: "usd";
  funds_status: "reserved" | "captured" | "released";
  billing_rail: "mock_test_credits" | "prepaid_credits";
  quote_id: string;
  document_id: string;
  page_count: number;
  tracking_number: string | null;
  tracking_url: string | null;
  tracking_status: string | null;
  return_receipt_format: "electronic" | "physical";
  restricted_delivery: boolean;
  err_delivery: "manual" | "email";
  err_email: string | null;
  err_status: "manual" | "pending" | "sent" | "failed" | "expired";
  err_delivered_at: string | null;
  err_retention_until: string | null;
  return_receipt_available: boolean;
  return_receipt_url: string | null;
  metadata: Record<string, string>;
  timeline: TimelineEventView[];
  webhook_events: unknown[];
  created_at: string;
  updated_at: string;
  idempotent_replay: boolean;
}

/** An order whose reservation may have outlived a crash: the reconciler finishes or undoes it. */
export interface OrderIntent {
  order_id: string;
  workspace_id: string;
  mode: "test" | "live";
  quote_id: string;
  amount_cents: number;
  claim_request_id: string;
  at: number;
}

/**
 * The job queue of order intents: an order request notes its intent before it reserves anything, due when the
 * grace below has passed, and takes it back once the order is written or refused. An intent that comes due names a
 * request lost in a crash.
 */
export const ORDER_INTENTS_QUEUE = "project-orders";
/** Where order intents were noted before they were jobs: each process lifts such notes onto the queue once. */
export const LEGACY_ORDER_INTENT_PREFIX = "work:projects_orders:";
export { ORDER_INTENT_GRACE_MS } from "../config.ts";

/** Notes an order request's intent as work, due when its grace (CoreConfig.orderIntentGraceMs) has passed (idempotent per order). */
export async function noteOrderIntent(jobs: JobQueue, intent: OrderIntent, graceMs: number): Promise<void> {
  await jobs.enqueue<OrderIntent>({
    queue: ORDER_INTENTS_QUEUE,
    key: intent.order_id,
    payload: intent,
    runAt: intent.at + graceMs,
  });
}

const dropIntent = (ctx: ProjectOrderContext, orderId: string) =>
  dropJob(ctx.jobs, ORDER_INTENTS_QUEUE, orderId);
const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,255}$/;
/** Statuses after a print provider accepted the piece: its price is captured. */
const ACCEPTED = new Set(["accepted", "in_transit", "delivered", "returned"]);
/** Statuses that end an order without mailing it: its reservation is released. */
const UNMAILED = new Set(["failed", "canceled"]);

/**
 * Creates a letter or postcard order from a quote (spec 3), at most once per Idempotency-Key: the same key and body
 * answer the original order (idempotent_replay), another body is refused. The checks all come first (the body with
 * its address rules, the quote: unknown, of another kind, expired or used, the countries it was quoted for), so a
 * refused request reserves nothing. Then the price is reserved on the workspace's credits (insufficient_credits
 * when they do not cover it, and nothing is written) and the order goes to the same fulfilment as every order.
 */
export async function createProjectOrder(
  ctx: ProjectOrderContext,
  principal: Principal,
  kind: "letter" | "postcard",
  body: unknown,
  idempotencyKey: string | undefined,
): Promise<ProjectOrderView> {
  if (idempotencyKey === undefined || !IDEMPOTENCY_KEY.test(idempotencyKey)) {
    throw new CoreError(
      "idempotency_key_required",
      "Creating an order needs an Idempotency-Key header: 1 to 255 printable characters, a UUID for example.",
    );
  }
  const parsed = parseCreateOrderBody(body, {});
  if (!parsed.ok) throw requestProblems(parsed.issues);
  const request = parsed.value;
  const claimId = `v1:${principal.workspace_id}:${principal.mode}:${createHash("sha256").update(idempotencyKey).digest("hex")}`;
  const claim = await claimRequest(ctx.store, {
    request_id: claimId,
    fingerprint: fingerprintJson({ kind, body }),
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

  const quote = await checkQuote(ctx, principal, kind, request.quote_id, orderId);
  checkParties(quote, request.recipient, request.sender);
  const book = creditBook(principal.workspace_id, principal.mode);
  const intent: OrderIntent = {
    order_id: orderId,
    workspace_id: principal.workspace_id,
    mode: principal.mode,
    quote_id: quote.id,
    amount_cents: quote.view.price_cents,
    claim_request_id: claimId,
    at: ctx.clock.now(),
  };
  await noteOrderIntent(ctx.jobs, intent, ctx.config.orderIntentGraceMs);
  const used = await useQuote(ctx, quote.id, orderId);
  let reservationId: string;
  try {
    reservationId = (
      await ctx.credits.ledger.reserve(book, {
        amount_cents: used.view.price_cents,
        idempotency_key: `order:${orderId}`,
        reference: orderId,
      })
    ).id;
  } catch (error) {
    if (LedgerError.isInstance(error) && error.code === "insufficient_credits") {
      await unuseQuote(ctx, quote.id, orderId);
      await dropIntent(ctx, orderId);
      await ctx.creditsChanged?.(principal.workspace_id, principal.mode);
      throw new CoreError(
        "insufficient_credits",
        `The workspace's ${principal.mode} credits do not cover ${used.view.price_cents} cents; top up and send again with the same Idempotency-Key.`,
      );
    }
    throw error;
  }
  const now = ctx.clock.now();
  const order: NormalizedOrder = {
    request_id: orderId,
    buyer_email: "",
    mailpiece_type: kind,
    ...(used.postcard_size ? { postcard_size: used.postcard_size } : {}),
    sender: party(request.sender!),
    recipient: party(request.recipient),
    options: used.options,
  };
  const record: OrderRecord = {
    id: orderId,
    object: "order",
    request_ids: [orderId],
    fingerprint: claim.claim.fingerprint,
    draft_key: "",
    order,
    document: {
      blob_key: documentBlobKey(used.document_sha256),
      sha256: used.document_sha256,
      page_count: used.page_count,
      source: "pdf",
      format: null,
    },
    quote: used.view,
    status: "queued",
    payment_status: "paid",
    payment_failures: [],
    steps: [],
    lifecycle: startLifecycle({ source: "payment", at: now, id: ctx.ids.uuid() }),
    project: {
      workspace_id: principal.workspace_id,
      mode: principal.mode,
      quote_id: used.id,
      document_id: used.document_id,
      billing_rail: BILLING_RAILS[principal.mode],
      reservation_id: reservationId,
      funds_status: "reserved",
      metadata: request.metadata,
    },
    created_at: now,
    updated_at: now,
  };
  addStep(record, "payment_received", now);
  // An order names its document: it is kept for good.
  await keepDocumentFor(ctx, used.document_sha256, "pinned");
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
  await dropIntent(ctx, orderId);
  await ctx.creditsChanged?.(principal.workspace_id, principal.mode);
  return projectOrderView(stored, claim.kind === "replay");
}

/** A Projects API order of the caller's workspace, mode and kind; undefined for anything else. */
export async function loadProjectOrder(
  ctx: Pick<ProjectOrderContext, "store">,
  principal: Principal,
  kind: "letter" | "postcard",
  id: string,
): Promise<OrderRecord | undefined> {
  const found = /^[0-9a-f-]{36}$/.test(id) ? (await loadOrder(ctx.store, id))?.value : undefined;
  const project = found?.project;
  return found &&
    project &&
    project.workspace_id === principal.workspace_id &&
    project.mode === principal.mode &&
    found.order.mailpiece_type === kind
    ? found
    : undefined;
}

/**
 * Moves an order's reserved credits with its status: captured once a print provider accepted the piece, released
 * when it failed or was canceled unmailed. Idempotent: the ledger settles a reservation once, by these keys.
 */
export async function settleProjectCredits(
  ctx: ProjectOrderContext,
  order: OrderRecord,
): Promise<OrderRecord> {
  const project = order.project;
  const status = order.lifecycle?.status;
  if (project?.funds_status !== "reserved" || !status) return order;
  const book = creditBook(project.workspace_id, project.mode);
  let funds: "captured" | "released";
  if (ACCEPTED.has(status)) {
    await ctx.credits.ledger.capture(book, {
      reservation_id: project.reservation_id,
      idempotency_key: `capture:${order.id}`,
    });
    funds = "captured";
  } else if (UNMAILED.has(status)) {
    await ctx.credits.ledger.release(book, {
      reservation_id: project.reservation_id,
      idempotency_key: `release:${order.id}`,
    });
    await ctx.creditsChanged?.(project.workspace_id, project.mode);
    funds = "released";
  } else {
    return order;
  }
  return updateOrder(ctx.store, order.id, ctx.clock.now, (o) =>
    o.project && o.project.funds_status === "reserved"
      ? { ...o, project: { ...o.project, funds_status: funds } }
      : undefined,
  );
}

/**
 * The order intents queue's work: finishes or undoes an order request lost in a crash between its checks and the
 * order's record. An intent whose order exists is done; one without an order has its Idempotency-Key forgotten
 * (first: from then on a retry starts afresh and a request still on its way writes nothing), its quote freed and its
 * reservation (if any) released. A request that stalls past the grace between reading its claim and writing its
 * order is the one case left open: the store has no transaction over the claim and the order.
 */
export function orderIntentWork(ctx: ProjectOrderContext): QueueWork<OrderIntent> {
  return {
    queue: ORDER_INTENTS_QUEUE,
    async handle(intent) {
      if (await loadOrder(ctx.store, intent.order_id)) return "done";
      // The request's claim goes first: a retry from now on starts afresh under a new order id instead of joining
      // this one, and a request still on its way refuses to write the order once the claim is gone.
      const claimKey = requestKey(intent.claim_request_id);
      const claim = await ctx.store.get<{ order_id: string }>(claimKey);
      if (claim?.value.order_id === intent.order_id) {
        try {
          await ctx.store.delete(claimKey, { ifVersion: claim.version });
        } catch (error) {
          // The claim changed meanwhile: look again at once.
          if (PortError.isInstance(error) && error.code === "version_conflict")
            return { again: ctx.clock.now() };
          throw error;
        }
      }
      await unuseQuote(ctx, intent.quote_id, intent.order_id);
      if (await loadOrder(ctx.store, intent.order_id)) {
        // A retry wrote the order just before the claim went: it stands, with its claim and its quote.
        if (claim) await ctx.store.create(claimKey, claim.value);
        await useQuote(ctx, intent.quote_id, intent.order_id).catch(() => undefined);
        return "done";
      }
      const book = creditBook(intent.workspace_id, intent.mode);
      // The same key answers the reservation the lost request made, or makes one now that is released at once:
      // either way nothing stays reserved for an order that does not exist.
      const reserved = await ctx.credits.ledger
        .reserve(book, {
          amount_cents: intent.amount_cents,
          idempotency_key: `order:${intent.order_id}`,
          reference: intent.order_id,
        })
        .catch((error: unknown) => {
          if (LedgerError.isInstance(error) && error.code === "insufficient_credits") return undefined;
          throw error;
        });
      if (reserved) {
        await ctx.credits.ledger.release(book, {
          reservation_id: reserved.id,
          idempotency_key: `release:${intent.order_id}`,
        });
      }
      return "done";
    },
  };
}

/** Lifts order intents noted under the legacy prefix onto the queue (due as they were), then removes each note. */
export function liftLegacyOrderIntents(ctx: ProjectOrderContext): Promise<number> {
  return liftLegacyNotes<OrderIntent>(ctx.store, LEGACY_ORDER_INTENT_PREFIX, (intent) =>
    noteOrderIntent(ctx.jobs, intent, ctx.config.orderIntentGraceMs),
  );
}

export function projectOrderView(record: OrderRecord, replay: boolean): ProjectOrderView {
  const project = record.project!;
  const o = record.order.options;
  const fulfilment = record.fulfilment;
  const events = fulfilment?.tracking_events ?? [];
  return {
    id: record.id,
    object: record.order.mailpiece_type,
    mailpiece_type: record.order.mailpiece_type,
    postcard_size: record.order.postcard_size ?? null,
    status: record.lifecycle?.status ?? record.status,
    mode: project.mode,
    price_cents: record.quote.price_cents,
    currency: "usd",
    funds_status: project.funds_status,
    billing_rail: project.billing_rail,
    quote_id: project.quote_id,
    document_id: project.document_id,
    page_count: record.document.page_count,
    tracking_number: fulfilment?.tracking_number ?? null,
    tracking_url: fulfilment?.tracking_url ?? null,
    tracking_status: events.at(-1)?.status ?? null,
    return_receipt_format: o.return_receipt_format,
    restricted_delivery: o.restricted_delivery,
    err_delivery: o.err_delivery,
    err_email: o.err_email ?? null,
    err_status: o.certified_return_receipt && o.err_delivery === "email" ? "pending" : "manual",
    err_delivered_at: null,
    err_retention_until: null,
    return_receipt_available: false,
    return_receipt_url: null,
    metadata: { ...project.metadata },
    timeline: timelineView(record.lifecycle),
    webhook_events: [],
    created_at: new Date(record.created_at).toISOString(),
    updated_at: new Date(record.updated_at).toISOString(),
    idempotent_replay: replay,
  };
}

async function checkQuote(
  ctx: ProjectOrderContext,
  principal: Principal,
  kind: "letter" | "postcard",
  quoteId: string,
  orderId: string,
): Promise<ProjectQuoteRecord> {
  const quote = await loadQuote(ctx, principal, quoteId);
  const refuse = (code: string, message: string): never => {
    throw requestProblems([{ path: "quote_id", code, message }]);
  };
  if (!quote) return refuse("quote_not_found", "No quote of this workspace has this id.");
  if (quote.mailpiece_type !== kind) {
    return refuse(
      "quote_kind_mismatch",
      `This is a ${quote.mailpiece_type} quote; send it to /${quote.mailpiece_type}s.`,
    );
  }
  if (quote.used_by !== undefined && quote.used_by !== orderId) {
    return refuse("quote_used", "This quote was used by another order; request a new quote.");
  }
  if (quote.expires_at <= ctx.clock.now())
    return refuse("quote_expired", "This quote has expired; request a new quote.");
  return quote;
}

/** The addresses must fit what was quoted: the destination and origin countries, and a return address. */
function checkParties(
  quote: ProjectQuoteRecord,
  recipient: ProjectsAddress,
  sender: ProjectsAddress | undefined,
): void {
  const issues: Issue[] = [];
  if (recipient.address.countryCode !== quote.destination_country_code) {
    issues.push({
      path: "recipient.countryCode",
      code: "destination_mismatch",
      message: `The quote is for mail to ${quote.destination_country_code}; the recipient is in ${recipient.address.countryCode}.`,
    });
  }
  if (!sender) {
    issues.push({
      path: "sender",
      code: "required",
      message: "A sender is required: the envelope's return address (and the origin the quote was made for).",
    });
  } else if (sender.address.countryCode !== quote.origin_country_code) {
    issues.push({
      path: "sender.countryCode",
      code: "origin_mismatch",
      message: `The quote is for mail from ${quote.origin_country_code}; the sender is in ${sender.address.countryCode}.`,
    });
  }
  if (issues.length > 0) throw requestProblems(issues);
}

/** Marks the quote used by this order, once; another order's use refuses. */
async function useQuote(
  ctx: ProjectOrderContext,
  quoteId: string,
  orderId: string,
): Promise<ProjectQuoteRecord> {
  const used = await updateRecord<ProjectQuoteRecord>(ctx.store, quoteKey(quoteId), ctx.clock.now, (q) =>
    q.used_by === undefined ? { ...q, used_by: orderId } : undefined,
  );
  if (used.used_by !== orderId) {
    throw requestProblems([
      {
        path: "quote_id",
        code: "quote_used",
        message: "This quote was used by another order; request a new quote.",
      },
    ]);
  }
  return used;
}

async function unuseQuote(ctx: ProjectOrderContext, quoteId: string, orderId: string): Promise<void> {
  const found = await ctx.store.get<ProjectQuoteRecord>(quoteKey(quoteId));
  if (!found || found.value.used_by !== orderId) return;
  await updateRecord<ProjectQuoteRecord>(ctx.store, quoteKey(quoteId), ctx.clock.now, (q) => {
    if (q.used_by !== orderId) return undefined;
    const { used_by: _used, ...rest } = q;
    return rest as ProjectQuoteRecord;
  });
}

function party(address: ProjectsAddress): Party {
  return {
    name: address.name,
    ...(address.company ? { company: address.company } : {}),
    country: address.address.countryCode,
    address: { type: "Manual", ...address.address },
  };
}
