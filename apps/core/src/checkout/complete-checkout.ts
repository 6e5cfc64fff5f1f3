import type { Issue } from "@mailpiece/orders";
import type { OrderContext } from "../create-machine-order.ts";
import { orderPayable, paymentContext } from "../create-machine-order.ts";
import { CoreError, invalidRequest } from "../errors.ts";
import { loadOrder, updateOrder } from "../order-record.ts";
import { payFor } from "../payments/pay.ts";
import { checkoutCredential } from "./checkout-rail.ts";
import type { CheckoutBuyer, CheckoutSessionRecord, CheckoutView } from "./checkout-session.ts";
import {
  checkoutStatus,
  checkoutView,
  loadCheckoutSession,
  updateCheckoutSession,
} from "./checkout-session.ts";

/** spec 1's complete_checkout: the session, the buyer, and a shared payment token. */
export interface CompleteCheckoutInput {
  checkout_session_id: string;
  buyer: unknown;
  payment_data: unknown;
}

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** The session and its order, or not_found. */
async function sessionAndOrder(ctx: OrderContext, id: string) {
  const session = await loadCheckoutSession(ctx.store, id);
  const order = session ? (await loadOrder(ctx.store, session.order_id))?.value : undefined;
  if (!session || !order) throw new CoreError("not_found", "No checkout session has this id.");
  return { session, order };
}

export async function getCheckout(ctx: OrderContext, id: string): Promise<CheckoutView | undefined> {
  const session = await loadCheckoutSession(ctx.store, id);
  const order = session ? (await loadOrder(ctx.store, session.order_id))?.value : undefined;
  return session && order ? checkoutView(session, order, ctx.clock.now()) : undefined;
}

/**
 * Pays a draft's checkout session with a shared payment token through the one payment flow, on the checkout rail:
 * at most one charge per session, also under concurrent completions, retries and crashes (each attempt has its
 * own idempotency key at the provider, and the order is marked settling before money moves). Completing a
 * completed session answers it again and charges nothing. A refused payment (declined, 3-D Secure needed, an
 * unknown token) leaves the session open and answers it with a message saying why. Throws validation_failed for
 * the buyer or the token, not_found, checkout_expired, checkout_canceled, or payment_rail_unavailable when the
 * deployment takes no card payments.
 */
export async function completeCheckout(
  ctx: OrderContext,
  input: CompleteCheckoutInput,
): Promise<CheckoutView> {
  const { buyer, token } = readCompletion(input);
  const { session, order } = await sessionAndOrder(ctx, input.checkout_session_id);
  const status = checkoutStatus(session, order, ctx.clock.now());
  if (status === "canceled") throw new CoreError("checkout_canceled", "This checkout session was canceled.");
  if (status === "expired") {
    throw new CoreError(
      "checkout_expired",
      "This checkout session has expired. Create the draft again for a new checkout session.",
    );
  }
  const rail = ctx.rails.checkout;
  if (!rail)
    throw new CoreError("payment_rail_unavailable", "This deployment takes no card payments at checkout.");

  let current = order;
  if (status === "open") {
    await updateCheckoutSession(ctx, session.id, (s) => ({ ...s, buyer }));
    // The receipt goes to the person who pays.
    current = await updateOrder(ctx.store, order.id, ctx.clock.now, (r) => {
      if (r.payment_status !== "unpaid") return undefined;
      r.order.buyer_name = [buyer.first_name, buyer.last_name].filter(Boolean).join(" ");
      r.order.buyer_email = buyer.email;
      return r;
    });
  }
  const outcome = await payFor(paymentContext(ctx), orderPayable(ctx), current, {
    rail,
    credential: checkoutCredential({
      token,
      idempotency_key: `${session.id}:${ctx.ids.uuid()}`,
      session_id: session.id,
    }),
    resourceUrl: (id) => `urn:mailpiece:order:${id}`,
  });
  const noted: CheckoutSessionRecord = await updateCheckoutSession(ctx, session.id, (s) => {
    if (outcome.kind === "payment_required" && outcome.error) {
      return { ...s, last_error: { ...outcome.error, at: ctx.clock.now() } };
    }
    if (s.last_error === undefined) return undefined;
    const { last_error: _cleared, ...rest } = s;
    return rest;
  });
  return checkoutView(noted, outcome.record, ctx.clock.now());
}

/** Cancels an open session: it can no longer be paid. A session being paid or paid cannot be canceled. */
export async function cancelCheckout(ctx: OrderContext, id: string): Promise<CheckoutView> {
  const { session, order } = await sessionAndOrder(ctx, id);
  const status = checkoutStatus(session, order, ctx.clock.now());
  if (status === "completed" || status === "complete_in_progress") {
    throw new CoreError("checkout_completed", "This checkout session is paid and cannot be canceled.");
  }
  if (status !== "open") return checkoutView(session, order, ctx.clock.now());
  const canceled = await updateCheckoutSession(ctx, id, (s) =>
    s.canceled_at === undefined ? { ...s, canceled_at: ctx.clock.now() } : undefined,
  );
  return checkoutView(canceled, order, ctx.clock.now());
}

function readCompletion(input: CompleteCheckoutInput): { buyer: CheckoutBuyer; token: string } {
  const issues: Issue[] = [];
  const buyer = isObject(input.buyer) ? input.buyer : undefined;
  const payment = isObject(input.payment_data) ? input.payment_data : undefined;
  if (!buyer)
    issues.push({ path: "buyer", code: "required", message: "buyer {first_name, email} is required." });
  const text = (value: unknown, path: string, max: number, required: boolean): string | undefined => {
    if (value === undefined && !required) return undefined;
    if (typeof value !== "string" || value.trim() === "") {
      issues.push({ path, code: "required", message: `${path} is required.` });
      return undefined;
    }
    if (value.length > max) {
      issues.push({ path, code: "too_long", message: `${path} must be at most ${max} characters.` });
      return undefined;
    }
    return value.trim();
  };
  const first_name = buyer ? text(buyer.first_name, "buyer.first_name", 128, true) : undefined;
  const last_name = buyer ? text(buyer.last_name, "buyer.last_name", 128, false) : undefined;
  const email = buyer ? text(buyer.email, "buyer.email", 256, true) : undefined;
  if (email !== undefined && !EMAIL.test(email)) {
    issues.push({
      path: "buyer.email",
      code: "invalid_format",
      message: "buyer.email must be an email address.",
    });
  }
  if (!payment) {
    issues.push({
      path: "payment_data",
      code: "required",
      message: "payment_data {token, provider} is required.",
    });
  }
  const token = payment ? text(payment.token, "payment_data.token", 256, true) : undefined;
  if (token !== undefined && !token.startsWith("spt_")) {
    issues.push({
      path: "payment_data.token",
      code: "invalid_payment_token",
      message: "payment_data.token must be a shared payment token (it starts with spt_).",
    });
  }
  if (issues.length > 0) throw invalidRequest(issues);
  return {
    buyer: { first_name: first_name!, ...(last_name ? { last_name } : {}), email: email! },
    token: token!,
  };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
