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
