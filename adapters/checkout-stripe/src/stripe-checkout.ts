import { createHash } from "node:crypto";
import {
  assertCheckoutCharge,
  assertSavedMethodCharge,
  assertSaveMethodRequest,
  type CheckoutCharge,
  type CheckoutPayments,
  type CheckoutReceipt,
  isSharedPaymentToken,
  MAX_CHECKOUT_IDEMPOTENCY_KEY_LENGTH,
  type SavedMethod,
  type SavedMethodCharge,
  type SaveMethodRequest,
} from "@mailpiece/ports";
import Stripe from "stripe";
import { checkoutError, checkoutErrorFromStripe, type StripeCheckoutCall } from "./stripe-errors.ts";

/**
 * The Stripe API version sent with every request. Shared payment tokens are a private preview: the
 * `payment_method_data[shared_payment_granted_token]` parameter of a PaymentIntent needs a `.preview` version.
 */
export const STRIPE_SPT_API_VERSION = "2026-04-22.preview";

export interface StripeCheckoutOptions {
  /**
   * The Stripe secret key (`sk_...`) or restricted key (`rk_...`) that creates PaymentIntents, Customers and
   * SetupIntents.
   */
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
 *
 * `saveMethod` confirms a SetupIntent (`usage: off_session`) with the token under the customer given, or under one
 * it creates with the Idempotency-Key `<key>:customer`, and answers the card PaymentMethod it attached (`pm_...`).
 * `chargeSaved` confirms an `off_session` PaymentIntent of that method and customer under the refill's key.
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

  /** Runs one Stripe call; whatever it throws becomes the port's error for `call`. */
  async function ask<T>(call: StripeCheckoutCall, step: () => Promise<T>): Promise<T> {
    try {
      return await step();
    } catch (error) {
      throw checkoutErrorFromStripe(error, call);
    }
  }

  function createIntent(request: CheckoutCharge): Promise<Stripe.PaymentIntent> {
    const params = {
      amount: request.amount_cents,
      currency: request.currency,
      confirm: true,
      description: request.description,
      metadata: request.metadata ?? {},
      automatic_payment_methods: { enabled: true, allow_redirects: "never" },
      payment_method_data: { shared_payment_granted_token: request.token },
    };
    // The stable SDK types do not list the preview parameter; the client sends the params as given.
    return ask("charge", () =>
      stripe.paymentIntents.create(params as unknown as Stripe.PaymentIntentCreateParams, {
        idempotencyKey: request.idempotency_key,
      }),
    );
  }

  /**
   * A repeat under one key replays the first answer, so a PaymentIntent that was processing then is read again
   * for its status now.
   */
  async function settled(
    intent: Stripe.PaymentIntent,
    call: StripeCheckoutCall,
  ): Promise<Stripe.PaymentIntent> {
    if (intent.status !== "processing") return intent;
    return ask(call, () => stripe.paymentIntents.retrieve(intent.id));
  }

  function receiptOf(intent: Stripe.PaymentIntent, call: StripeCheckoutCall): CheckoutReceipt {
    switch (intent.status) {
      case "succeeded":
        return {
          reference: intent.id,
          amount_cents: intent.amount,
          currency: "usd",
          paidAt: intent.created * 1000,
        };
      case "requires_action":
        throw checkoutError("requires_action", undefined, call);
      case "requires_payment_method":
      case "canceled":
        throw checkoutError("payment_declined", undefined, call);
      default:
        // Still processing: no final answer yet; the same key asks again later.
        throw checkoutError("provider_unavailable", undefined, call);
    }
  }

  /** The customer a save makes when none is given, under a key of its own derived from the save's key. */
  function createCustomer(request: SaveMethodRequest): Promise<Stripe.Customer> {
    const params = { description: request.description, metadata: request.metadata ?? {} };
    return ask("saveMethod", () =>
      stripe.customers.create(params, { idempotencyKey: customerKey(request.idempotency_key) }),
    );
  }

  function createSetupIntent(request: SaveMethodRequest, customer: string): Promise<Stripe.SetupIntent> {
    const params = {
      customer,
      confirm: true,
      usage: "off_session",
      payment_method_data: { shared_payment_granted_token: request.token },
      automatic_payment_methods: { enabled: true, allow_redirects: "never" },
      description: request.description,
      metadata: request.metadata ?? {},
      expand: ["payment_method"],
    };
    // As for PaymentIntents, the stable SDK types do not list the preview parameter.
    return ask("saveMethod", () =>
      stripe.setupIntents.create(params as unknown as Stripe.SetupIntentCreateParams, {
        idempotencyKey: request.idempotency_key,
      }),
    );
  }

  /** A SetupIntent that was processing when first answered is read again for its status now. */
  async function settledSetup(setup: Stripe.SetupIntent): Promise<Stripe.SetupIntent> {
    if (setup.status !== "processing") return setup;
    return ask("saveMethod", () => stripe.setupIntents.retrieve(setup.id, { expand: ["payment_method"] }));
  }

  return {
    name: "stripe",
    simulated: /^(sk|rk)_test_/.test(options.secretKey),
    async charge(request: CheckoutCharge): Promise<CheckoutReceipt> {
      assertCheckoutCharge(request);
      if (!isSharedPaymentToken(request.token)) throw checkoutError("invalid_token");
      return receiptOf(await settled(await createIntent(request), "charge"), "charge");
    },

    async saveMethod(request: SaveMethodRequest): Promise<SavedMethod> {
      assertSaveMethodRequest(request);
      if (!isSharedPaymentToken(request.token)) throw checkoutError("invalid_token", undefined, "saveMethod");
      const customer = request.customer ?? (await createCustomer(request)).id;
      const setup = await settledSetup(await createSetupIntent(request, customer));
      switch (setup.status) {
        case "succeeded":
          return savedMethodOf(setup, customer);
        case "requires_action":
          throw checkoutError("requires_action", undefined, "saveMethod");
        case "requires_payment_method":
        case "canceled":
          throw checkoutError("payment_declined", undefined, "saveMethod");
        default:
          // Processing, or a state a confirmed SetupIntent should not be in: the same key asks again later.
          throw checkoutError("provider_unavailable", undefined, "saveMethod");
      }
    },

    async chargeSaved(request: SavedMethodCharge): Promise<CheckoutReceipt> {
      assertSavedMethodCharge(request);
      const params: Stripe.PaymentIntentCreateParams = {
        amount: request.amount_cents,
        currency: request.currency,
        customer: request.customer,
        payment_method: request.payment_method,
        off_session: true,
        confirm: true,
        description: request.description,
        metadata: request.metadata ?? {},
      };
      const intent = await ask("chargeSaved", () =>
        stripe.paymentIntents.create(params, { idempotencyKey: request.idempotency_key }),
      );
      return receiptOf(await settled(intent, "chargeSaved"), "chargeSaved");
    },
  };
}

const CUSTOMER_KEY_SUFFIX = ":customer";

/**
 * The Idempotency-Key of the customer a save makes: `<key>:customer`, or, when that would pass Stripe's 255
 * characters, `<SHA-256 of the key, base64url>:customer`.
 */
export function customerKey(key: string): string {
  const plain = `${key}${CUSTOMER_KEY_SUFFIX}`;
  if (plain.length <= MAX_CHECKOUT_IDEMPOTENCY_KEY_LENGTH) return plain;
  return `${createHash("sha256").update(key).digest("base64url")}${CUSTOMER_KEY_SUFFIX}`;
}

/** The saved method of a SetupIntent that succeeded; its card's details when the method was expanded. */
function savedMethodOf(setup: Stripe.SetupIntent, customer: string): SavedMethod {
  const method = setup.payment_method;
  // A SetupIntent that succeeded always names its method; without one there is nothing to charge later.
  if (method === null) throw checkoutError("provider_unavailable", undefined, "saveMethod");
  const card = typeof method === "string" ? undefined : method.card;
  const brand = card?.brand?.toLowerCase();
  return {
    customer,
    reference: typeof method === "string" ? method : method.id,
    brand: brand === undefined || brand === "" || brand === "unknown" ? null : brand,
    last4: card?.last4 ?? null,
    exp_month: card?.exp_month ?? null,
    exp_year: card?.exp_year ?? null,
  };
}
