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
 *
 * Saved payment methods (prepaid credits refilled without the buyer present):
 * - `saveMethod` MUST keep the card behind a shared payment token for later off-session charges, under the
 *   provider customer given (or one it makes when none is given), and move no money. It is idempotent like
 *   `charge`: a repeat with the same key and terms answers the same saved method, other terms are
 *   `idempotency_conflict`. Tokens are refused as `charge` refuses them (`invalid_token`, `payment_declined`,
 *   `requires_action`); nothing is saved then.
 * - `chargeSaved` MUST charge a method that `saveMethod` answered, under its customer, at most once per
 *   `idempotency_key`, with the same replay and conflict rules as `charge`. A method or customer the provider does
 *   not know, or a method of another customer, is `invalid_token`; a card refused off-session is
 *   `payment_declined`, one that needs its holder to authenticate is `requires_action`; neither moves money.
 */
export interface CheckoutPayments {
  /** A short name for logs ("test", "stripe"). */
  readonly name: string;
  /** True when no real money moves (the test adapter). */
  readonly simulated: boolean;
  charge(request: CheckoutCharge): Promise<CheckoutReceipt>;
  /** Saves the card behind a shared payment token for off-session charges; no money moves. */
  saveMethod(request: SaveMethodRequest): Promise<SavedMethod>;
  /** Charges a saved method without its holder present (an automatic refill). */
  chargeSaved(request: SavedMethodCharge): Promise<CheckoutReceipt>;
}

export interface SaveMethodRequest {
  /** The shared payment token, `spt_...`, of the card to save. */
  token: string;
  /** The provider's customer to save it under (a `cus_...` id for Stripe); absent: the adapter makes one. */
  customer?: string;
  /** Who the customer is, as the provider's records show it (a workspace's name and id). */
  description: string;
  /** Stable for one setup: the method is saved at most once under it. */
  idempotency_key: string;
  metadata?: Record<string, string>;
}

/** A saved card: what charges it off-session, and what a person recognises it by. Never the card number. */
export interface SavedMethod {
  /** The provider's customer the method belongs to. */
  customer: string;
  /** The provider's reference of the method (a `pm_...` id for Stripe). */
  reference: string;
  /** The card brand in lower case (`visa`, `mastercard`), or null when the provider does not say. */
  brand: string | null;
  /** The last four digits of the card, or null. */
  last4: string | null;
  exp_month: number | null;
  exp_year: number | null;
}

export interface SavedMethodCharge {
  customer: string;
  /** A `SavedMethod.reference` of that customer. */
  payment_method: string;
  /** Integer cents. */
  amount_cents: number;
  currency: "usd";
  description: string;
  /** Stable for one refill: the charge happens at most once under it. */
  idempotency_key: string;
  metadata?: Record<string, string>;
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

/**
 * Refuses a save whose terms the port does not allow, as `assertCheckoutCharge` does: `invalid_request` for a bad
 * idempotency key, description or metadata, or a customer that is not a provider reference. The token is judged by
 * the adapter (`invalid_token`).
 */
export function assertSaveMethodRequest(request: SaveMethodRequest): void {
  if (typeof request !== "object" || request === null) {
    throw new CheckoutPaymentError("invalid_request", "The request is missing.");
  }
  assertCheckoutCharge({ ...request, amount_cents: 1, currency: "usd" });
  if (request.customer !== undefined && !isReference(request.customer)) {
    throw new CheckoutPaymentError("invalid_request", "customer must be a provider reference.");
  }
}

/**
 * Refuses an off-session charge whose terms the port does not allow: what `assertCheckoutCharge` refuses (amount,
 * currency, idempotency key, description, metadata), and a customer or method that is not a provider reference.
 * Throws `invalid_request`.
 */
export function assertSavedMethodCharge(request: SavedMethodCharge): void {
  const refuse = (message: string) => new CheckoutPaymentError("invalid_request", message);
  if (typeof request !== "object" || request === null) throw refuse("The request is missing.");
  assertCheckoutCharge({ ...request, token: "" });
  if (!isReference(request.customer)) throw refuse("customer must be a provider reference.");
  if (!isReference(request.payment_method)) throw refuse("payment_method must be a provider reference.");
}

/**
 * `assertSaveMethodRequest` for a request that has a `token`, `assertSavedMethodCharge` for any other. An adapter
 * knows which call it serves and uses that one: a charge that lacks `payment_method` is still checked as a charge.
 */
export function assertSavedMethodRequest(request: SaveMethodRequest | SavedMethodCharge): void {
  if (typeof request !== "object" || request === null) {
    throw new CheckoutPaymentError("invalid_request", "The request is missing.");
  }
  if ("token" in request) assertSaveMethodRequest(request);
  else assertSavedMethodCharge(request);
}

function isReference(value: unknown): value is string {
  return typeof value === "string" && /^[A-Za-z0-9_-]{1,255}$/.test(value);
}

function isStringRecord(value: unknown): value is Record<string, string> {
  return (
    typeof value === "object" &&
    value !== null &&
    !Array.isArray(value) &&
    Object.values(value).every((v) => typeof v === "string")
  );
}
