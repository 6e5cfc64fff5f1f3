import { type CheckoutCharge, CheckoutPaymentError } from "@mailpiece/ports";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import {
  FAKE_SECRET_KEY,
  FAKE_TOKENS,
  type FakeStripe,
  startFakeStripe,
  TOKEN_PARAM,
} from "./fake-stripe.fixture.ts";
import {
  createStripeCheckout,
  STRIPE_SPT_API_VERSION,
  type StripeCheckoutOptions,
} from "./stripe-checkout.ts";
import { checkoutErrorFromStripe } from "./stripe-errors.ts";

let fake: FakeStripe;

beforeAll(async () => {
  fake = await startFakeStripe();
});

afterAll(async () => {
  await fake?.close();
});

beforeEach(() => {
  fake.heal();
  fake.requests.length = 0;
});

/** Every client in these tests talks to the local fake only. */
const local = (options: Partial<StripeCheckoutOptions> = {}) =>
  createStripeCheckout({
    secretKey: FAKE_SECRET_KEY,
    maxNetworkRetries: 0,
    ...options,
    host: "127.0.0.1",
    port: fake.port,
    protocol: "http",
  });

let sequence = 0;
const charge = (overrides: Partial<CheckoutCharge> = {}): CheckoutCharge => {
  sequence += 1;
  return {
    token: FAKE_TOKENS.ok,
    amount_cents: 340,
    currency: "usd",
    description: "One letter, printed and posted by US First-Class Mail",
    idempotency_key: `cs_test_${sequence}`,
    metadata: { order_id: `ord_${sequence}`, session_id: `cs_test_${sequence}` },
    ...overrides,
  };
};

async function refusal(action: () => Promise<unknown>): Promise<CheckoutPaymentError> {
  const error = await action().then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!CheckoutPaymentError.isInstance(error))
    throw new Error(`expected a CheckoutPaymentError, got ${String(error)}`);
  return error as CheckoutPaymentError;
}

describe("createStripeCheckout", () => {
  it("creates and confirms a PaymentIntent with the token in payment_method_data and the key as Idempotency-Key", async () => {
    const request = charge({ amount_cents: 1234 });
    const receipt = await local().charge(request);
    expect(fake.requests).toHaveLength(1);
    const sent = fake.requests[0];
    expect(sent?.method).toBe("POST");
    expect(sent?.path).toBe("/v1/payment_intents");
    expect(sent?.headers["idempotency-key"]).toBe(request.idempotency_key);
    expect(sent?.headers["stripe-version"]).toBe(STRIPE_SPT_API_VERSION);
    expect(sent?.headers.authorization).toBe(`Bearer ${FAKE_SECRET_KEY}`);
    expect(sent?.params).toEqual({
      amount: "1234",
      currency: "usd",
      confirm: "true",
      description: request.description,
      "metadata[order_id]": request.metadata?.order_id,
      "metadata[session_id]": request.metadata?.session_id,
      "automatic_payment_methods[enabled]": "true",
      "automatic_payment_methods[allow_redirects]": "never",
      [TOKEN_PARAM]: FAKE_TOKENS.ok,
    });
    const intent = fake.intents.get(receipt.reference);
    expect(intent?.status).toBe("succeeded");
    expect(receipt).toEqual({
      reference: intent?.id,
      amount_cents: 1234,
      currency: "usd",
      paidAt: Number(intent?.created) * 1000,
    });
  });

  it("sends the configured API version", async () => {
    await local({ apiVersion: "2026-07-29.preview" }).charge(charge());
    expect(fake.requests[0]?.headers["stripe-version"]).toBe("2026-07-29.preview");
  });

  it("answers the same PaymentIntent to a repeat, which Stripe replays without a second charge", async () => {
    const payments = local();
    const request = charge();
    const before = fake.charges();
    const first = await payments.charge(request);
    expect(await payments.charge({ ...request })).toEqual(first);
    expect(fake.charges()).toBe(before + 1);
    expect(fake.requests.map((r) => r.headers["idempotency-key"])).toEqual([
      request.idempotency_key,
      request.idempotency_key,
    ]);
  });

  it("recovers lost answers by the client's own retries under the same Idempotency-Key (default retries)", async () => {
    const request = charge();
    const before = fake.charges();
    // Two lost answers are more than the client's reconnect after a dropped connection, which it always makes.
    fake.loseAnswers(2);
    expect((await refusal(() => local().charge(request))).code).toBe("provider_unavailable");
    fake.loseAnswers(2);
    const receipt = await local({ maxNetworkRetries: undefined }).charge({ ...request });
    expect(fake.charges()).toBe(before + 1);
    expect(fake.requests.map((r) => r.headers["idempotency-key"])).toEqual(
      Array(5).fill(request.idempotency_key),
    );
    expect(fake.intents.get(receipt.reference)?.status).toBe("succeeded");
  });

  it("reads a processing PaymentIntent again: unknown at first, the same PaymentIntent once it succeeded", async () => {
    const payments = local();
    const request = charge({ token: FAKE_TOKENS.processing });
    expect((await refusal(() => payments.charge(request))).code).toBe("provider_unavailable");
    const receipt = await payments.charge({ ...request });
    expect(fake.intents.get(receipt.reference)?.status).toBe("succeeded");
    expect(fake.requests.map((r) => `${r.method} ${r.path}`)).toEqual([
      "POST /v1/payment_intents",
      `GET /v1/payment_intents/${receipt.reference}`,
      "POST /v1/payment_intents",
      `GET /v1/payment_intents/${receipt.reference}`,
    ]);
  });

  it("refuses a token that is no shared payment token and a malformed request without calling Stripe", async () => {
    const payments = local();
    expect((await refusal(() => payments.charge(charge({ token: "pm_card_visa" })))).code).toBe(
      "invalid_token",
    );
    expect((await refusal(() => payments.charge(charge({ amount_cents: 0 })))).code).toBe("invalid_request");
    expect((await refusal(() => payments.charge(charge({ idempotency_key: "" })))).code).toBe(
      "invalid_request",
    );
    expect(fake.requests).toHaveLength(0);
  });

  it("names the decline reason and never repeats Stripe's text, which quotes the token", async () => {
    const payments = local();
    const declined = await refusal(() => payments.charge(charge({ token: FAKE_TOKENS.declined })));
    expect(declined.code).toBe("payment_declined");
    expect(declined.message).toContain("insufficient_funds");
    const unknown = await refusal(() => payments.charge(charge({ token: FAKE_TOKENS.unknown })));
    expect(unknown.code).toBe("invalid_token");
    expect(unknown.message).not.toContain(FAKE_TOKENS.unknown);
    expect(unknown.cause).toBeUndefined();
  });

  it("maps Stripe's other errors, keeping the secret key out of them", async () => {
    const payments = local();
    const cases: Array<[number, Record<string, unknown>, string]> = [
      [500, { type: "api_error", message: "Something went wrong on Stripe's end." }, "provider_unavailable"],
      [
        401,
        { type: "invalid_request_error", message: `Invalid API Key provided: ${FAKE_SECRET_KEY}` },
        "provider_unavailable",
      ],
      [
        429,
        { type: "invalid_request_error", code: "rate_limit", message: "Too many requests" },
        "provider_unavailable",
      ],
      [
        409,
        { type: "idempotency_error", code: "idempotency_key_in_use", message: "in use" },
        "provider_unavailable",
      ],
      [
        400,
        { type: "idempotency_error", message: "Keys for idempotent requests..." },
        "idempotency_conflict",
      ],
      [402, { type: "card_error", code: "authentication_required", message: "3DS" }, "requires_action"],
      [
        400,
        { type: "invalid_request_error", code: "parameter_unknown", param: "foo", message: "x" },
        "invalid_request",
      ],
    ];
    for (const [status, body, code] of cases) {
      fake.answerNext(status, { error: body });
      const error = await refusal(() => payments.charge(charge()));
      expect(`${status} ${String(body.type)}: ${error.code}`).toBe(`${status} ${String(body.type)}: ${code}`);
      expect(error.message).not.toContain(FAKE_SECRET_KEY);
      expect(error.message).not.toContain(FAKE_TOKENS.ok);
    }
  });

  it("is simulated with a test-mode key only, and refuses a malformed key without repeating it", () => {
    expect(local().simulated).toBe(true);
    expect(local().name).toBe("stripe");
    expect(local({ secretKey: "rk_test_51Restricted" }).simulated).toBe(true);
    expect(local({ secretKey: "sk_live_51LiveKey" }).simulated).toBe(false);
    expect(() => local({ secretKey: "pk_test_51Publishable" })).toThrow(TypeError);
    expect(() => local({ secretKey: "" })).toThrow(/secret key/);
    try {
      local({ secretKey: "pk_test_51Publishable" });
    } catch (error) {
      expect(String(error)).not.toContain("pk_test_51Publishable");
    }
  });
});

describe("checkoutErrorFromStripe", () => {
  it("treats anything it does not know as an unknown outcome, without a cause", () => {
    const error = checkoutErrorFromStripe(new TypeError(`fetch failed for ${FAKE_TOKENS.ok}`));
    expect(error.code).toBe("provider_unavailable");
    expect(error.cause).toBeUndefined();
    expect(error.message).not.toContain(FAKE_TOKENS.ok);
  });
});
