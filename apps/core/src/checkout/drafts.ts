import { fingerprintBytes, peekRequest } from "@mailpiece/idempotency";
import type { Issue } from "@mailpiece/orders";
import { isInternationalPiece } from "@mailpiece/orders";
import type { OrderContext } from "../create-machine-order.ts";
import { bindUpload, orderKind } from "../create-machine-order.ts";
import { invalidRequest, requestIdConflict } from "../errors.ts";
import { loadMailing } from "../mailings.ts";
import { openMailing } from "../open-mailing.ts";
import type { OrderRecord } from "../order-record.ts";
import type { PartyView } from "../party-view.ts";
import { partyView } from "../party-view.ts";
import { isPaidLike } from "../payments/payment-record.ts";
import type { QuoteView } from "../quote-order.ts";
import { limitUnpaidCreation } from "../rate-limit.ts";
import { requestIdOf } from "../request-id.ts";
import { prepareOrder } from "../validate-order.ts";
import type { CheckoutStatus } from "./checkout-session.ts";
import { checkoutStatus, ensureCheckoutSession } from "./checkout-session.ts";

/** A request for an order draft: the order request of one mailpiece, whose buyer may be named at checkout. */
export interface CreateDraftInput {
  body: unknown;
  /** The request as the client's retry must repeat it (a tool call's canonical JSON). */
  raw: Uint8Array | string;
  /** Who is asking (the client IP), for the unpaid-creation limit. */
  clientKey: string;
  /**
   * false: the draft is an order of its own, even when an unpaid duplicate exists (the same content, parties and
   * options under another request_id), so that canceling its checkout session touches no other draft. A surface
   * whose checkouts are replaced and canceled one by one (UCP) asks for this. Default true: duplicates collapse.
   */
  collapse?: boolean;
}

/** Spec 1's order_draft view: what will be mailed, for how much, and the checkout session a person pays it on. */
export interface OrderDraftView {
  view: "order_draft";
  order_id: string;
  request_id: string;
  /** awaiting_payment until the checkout completes; then the order's status. */
  status: string;
  is_paid: boolean;
  mailpiece_type: OrderRecord["order"]["mailpiece_type"];
  page_count: number;
  price_cents: number;
  price_usd: string;
  currency: "usd";
  line_items: QuoteView["line_items"];
  sender_name: string;
  sender_address_text: string;
  recipient_name: string;
  recipient_address_text: string;
  sender: PartyView;
  recipient: PartyView;
  options: OrderRecord["order"]["options"];
  warnings: Issue[];
  checkout_session: { id: string; status: CheckoutStatus; expires_at: string };
  /** The SHA-256 of the PDF that will print, for a preview link. */
  document_sha256: string;
}

/**
 * Creates (or finds again) an unpaid order draft and its hosted checkout session (spec 1: the draft tools). It is
 * validated exactly as a machine order, claims its request_id the same way (an identical retry answers the same
 * draft, a changed body is request_id_conflict), collapses onto a recent unpaid duplicate, and counts against the
 * client's unpaid-creation limit when it stores something new. Nothing is printed or mailed until it is paid.
 */
export async function createDraft(ctx: OrderContext, input: CreateDraftInput): Promise<OrderDraftView> {
  const fingerprint = fingerprintBytes(input.raw);
  const claimedId = requestIdOf(input.body);
  const seen = claimedId ? await peekRequest(ctx.store, claimedId, fingerprint) : undefined;
  const known = seen?.kind === "replay" ? await loadMailing(ctx, seen.claim.order_id) : undefined;
  if (known?.kind === "order" && isPaidLike(known.record.payment_status)) {
    return draftAnswer(ctx, known.record, claimedId!, []);
  }

  const preparation = await prepareOrder(
    input.body,
    known ? { ...ctx, stage: "checkout", orderId: known.record.id } : { ...ctx, stage: "checkout" },
    { draft: true },
  );
  if (!preparation.ok) throw invalidRequest(preparation.issues);
  const prepared = preparation.prepared;
  if (seen?.kind === "conflict") throw requestIdConflict(prepared.order.request_id, "mailing");
  if (prepared.kind === "campaign" || known?.kind === "campaign") {
    throw invalidRequest([
      {
        path: "bulk",
        code: "bulk_not_allowed",
        message: "A draft mails one piece to one recipient; bulk campaigns are paid with x402 or MPP.",
      },
    ]);
  }
  if (!known) await limitUnpaidCreation(ctx, input.clientKey, ctx.config.unpaidRateLimit, "unpaid orders");
  const kind = orderKind(ctx);
  const record =
    known?.record ??
    (await openMailing(ctx, kind, prepared, fingerprint, { collapse: input.collapse !== false }));
  if (record === "conflict") throw requestIdConflict(prepared.order.request_id, "mailing");
  if (!isPaidLike(record.payment_status)) await bindUpload(ctx, kind.uploadToken(prepared), record.id);
  return draftAnswer(ctx, record, prepared.order.request_id, prepared.view.warnings);
}

async function draftAnswer(
  ctx: OrderContext,
  record: OrderRecord,
  requestId: string,
  warnings: Issue[],
): Promise<OrderDraftView> {
  const { session, order } = await ensureCheckoutSession(ctx, record);
  const international = isInternationalPiece(order.order.sender, order.order.recipient!);
  const sender = partyView(order.order.sender, international);
  const recipient = partyView(order.order.recipient!, international);
  return {
    view: "order_draft",
    order_id: order.id,
    request_id: requestId,
    status: order.lifecycle?.status ?? order.status,
    is_paid: order.payment_status === "paid",
    mailpiece_type: order.order.mailpiece_type,
    page_count: order.document.page_count,
    price_cents: order.quote.price_cents,
    price_usd: order.quote.price_usd,
    currency: "usd",
    line_items: order.quote.line_items,
    sender_name: sender.name,
    sender_address_text: sender.lines.join(", "),
    recipient_name: recipient.name,
    recipient_address_text: recipient.lines.join(", "),
    sender,
    recipient,
    options: order.order.options,
    warnings,
    checkout_session: {
      id: session.id,
      status: checkoutStatus(session, order, ctx.clock.now()),
      expires_at: new Date(session.expires_at).toISOString(),
    },
    document_sha256: order.document.sha256,
  };
}
