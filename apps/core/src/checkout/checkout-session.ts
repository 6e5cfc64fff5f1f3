import { isInternationalPiece } from "@mailpiece/orders";
import type { Store } from "@mailpiece/ports";
import type { OrderContext } from "../create-machine-order.ts";
import type { OrderRecord } from "../order-record.ts";
import { updateOrder } from "../order-record.ts";
import type { PartyView } from "../party-view.ts";
import { partyView } from "../party-view.ts";
import type { QuoteView } from "../quote-order.ts";
import { updateRecord } from "../records.ts";

/**
 * Where a checkout session stands. It follows the order's money first: `completed` once the order is paid (on any
 * rail), `complete_in_progress` while a payment is settling; otherwise `canceled`, `expired` (past expires_at, or
 * replaced by a newer session of the same draft) or `open`.
 */
export type CheckoutStatus = "open" | "complete_in_progress" | "completed" | "expired" | "canceled";

/** The person who pays on the checkout page (or for whom an agent completes it). */
export interface CheckoutBuyer {
  first_name: string;
  last_name?: string;
  email: string;
}

/** One hosted checkout of one draft order, as stored under `checkout_sessions:<id>`. */
export interface CheckoutSessionRecord {
  object: "checkout_session";
  /** `cs_` and 32 hexadecimal digits: unguessable, since the session's page shows both addresses. */
  id: string;
  order_id: string;
  created_at: number;
  expires_at: number;
  canceled_at?: number;
  buyer?: CheckoutBuyer;
  /** The last refused payment, shown on the page and to the agent until a payment succeeds. */
  last_error?: { code: string; message: string; at: number };
  updated_at: number;
}

/** A message about a session, with a stable code (spec 1: payment_declined, requires_3ds). */
export interface CheckoutMessage {
  type: "error" | "info";
  code: string;
  content: string;
}

/** What a checkout page and the agent tools show of a session. */
export interface CheckoutView {
  object: "checkout_session";
  id: string;
  status: CheckoutStatus;
  order_id: string;
  created_at: string;
  expires_at: string;
  completed_at: string | null;
  canceled_at: string | null;
  amount_cents: number;
  price_usd: string;
  currency: "usd";
  line_items: QuoteView["line_items"];
  mailpiece: {
    mailpiece_type: OrderRecord["order"]["mailpiece_type"];
    postcard_size: string | null;
    page_count: number;
    source: string;
    options: OrderRecord["order"]["options"];
  };
  sender: PartyView;
  recipient: PartyView;
  /** As given at checkout, or as the draft named the buyer. */
  buyer: CheckoutBuyer | null;
  /** The SHA-256 of the PDF that will print, for a preview link. */
  document_sha256: string;
  /** The order behind the session: its status, payment and current step. */
  order: { status: string; payment_status: OrderRecord["payment_status"]; is_paid: boolean };
  messages: CheckoutMessage[];
}

export const checkoutSessionKey = (id: string) => `checkout_sessions:${id}`;

export async function loadCheckoutSession(
  store: Store,
  id: string,
): Promise<CheckoutSessionRecord | undefined> {
  if (!/^cs_[0-9a-f]{32}$/.test(id)) return undefined;
  return (await store.get<CheckoutSessionRecord>(checkoutSessionKey(id)))?.value;
}

export function updateCheckoutSession(
  ctx: Pick<OrderContext, "store" | "clock">,
  id: string,
  change: (session: CheckoutSessionRecord) => CheckoutSessionRecord | undefined,
): Promise<CheckoutSessionRecord> {
  return updateRecord(ctx.store, checkoutSessionKey(id), ctx.clock.now, change);
}

export function checkoutStatus(
  session: CheckoutSessionRecord,
  order: OrderRecord,
  now: number,
): CheckoutStatus {
  if (order.payment_status === "paid") return "completed";
  if (order.payment_status !== "unpaid") return "complete_in_progress";
  if (session.canceled_at !== undefined) return "canceled";
  if (now >= session.expires_at || order.checkout_session_id !== session.id) return "expired";
  return "open";
}

/**
 * The session a draft is paid through: the draft's current one while it can still be used (open, paying or paid),
 * else a new one that replaces it. Concurrent callers agree on one session: the order names it with
 * compare-and-set, and a session that lost the race is removed.
 */
export async function ensureCheckoutSession(
  ctx: Pick<OrderContext, "store" | "clock" | "ids" | "config">,
  order: OrderRecord,
): Promise<{ session: CheckoutSessionRecord; order: OrderRecord }> {
  const usable = async (current: OrderRecord) => {
    if (current.checkout_session_id === undefined) return undefined;
    const session = await loadCheckoutSession(ctx.store, current.checkout_session_id);
    if (!session) return undefined;
    const status = checkoutStatus(session, current, ctx.clock.now());
    return status === "expired" || status === "canceled" ? undefined : session;
  };
  const existing = await usable(order);
  if (existing) return { session: existing, order };

  const now = ctx.clock.now();
  const session: CheckoutSessionRecord = {
    object: "checkout_session",
    id: `cs_${ctx.ids.uuid().replaceAll("-", "").toLowerCase()}`,
    order_id: order.id,
    created_at: now,
    expires_at: now + ctx.config.checkoutTtlMs,
    updated_at: now,
  };
  await ctx.store.create(checkoutSessionKey(session.id), session);
  const updated = await updateOrder(ctx.store, order.id, ctx.clock.now, (r) => {
    // A session named meanwhile by another caller stays (a paid order's session always stays usable).
    if (r.checkout_session_id !== order.checkout_session_id) return undefined;
    r.checkout_session_id = session.id;
    return r;
  });
  if (updated.checkout_session_id === session.id) return { session, order: updated };
  await ctx.store.delete(checkoutSessionKey(session.id));
  const winner = updated.checkout_session_id
    ? await loadCheckoutSession(ctx.store, updated.checkout_session_id)
    : undefined;
  return winner ? { session: winner, order: updated } : ensureCheckoutSession(ctx, updated);
}

/** The buyer a draft named (buyer_name, buyer_email), before anyone has given one at checkout. */
function draftBuyer(order: OrderRecord): CheckoutBuyer | null {
  if (!order.order.buyer_email) return null;
  const [first = "", ...rest] = (order.order.buyer_name ?? "").trim().split(/\s+/);
  return {
    first_name: first,
    ...(rest.length > 0 ? { last_name: rest.join(" ") } : {}),
    email: order.order.buyer_email,
  };
}

const iso = (ms: number | undefined) => (ms === undefined ? null : new Date(ms).toISOString());

/** What the buyer sees of a session and its order. */
export function checkoutView(session: CheckoutSessionRecord, order: OrderRecord, now: number): CheckoutView {
  const status = checkoutStatus(session, order, now);
  const international = order.order.recipient
    ? isInternationalPiece(order.order.sender, order.order.recipient)
    : false;
  const messages: CheckoutMessage[] = [];
  if (status === "open" && session.last_error) {
    messages.push({
      type: "error",
      code: messageCode(session.last_error.code),
      content: session.last_error.message,
    });
  }
  return {
    object: "checkout_session",
    id: session.id,
    status,
    order_id: order.id,
    created_at: new Date(session.created_at).toISOString(),
    expires_at: new Date(session.expires_at).toISOString(),
    completed_at: status === "completed" ? iso(order.payment?.settled_at ?? order.updated_at) : null,
    canceled_at: status === "canceled" ? iso(session.canceled_at) : null,
    amount_cents: order.quote.price_cents,
    price_usd: order.quote.price_usd,
    currency: "usd",
    line_items: order.quote.line_items,
    mailpiece: {
      mailpiece_type: order.order.mailpiece_type,
      postcard_size: order.order.postcard_size ?? null,
      page_count: order.document.page_count,
      source: order.document.source,
      options: order.order.options,
    },
    sender: partyView(order.order.sender, international),
    recipient: partyView(order.order.recipient!, international),
    buyer: session.buyer ?? draftBuyer(order),
    document_sha256: order.document.sha256,
    order: {
      status: order.lifecycle?.status ?? order.status,
      payment_status: order.payment_status,
      is_paid: order.payment_status === "paid",
    },
    messages,
  };
}

/** The code an agent sees for a refused payment: spec 1 names a card that needs authentication requires_3ds. */
function messageCode(code: string): string {
  return code === "requires_action" ? "requires_3ds" : code;
}
