import { CheckoutPaymentError, type CheckoutPaymentErrorCode } from "@mailpiece/ports";

/** Messages safe to show to the buyer: they never repeat Stripe's text, which may quote the token. */
export const STRIPE_CHECKOUT_MESSAGES = {
  invalid_token: "The payment token is not a shared payment token this checkout can charge.",
  payment_declined: "The payment was declined. Ask the buyer for another payment method.",
  requires_action: "The payment needs the buyer to authenticate (3-D Secure) before it can be charged.",
  invalid_request: "The payment provider refused the charge request.",
  idempotency_conflict: "This idempotency key was already used with other terms.",
  provider_unavailable: "The payment provider cannot be reached; ask again with the same idempotency key.",
} as const satisfies Record<CheckoutPaymentErrorCode, string>;

/** The fields of a stripe-node error this adapter reads (`Stripe.errors.StripeError`). */
interface StripeErrorLike {
  type?: unknown;
  rawType?: unknown;
  code?: unknown;
  decline_code?: unknown;
  param?: unknown;
  statusCode?: unknown;
}

/** Messages of an off-session charge of a saved method where they differ from a charge's. */
export const STRIPE_SAVED_METHOD_MESSAGES = {
  invalid_token: "The saved payment method is not one the payment provider knows for this customer.",
  payment_declined: "The saved card was declined. Ask the customer for another payment method.",
  requires_action: "The saved card needs its holder to authenticate before it can be charged.",
} as const satisfies Partial<Record<CheckoutPaymentErrorCode, string>>;

/** The call an error answers: a charge of a token, a save of one, or an off-session charge of a saved method. */
export type StripeCheckoutCall = "charge" | "saveMethod" | "chargeSaved";

const WORD = /^[a-z0-9_]{1,64}$/;

export function checkoutError(
  code: CheckoutPaymentErrorCode,
  detail?: string,
  call: StripeCheckoutCall = "charge",
): CheckoutPaymentError {
  const saved: Partial<Record<CheckoutPaymentErrorCode, string>> =
    call === "chargeSaved" ? STRIPE_SAVED_METHOD_MESSAGES : {};
  const message = saved[code] ?? STRIPE_CHECKOUT_MESSAGES[code];
  return new CheckoutPaymentError(code, detail === undefined ? message : `${message} (${detail})`);
}

/**
 * Maps anything the Stripe client threw to the port's error. Card errors are declines (`authentication_required`
 * asks for 3-D Secure); an idempotency error is a conflict unless the key is busy with the same request (409);
 * an invalid request about the shared payment token is `invalid_token`, and so is one about the customer or the
 * payment method of an off-session charge (`call` "chargeSaved": a `resource_missing`, or the parameter `customer`
 * or `payment_method`); connection, server, rate-limit and authentication errors, and anything unknown, leave the
 * outcome unknown: `provider_unavailable`. The error keeps no cause: Stripe's messages and raw bodies may quote the
 * token.
 */
export function checkoutErrorFromStripe(
  error: unknown,
  call: StripeCheckoutCall = "charge",
): CheckoutPaymentError {
  if (CheckoutPaymentError.isInstance(error)) return error as CheckoutPaymentError;
  const stripe = (typeof error === "object" && error !== null ? error : {}) as StripeErrorLike;
  const code = typeof stripe.code === "string" ? stripe.code : "";
  const param = typeof stripe.param === "string" ? stripe.param : "";
  switch (stripe.type) {
    case "StripeCardError": {
      if (code === "authentication_required") return checkoutError("requires_action", undefined, call);
      const reason = typeof stripe.decline_code === "string" ? stripe.decline_code : code;
      return checkoutError("payment_declined", WORD.test(reason) ? reason : undefined, call);
    }
    case "StripeIdempotencyError":
      if (stripe.statusCode === 409 || code === "idempotency_key_in_use")
        return checkoutError("provider_unavailable", undefined, call);
      return checkoutError("idempotency_conflict", undefined, call);
    case "StripeInvalidRequestError":
      if (param.includes("shared_payment") || code.startsWith("shared_payment"))
        return checkoutError("invalid_token", undefined, call);
      if (call === "chargeSaved" && (code === "resource_missing" || SAVED_METHOD_PARAMS.has(param)))
        return checkoutError("invalid_token", undefined, call);
      return checkoutError("invalid_request", WORD.test(code) ? code : undefined, call);
    default:
      return checkoutError("provider_unavailable", undefined, call);
  }
}

/** The parameters of an off-session charge that name the saved method and its customer. */
const SAVED_METHOD_PARAMS = new Set(["customer", "payment_method"]);
