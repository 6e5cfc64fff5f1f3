import { defineError } from "@mailpiece/errors";

/**
 * The CheckoutPayments port: card payments taken on a hosted checkout (spec 1, `complete_checkout`) with a shared
 * payment token (`spt_...`) that an agent or a checkout page obtained from the payment provider. The core charges
 * one checkout session at most once: it passes the session id as the idempotency key of every attempt.
 *
 * Contracts. An adapter MUST satisfy every sentence below; each has a named test in the conformance kit.
 * - `charge` MUST move the amount at most once per `idempotency_key`, also when called again, concurrently, or from
 *   another process: a second call with the same key and terms MUST answer the first call's outcome (the same
 *   `reference`), and a call with the same key and other terms MUST be refused with `idempotency_conflict`.
 * - A token that is not a shared payment token (no `spt_` prefix, or one the provider does not know) MUST be refused
 *   with `invalid_token`; a declined payment with `payment_declined`; a payment that needs the buyer to authenticate
 *   (3-D Secure) with `requires_action`. None of them moves money.
 * - `amount_cents` MUST be a positive integer and `currency` "usd"; anything else is `invalid_request`.
 * - A provider that cannot be reached, or whose answer was lost, MUST throw `provider_unavailable`; the caller asks
 *   again with the same key, which answers the outcome that happened.
 * - Errors carry no token, secret or card data.
 */
export interface CheckoutPayments {
  /** A short name for logs ("test", "stripe"). */
  readonly name: string;
  /** True when no real money moves (the test adapter). */
  readonly simulated: boolean;
  charge(request: CheckoutCharge): Promise<CheckoutReceipt>;
}

export interface CheckoutCharge {
  /** The shared payment token, `spt_...`. */
  token: string;
  /** Integer cents. */
  amount_cents: number;
  currency: "usd";
  /** What the buyer pays for, as their statement shows it. */
  description: string;
  /** Stable for one checkout session: the charge happens at most once under it. */
  idempotency_key: string;
  /** Plain strings the provider stores with the payment (order id, session id). */
  metadata?: Record<string, string>;
}

export interface CheckoutReceipt {
  /** The provider's reference of the payment (a PaymentIntent id for Stripe). */
  reference: string;
  amount_cents: number;
  currency: "usd";
  /** Milliseconds since the epoch. */
  paidAt: number;
}

export type CheckoutPaymentErrorCode =
  | "invalid_token"
  | "payment_declined"
  | "requires_action"
  | "invalid_request"
  | "idempotency_conflict"
  | "provider_unavailable";

/** The error of the checkout payments port. `message` is safe to show to the buyer. */
export class CheckoutPaymentError extends defineError<CheckoutPaymentErrorCode>("CheckoutPaymentError") {}

/** The longest idempotency key a payment provider takes (Stripe's limit). */
export const MAX_CHECKOUT_IDEMPOTENCY_KEY_LENGTH = 255;

/**
 * Refuses a charge whose terms the port does not allow (every adapter checks them before anything else): `amount_cents` a positive integer, `currency` "usd", an
 * idempotency key of 1 to 255 characters, a description and metadata of strings. Throws `invalid_request`.
 */
export function assertCheckoutCharge(request: CheckoutCharge): void {
  const refuse = (message: string) => new CheckoutPaymentError("invalid_request", message);
  if (typeof request !== "object" || request === null) throw refuse("The charge request is missing.");
  const { amount_cents: amount, currency, idempotency_key: key, description, metadata } = request;
  if (!Number.isSafeInteger(amount) || amount <= 0) throw refuse("amount_cents must be a positive integer.");
  if (currency !== "usd") throw refuse('currency must be "usd".');
  if (typeof key !== "string" || key.length === 0 || key.length > MAX_CHECKOUT_IDEMPOTENCY_KEY_LENGTH) {
    throw refuse(
      `idempotency_key must be a string of 1 to ${MAX_CHECKOUT_IDEMPOTENCY_KEY_LENGTH} characters.`,
    );
  }
  if (typeof description !== "string") throw refuse("description must be a string.");
  if (metadata !== undefined && !isStringRecord(metadata))
    throw refuse("metadata must map strings to strings.");
}

/** True when `token` has the form of a shared payment token: `spt_` followed by letters, digits, `_` or `-`. */
export function isSharedPaymentToken(token: unknown): token is string {
  return typeof token === "string" && /^spt_[A-Za-z0-9_-]{1,250}$/.test(token);
}

function isStringRecord(value: unknown): value is Record<string, string> {
  return (
    typeof value === "object" &&
    value !== null &&
    !Array.isArray(value) &&
    Object.values(value).every((v) => typeof v === "string")
  );
}
