import {
  assertCheckoutCharge,
  type CheckoutCharge,
  type CheckoutPayments,
  type CheckoutReceipt,
  isSharedPaymentToken,
} from "@mailpiece/ports";
import Stripe from "stripe";
import { checkoutError, checkoutErrorFromStripe } from "./stripe-errors.ts";

/**
 * The Stripe API version sent with every request. Shared payment tokens are a private preview: the
 * `payment_method_data[shared_payment_granted_token]` parameter of a PaymentIntent needs a `.preview` version.
 */
export const STRIPE_SPT_API_VERSION = "2026-04-22.preview";

export interface StripeCheckoutOptions {
  /** The Stripe secret key (`sk_...`) or restricted key (`rk_...`) that creates PaymentIntents. */
  secretKey: string;
  /** The `Stripe-Version` of every request; default `STRIPE_SPT_API_VERSION`. */
  apiVersion?: string;
  /** Another API host than api.stripe.com, for a local Stripe in tests. */
  host?: string;
  port?: number;
  protocol?: "http" | "https";
  /** How long one request may take; default 30 000 ms. A request that times out is `provider_unavailable`. */
  timeoutMs?: number;
  /**
   * How often the Stripe client retries a request whose answer it did not get, with the same Idempotency-Key, so
   * a retry never charges twice. Default 2; 0 lets the caller see every lost answer as `provider_unavailable`.
   */
  maxNetworkRetries?: number;
}

const SECRET_KEY = /^(sk|rk)_(test|live)_[A-Za-z0-9_]+$/;

/**
 * CheckoutPayments on Stripe: charges a shared payment token by creating a PaymentIntent with
 * `payment_method_data[shared_payment_granted_token]` and `confirm: true`, under the Idempotency-Key of the
 * charge, so that a repeat answers the same PaymentIntent (`reference` is its `pi_...` id). A PaymentIntent that
 * succeeded is the receipt; one that needs 3-D Secure is `requires_action`. Test-mode keys move no real money
 * (`simulated`).
 */
export function createStripeCheckout(options: StripeCheckoutOptions): CheckoutPayments {
  if (typeof options.secretKey !== "string" || !SECRET_KEY.test(options.secretKey)) {
    throw new TypeError("createStripeCheckout needs a Stripe secret key (sk_... or rk_...)");
  }
  const stripe = new Stripe(options.secretKey, {
    apiVersion: (options.apiVersion ?? STRIPE_SPT_API_VERSION) as Stripe.StripeConfig["apiVersion"],
    maxNetworkRetries: options.maxNetworkRetries ?? 2,
    timeout: options.timeoutMs ?? 30_000,
    telemetry: false,
    appInfo: { name: "Mailpiece" },
    ...(options.host === undefined ? {} : { host: options.host }),
    ...(options.port === undefined ? {} : { port: options.port }),
    ...(options.protocol === undefined ? {} : { protocol: options.protocol }),
  });

  async function createIntent(request: CheckoutCharge): Promise<Stripe.PaymentIntent> {
    const params = {
      amount: request.amount_cents,
      currency: request.currency,
      confirm: true,
      description: request.description,
      metadata: request.metadata ?? {},
      automatic_payment_methods: { enabled: true, allow_redirects: "never" },
      payment_method_data: { shared_payment_granted_token: request.token },
    };
    try {
      // The stable SDK types do not list the preview parameter; the client sends the params as given.
      return await stripe.paymentIntents.create(params as unknown as Stripe.PaymentIntentCreateParams, {
        idempotencyKey: request.idempotency_key,
      });
    } catch (error) {
      throw checkoutErrorFromStripe(error);
    }
  }

  /**
   * A repeat under one key replays the first answer, so a PaymentIntent that was processing then is read again
   * for its status now.
   */
  async function settled(intent: Stripe.PaymentIntent): Promise<Stripe.PaymentIntent> {
    if (intent.status !== "processing") return intent;
    try {
      return await stripe.paymentIntents.retrieve(intent.id);
    } catch (error) {
      throw checkoutErrorFromStripe(error);
    }
  }

  return {
    name: "stripe",
    simulated: /^(sk|rk)_test_/.test(options.secretKey),
    async charge(request: CheckoutCharge): Promise<CheckoutReceipt> {
      assertCheckoutCharge(request);
      if (!isSharedPaymentToken(request.token)) throw checkoutError("invalid_token");
      const intent = await settled(await createIntent(request));
      switch (intent.status) {
        case "succeeded":
          return {
            reference: intent.id,
            amount_cents: intent.amount,
            currency: "usd",
            paidAt: intent.created * 1000,
          };
        case "requires_action":
          throw checkoutError("requires_action");
        case "requires_payment_method":
        case "canceled":
          throw checkoutError("payment_declined");
        default:
          // Still processing: no final answer yet; the same key asks again later.
          throw checkoutError("provider_unavailable");
      }
    },
  };
}
