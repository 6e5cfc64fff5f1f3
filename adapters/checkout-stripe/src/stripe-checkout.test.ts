import {
  type CheckoutCharge,
  CheckoutPaymentError,
  type SavedMethod,
  type SavedMethodCharge,
  type SaveMethodRequest,
} from "@mailpiece/ports";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import {
  FAKE_CARD,
  FAKE_SECRET_KEY,
  FAKE_TOKENS,
  type FakeStripe,
  startFakeStripe,
  TOKEN_PARAM,
} from "./fake-stripe.fixture.ts";
import {
  createStripeCheckout,
  customerKey,
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

const save = (overrides: Partial<SaveMethodRequest> = {}): SaveMethodRequest => {
  sequence += 1;
  return {
    token: FAKE_TOKENS.ok,
    description: `Acme Inc (ws_${sequence})`,
    idempotency_key: `setup_${sequence}`,
    metadata: { workspace_id: `ws_${sequence}` },
    ...overrides,
  };
};

const refill = (method: SavedMethod, overrides: Partial<SavedMethodCharge> = {}): SavedMethodCharge => {
  sequence += 1;
  return {
    customer: method.customer,
    payment_method: method.reference,
    amount_cents: 5000,
    currency: "usd",
    description: "Prepaid credits, refilled automatically",
    idempotency_key: `refill_${sequence}`,
    metadata: { refill_id: `rf_${sequence}` },
    ...overrides,
  };
};

/** Every Stripe text the fake sends starts its object with "No such" or quotes a card's decline. */
const STRIPE_TEXTS = ["No such", "Your card", "Keys for idempotent"];

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

describe("createStripeCheckout saveMethod", () => {
  it("makes a customer under <key>:customer, then confirms an off_session SetupIntent with the token under the key", async () => {
    const request = save();
    const method = await local().saveMethod(request);
    expect(fake.requests.map((r) => `${r.method} ${r.path}`)).toEqual([
      "POST /v1/customers",
      "POST /v1/setup_intents",
    ]);
    const [customer, setup] = fake.requests;
    expect(customer?.headers["idempotency-key"]).toBe(`${request.idempotency_key}:customer`);
    expect(customer?.params).toEqual({
      description: request.description,
      "metadata[workspace_id]": request.metadata?.workspace_id,
    });
    expect(setup?.headers["idempotency-key"]).toBe(request.idempotency_key);
    expect(setup?.headers["stripe-version"]).toBe(STRIPE_SPT_API_VERSION);
    expect(setup?.params).toEqual({
      customer: method.customer,
      confirm: "true",
      usage: "off_session",
      [TOKEN_PARAM]: FAKE_TOKENS.ok,
      "automatic_payment_methods[enabled]": "true",
      "automatic_payment_methods[allow_redirects]": "never",
      description: request.description,
      "metadata[workspace_id]": request.metadata?.workspace_id,
      "expand[0]": "payment_method",
    });
    expect(fake.customers.has(method.customer)).toBe(true);
    expect(fake.paymentMethods.get(method.reference)?.customer).toBe(method.customer);
    expect(method).toEqual({ customer: method.customer, reference: method.reference, ...FAKE_CARD });
    expect(method.reference).toMatch(/^pm_/);
    expect(method.customer).toMatch(/^cus_/);
  });

  it("saves under the customer given without making one, and answers the same method to a repeat", async () => {
    const payments = local();
    const owner = await payments.saveMethod(save());
    fake.requests.length = 0;
    const request = save({ customer: owner.customer });
    const method = await payments.saveMethod(request);
    expect(method.customer).toBe(owner.customer);
    expect(method.reference).not.toBe(owner.reference);
    expect(await payments.saveMethod({ ...request })).toEqual(method);
    expect(fake.requests.map((r) => `${r.method} ${r.path} ${String(r.headers["idempotency-key"])}`)).toEqual(
      [
        `POST /v1/setup_intents ${request.idempotency_key}`,
        `POST /v1/setup_intents ${request.idempotency_key}`,
      ],
    );
    const saved = [...fake.paymentMethods.values()].filter((pm) => pm.customer === owner.customer);
    expect(saved).toHaveLength(2);
  });

  it("keeps the customer's Idempotency-Key within Stripe's 255 characters, the same for every repeat", async () => {
    const key = "k".repeat(255);
    expect(customerKey("setup_1")).toBe("setup_1:customer");
    expect(customerKey(key).length).toBeLessThanOrEqual(255);
    expect(customerKey(key)).toBe(customerKey(key));
    expect(customerKey(key)).not.toBe(customerKey("j".repeat(255)));
    const request = save({ idempotency_key: key });
    const first = await local().saveMethod(request);
    expect(await local().saveMethod({ ...request })).toEqual(first);
    const customers = fake.requests.filter((r) => r.path === "/v1/customers");
    expect(customers.map((r) => r.headers["idempotency-key"])).toEqual([customerKey(key), customerKey(key)]);
  });

  it("refuses a declined card, one that needs 3-D Secure and an unknown token, never repeating Stripe's text", async () => {
    const payments = local();
    const declined = await refusal(() => payments.saveMethod(save({ token: FAKE_TOKENS.declined })));
    expect(declined.code).toBe("payment_declined");
    expect(declined.message).toContain("insufficient_funds");
    const secure = save({ token: FAKE_TOKENS.requiresAction });
    expect((await refusal(() => payments.saveMethod(secure))).code).toBe("requires_action");
    expect((await refusal(() => payments.saveMethod({ ...secure }))).code).toBe("requires_action");
    expect((await refusal(() => payments.saveMethod({ ...secure, token: FAKE_TOKENS.ok }))).code).toBe(
      "idempotency_conflict",
    );
    const unknown = await refusal(() => payments.saveMethod(save({ token: FAKE_TOKENS.unknown })));
    expect(unknown.code).toBe("invalid_token");
    for (const error of [declined, unknown]) {
      expect(error.cause).toBeUndefined();
      for (const text of [FAKE_TOKENS.declined, FAKE_TOKENS.unknown, ...STRIPE_TEXTS]) {
        expect(error.message).not.toContain(text);
      }
    }
    expect([...fake.paymentMethods.values()].some((pm) => pm.customer === undefined)).toBe(false);
    expect([...fake.setupIntents.values()].filter((s) => s.status === "succeeded")).toHaveLength(
      fake.paymentMethods.size,
    );
  });

  it("refuses a malformed save, a token that is no shared payment token and an unknown customer", async () => {
    const payments = local();
    expect((await refusal(() => payments.saveMethod(save({ token: "pm_card_visa" })))).code).toBe(
      "invalid_token",
    );
    expect((await refusal(() => payments.saveMethod(save({ customer: "cus 1" })))).code).toBe(
      "invalid_request",
    );
    expect((await refusal(() => payments.saveMethod(save({ idempotency_key: "" })))).code).toBe(
      "invalid_request",
    );
    expect(fake.requests).toHaveLength(0);
    const nobody = await refusal(() => payments.saveMethod(save({ customer: "cus_nobody" })));
    expect(nobody.code).toBe("invalid_request");
    expect(nobody.message).not.toContain("cus_nobody");
  });

  it("reads a processing SetupIntent again: unknown at first, the saved method once it succeeded", async () => {
    const payments = local();
    const request = save({ token: FAKE_TOKENS.processing });
    expect((await refusal(() => payments.saveMethod(request))).code).toBe("provider_unavailable");
    const method = await payments.saveMethod({ ...request });
    expect(method).toMatchObject(FAKE_CARD);
    const setup = fake.requests.find((r) => r.method === "GET");
    expect(setup?.path).toMatch(/^\/v1\/setup_intents\/seti_/);
    expect(setup?.params).toEqual({ "expand[0]": "payment_method" });
    expect(fake.requests.map((r) => `${r.method} ${r.path.replace(/seti_\w+/, "seti")}`)).toEqual([
      "POST /v1/customers",
      "POST /v1/setup_intents",
      "GET /v1/setup_intents/seti",
      "POST /v1/customers",
      "POST /v1/setup_intents",
      "GET /v1/setup_intents/seti",
    ]);
  });
});

describe("createStripeCheckout chargeSaved", () => {
  it("confirms an off_session PaymentIntent of the method and customer under the key", async () => {
    const payments = local();
    const method = await payments.saveMethod(save());
    fake.requests.length = 0;
    const request = refill(method, { amount_cents: 2500 });
    const receipt = await payments.chargeSaved(request);
    expect(fake.requests).toHaveLength(1);
    const sent = fake.requests[0];
    expect(`${sent?.method} ${sent?.path}`).toBe("POST /v1/payment_intents");
    expect(sent?.headers["idempotency-key"]).toBe(request.idempotency_key);
    expect(sent?.params).toEqual({
      amount: "2500",
      currency: "usd",
      customer: method.customer,
      payment_method: method.reference,
      off_session: "true",
      confirm: "true",
      description: request.description,
      "metadata[refill_id]": request.metadata?.refill_id,
    });
    const intent = fake.intents.get(receipt.reference);
    expect(intent).toMatchObject({
      status: "succeeded",
      customer: method.customer,
      payment_method: method.reference,
    });
    expect(receipt).toEqual({
      reference: intent?.id,
      amount_cents: 2500,
      currency: "usd",
      paidAt: Number(intent?.created) * 1000,
    });
    const before = fake.charges();
    expect(await payments.chargeSaved({ ...request })).toEqual(receipt);
    expect(fake.charges()).toBe(before);
  });

  it("recovers lost answers by the client's own retries under the same Idempotency-Key", async () => {
    const method = await local().saveMethod(save());
    const request = refill(method);
    const before = fake.charges();
    fake.loseAnswers(2);
    expect((await refusal(() => local().chargeSaved(request))).code).toBe("provider_unavailable");
    fake.loseAnswers(2);
    const receipt = await local({ maxNetworkRetries: undefined }).chargeSaved({ ...request });
    expect(fake.charges()).toBe(before + 1);
    expect(fake.intents.get(receipt.reference)?.status).toBe("succeeded");
  });

  it("refuses an unknown method or customer, and another customer's method, with invalid_token", async () => {
    const payments = local();
    const method = await payments.saveMethod(save());
    const stranger = await payments.saveMethod(save());
    const cases = [
      refill(method, { payment_method: "pm_3Qnothing" }),
      refill(method, { customer: "cus_3Qnobody" }),
      refill(method, { customer: stranger.customer }),
      refill(stranger, { customer: method.customer }),
    ];
    for (const request of cases) {
      const error = await refusal(() => payments.chargeSaved(request));
      expect(error.code).toBe("invalid_token");
      for (const text of ["pm_3Qnothing", "cus_3Qnobody", ...STRIPE_TEXTS])
        expect(error.message).not.toContain(text);
    }
    expect((await payments.chargeSaved(refill(stranger))).amount_cents).toBe(5000);
  });

  it("refuses a card declined off-session on every try, naming the decline code", async () => {
    const payments = local();
    const method = await payments.saveMethod(save({ token: FAKE_TOKENS.declinesOffSession }));
    expect(await payments.charge(charge({ token: FAKE_TOKENS.declinesOffSession }))).toMatchObject({
      amount_cents: 340,
    });
    const request = refill(method);
    const declined = await refusal(() => payments.chargeSaved(request));
    expect(declined.code).toBe("payment_declined");
    expect(declined.message).toContain("do_not_honor");
    expect((await refusal(() => payments.chargeSaved({ ...request }))).code).toBe("payment_declined");
    expect((await refusal(() => payments.chargeSaved({ ...request, amount_cents: 5001 }))).code).toBe(
      "idempotency_conflict",
    );
    for (const text of [FAKE_TOKENS.declinesOffSession, ...STRIPE_TEXTS]) {
      expect(declined.message).not.toContain(text);
    }
  });

  it("maps a card that needs its holder to requires_action, and checks the request before calling Stripe", async () => {
    const payments = local();
    const method = await payments.saveMethod(save());
    fake.answerNext(402, {
      error: {
        type: "card_error",
        code: "authentication_required",
        message: "This payment requires authentication.",
      },
    });
    expect((await refusal(() => payments.chargeSaved(refill(method)))).code).toBe("requires_action");
    fake.requests.length = 0;
    for (const bad of [
      refill(method, { amount_cents: 0 }),
      refill(method, { currency: "eur" as "usd" }),
      refill(method, { payment_method: "pm/1" }),
      refill(method, { customer: "" }),
    ]) {
      expect((await refusal(() => payments.chargeSaved(bad))).code).toBe("invalid_request");
    }
    expect(fake.requests).toHaveLength(0);
  });
});

describe("checkoutErrorFromStripe", () => {
  it("reads a missing customer or payment method as invalid_token for an off-session charge only", () => {
    const missing = { type: "StripeInvalidRequestError", code: "resource_missing", param: "payment_method" };
    expect(checkoutErrorFromStripe(missing, "chargeSaved").code).toBe("invalid_token");
    expect(checkoutErrorFromStripe({ ...missing, code: "x", param: "customer" }, "chargeSaved").code).toBe(
      "invalid_token",
    );
    expect(checkoutErrorFromStripe({ ...missing, param: undefined }, "chargeSaved").code).toBe(
      "invalid_token",
    );
    expect(checkoutErrorFromStripe(missing).code).toBe("invalid_request");
    expect(checkoutErrorFromStripe({ ...missing, param: "customer" }, "saveMethod").code).toBe(
      "invalid_request",
    );
    const other = { type: "StripeInvalidRequestError", code: "parameter_unknown", param: "foo" };
    expect(checkoutErrorFromStripe(other, "chargeSaved").code).toBe("invalid_request");
  });

  it("treats anything it does not know as an unknown outcome, without a cause", () => {
    const error = checkoutErrorFromStripe(new TypeError(`fetch failed for ${FAKE_TOKENS.ok}`));
    expect(error.code).toBe("provider_unavailable");
    expect(error.cause).toBeUndefined();
    expect(error.message).not.toContain(FAKE_TOKENS.ok);
  });
});
