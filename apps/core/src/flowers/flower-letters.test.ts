import { createSimulatedFlorist, FLORIST_TEST_PHRASES } from "@mailpiece/florist-simulated";
import { EXAMPLE_FLOWER_LETTER_REQUEST } from "@mailpiece/flowers";
import {
  FloristError,
  type FloristProvider,
  manualClock,
  type PaymentChallenge,
  PaymentError,
  type PaymentRail,
  randomIds,
  type Store,
} from "@mailpiece/ports";
import { createStoreJobQueue } from "@mailpiece/queue-store";
import { createMppRail, testMethod, testMethodClient } from "@mailpiece/rail-mpp";
import { BASE_SEPOLIA, createLocalFacilitator, createX402Rail } from "@mailpiece/rail-x402";
import { createMemoryStore } from "@mailpiece/store-unstorage";
import { decodePaymentResponseHeader } from "@x402/fetch";
import { Receipt } from "mppx";
import { Mppx } from "mppx/client";
import { describe, expect, it } from "vitest";
import { CoreError } from "../errors.ts";
import { runQueue } from "../job-runner.ts";
import { refusalOf } from "../refusal.fixture.ts";
import { x402Pay } from "../x402-pay.fixture.ts";
import {
  createFlowerLetter,
  FLOWER_SUBMISSIONS_QUEUE,
  type FlowerContext,
  type FlowerCreateOutcome,
  flowerRequestConflict,
  flowerSubmissionWork,
  getFlowerLetter,
  submitFlowerLetter,
  validateFlowerLetter,
} from "./index.ts";

/** Monday 4 May 2026, 10:00 in New York: before the florist's 13:00 same-day cutoff. */
const T0 = Date.parse("2026-05-04T10:00:00-04:00");
const RESOURCE = "https://mailpiece.test/api/machine/flower-letters";
const PAY_TO = "0x209693Bc6afc0C5328bA36FaF03C514EF312287C";
/** A dozen red roses to New York on Wednesday 6 May: 64.99 + 14.99 delivery + 3.99 service + 5.80 tax. */
const ROSES_TOTAL = 8977;

type Body = Record<string, unknown>;

function setup(
  options: { florist?: (base: FloristProvider) => FloristProvider; settleWaitMs?: number } = {},
) {
  const clock = manualClock(T0);
  const store = createMemoryStore({ clock });
  const base = createSimulatedFlorist({ store, clock });
  const florist = options.florist ? options.florist(base) : base;
  const ctx: FlowerContext = {
    store,
    clock,
    ids: randomIds,
    florist,
    payments: {
      store,
      clock,
      jobs: createStoreJobQueue({ store, clock }),
      ids: randomIds,
      rails: {},
      replayClaimTtlMs: 7 * 24 * 3600_000,
      settleWaitMs: options.settleWaitMs ?? 5_000,
      settleLeaseMs: 15_000,
    },
    unpaidRateLimit: { limit: 10, windowMs: 3600_000 },
  };
  return { ctx, clock, store, florist: base };
}

function letter(patch: Body = {}): Body {
  return { ...structuredClone(EXAMPLE_FLOWER_LETTER_REQUEST), request_id: crypto.randomUUID(), ...patch };
}

function toRecipient(zipcode: string, state: string, city: string): Body {
  return letter({ zipcode, recipient: { ...EXAMPLE_FLOWER_LETTER_REQUEST.recipient, zipcode, state, city } });
}

/** A rail that counts the settlements it makes, a little slowly, so concurrent requests overlap. */
function counting(rail: PaymentRail) {
  const counter = { settlements: 0 };
  const wrapped: PaymentRail = {
    ...rail,
    async settle(payment, charge) {
      counter.settlements++;
      await new Promise((resolve) => setTimeout(resolve, 20));
      return rail.settle(payment, charge);
    },
  };
  return { rail: wrapped, counter };
}

function x402Rail() {
  return counting(
    createX402Rail({
      network: BASE_SEPOLIA,
      payTo: PAY_TO,
      facilitator: createLocalFacilitator({ network: BASE_SEPOLIA }),
    }),
  );
}

function mppRail() {
  return counting(
    createMppRail({
      realm: "mailpiece.test",
      secretKey: "flower-letter-test-secret-of-at-least-32-bytes",
      methods: [testMethod()],
    }),
  );
}

/** The mppx client paying one 402 with the test method into an Authorization: Payment header. */
async function mppPay(challenge: PaymentChallenge, token = "tok_test_visa"): Promise<Headers> {
  const headers = new Headers({ "content-type": challenge.contentType });
  for (const [name, value] of Object.entries(challenge.headers)) {
    for (const one of [value].flat()) headers.append(name, one);
  }
  const response = new Response(JSON.stringify(challenge.body), { status: challenge.status, headers });
  const mpp = Mppx.create({ methods: [testMethodClient({ token })], polyfill: false });
  return new Headers({ authorization: await mpp.createCredential(response) });
}

/** Each call comes from a client of its own unless `clientKey` says otherwise, so only the limit's tests meet it. */
function create(
  ctx: FlowerContext,
  rail: PaymentRail,
  raw: string,
  headers = new Headers(),
  clientKey: string = crypto.randomUUID(),
) {
  return createFlowerLetter(ctx, {
    raw,
    body: JSON.parse(raw),
    clientKey,
    payment: {
      rail,
      credential: headers.get(rail.credentialHeader) ?? undefined,
      resourceUrl: (id) => `${RESOURCE}/${id}`,
    },
  });
}

function expectKind<K extends FlowerCreateOutcome["kind"]>(
  outcome: FlowerCreateOutcome,
  kind: K,
): Extract<FlowerCreateOutcome, { kind: K }> {
  expect(outcome.kind, JSON.stringify(outcome)).toBe(kind);
  return outcome as Extract<FlowerCreateOutcome, { kind: K }>;
}

async function floristOrders(store: Store): Promise<number> {
  return (await store.list("florist:simulated:key:")).records.length;
}

async function flowerLetters(store: Store): Promise<number> {
  return (await store.list("flower-letters:")).records.length;
}

async function issuesOf(ctx: FlowerContext, body: Body) {
  const result = await validateFlowerLetter(ctx, body);
  return result.ok ? [] : result.issues.map(({ path, code }) => ({ path, code }));
}

describe("validateFlowerLetter: every rule before the 402", () => {
  it("quotes a valid flower letter with the product, the recipient and the florist's price", async () => {
    const { ctx } = setup();
    const result = await validateFlowerLetter(ctx, letter());
    if (!result.ok) throw new Error(JSON.stringify(result.issues));
    expect(result.view).toMatchObject({
      object: "flower_letter_quote",
      product: { code: "red-roses-dozen", name: "A dozen red roses", price_cents: 6499, currency: "usd" },
      delivery_date: "2026-05-06",
      zipcode: "10118",
      allow_substitutions: true,
      recipient: { name: "Ada Lovelace", city: "New York", state: "NY", zipcode: "10118", country: "US" },
      quote: {
        total_cents: ROSES_TOTAL,
        price_usd: "89.77",
        currency: "usd",
        product_cents: 6499,
        delivery_cents: 1499,
        service_fee_cents: 399,
        tax_cents: 580,
        bounds: { min_cents: 100, max_cents: 25_000 },
      },
    });
    expect(result.view.quote.lines.reduce((sum, l) => sum + l.amount_cents, 0)).toBe(ROSES_TOTAL);
  });

  it("refuses a card note of 201 characters", async () => {
    const { ctx } = setup();
    expect(await issuesOf(ctx, letter({ note: "x".repeat(200) }))).toEqual([]);
    expect(await issuesOf(ctx, letter({ note: "x".repeat(201) }))).toEqual([
      { path: "note", code: "too_long" },
    ]);
  });

  it("refuses a product the florist does not sell, naming the ones it does", async () => {
    const { ctx } = setup();
    const result = await validateFlowerLetter(ctx, letter({ product_code: "blue-roses" }));
    expect(result).toEqual({
      ok: false,
      issues: [
        {
          path: "product_code",
          code: "product_unknown",
          message: expect.stringContaining("red-roses-dozen"),
        },
      ],
    });
  });

  it("refuses a ZIP the florist does not cover", async () => {
    const { ctx } = setup();
    expect(await issuesOf(ctx, toRecipient("99501", "AK", "Anchorage"))).toEqual([
      { path: "zipcode", code: "zip_not_covered" },
    ]);
    expect(
      await issuesOf(ctx, { ...toRecipient("99501", "AK", "Anchorage"), product_code: "blue-roses" }),
    ).toEqual([
      { path: "product_code", code: "product_unknown" },
      { path: "zipcode", code: "zip_not_covered" },
    ]);
  });

  it("refuses a date the florist cannot deliver on, naming dates it can", async () => {
    const { ctx, clock } = setup();
    const sunday = await validateFlowerLetter(ctx, letter({ delivery_date: "2026-05-10" }));
    expect(sunday).toEqual({
      ok: false,
      issues: [
        {
          path: "delivery_date",
          code: "delivery_date_unavailable",
          message: expect.stringContaining("Available dates include 2026-05-11, 2026-05-12"),
        },
      ],
    });
    expect(await issuesOf(ctx, letter({ delivery_date: "2026-05-01" }))).toEqual([
      { path: "delivery_date", code: "delivery_date_unavailable" },
    ]);
    expect(await issuesOf(ctx, letter({ delivery_date: "2026-12-25" }))).toEqual([
      { path: "delivery_date", code: "delivery_date_unavailable" },
    ]);
    // Same day is fine before the cutoff, not after it.
    expect(await issuesOf(ctx, letter({ delivery_date: "2026-05-04" }))).toEqual([]);
    clock.set(Date.parse("2026-05-04T13:00:00-04:00"));
    expect(await issuesOf(ctx, letter({ delivery_date: "2026-05-04" }))).toEqual([
      { path: "delivery_date", code: "delivery_date_unavailable" },
    ]);
  });

  it("refuses a final quote above 250.00", async () => {
    const { ctx } = setup();
    const result = await validateFlowerLetter(
      ctx,
      letter({ product_code: "grand-luxe", delivery_date: "2026-05-07" }),
    );
    expect(result).toEqual({
      ok: false,
      issues: [
        { path: "product_code", code: "quote_out_of_bounds", message: expect.stringContaining("266.73 USD") },
      ],
    });
  });

  it("refuses a final quote below 1.00", async () => {
    const clock = manualClock(T0);
    const store = createMemoryStore({ clock });
    const florist = createSimulatedFlorist({
      store,
      clock,
      catalogue: [
        {
          code: "single-stem",
          name: "A single stem",
          description: "One tulip.",
          price_cents: 90,
          currency: "usd",
        },
      ],
      rules: { deliveryFeeCents: 0, serviceFeeCents: 0, taxRateBasisPoints: 0 },
    });
    const ctx: FlowerContext = { ...setup().ctx, store, clock, florist };
    expect(await issuesOf(ctx, letter({ product_code: "single-stem" }))).toEqual([
      { path: "product_code", code: "quote_out_of_bounds" },
    ]);
    expect(
      await issuesOf(
        { ...ctx, bounds: { min_cents: 50, max_cents: 25_000 } },
        letter({ product_code: "single-stem" }),
      ),
    ).toEqual([]);
  });

  it("lets florist trouble through as the florist's error, and stores nothing", async () => {
    const { ctx, store } = setup({
      florist: (base) => ({
        ...base,
        catalogue: () => Promise.reject(new FloristError("florist_unavailable", "the florist is down")),
      }),
    });
    await expect(validateFlowerLetter(ctx, letter())).rejects.toMatchObject({ code: "florist_unavailable" });
    const { rail } = x402Rail();
    await expect(create(ctx, rail, JSON.stringify(letter()))).rejects.toMatchObject({
      code: "florist_unavailable",
    });
    expect(await flowerLetters(store)).toBe(0);
  });
});

describe("createFlowerLetter: nothing is stored or charged for a bad request", () => {
  it("answers invalid for each rule, before any 402, and stores nothing", async () => {
    const { ctx, store } = setup();
    const { rail } = x402Rail();
    for (const body of [
      letter({ note: "x".repeat(201) }),
      letter({ product_code: "blue-roses" }),
      toRecipient("99501", "AK", "Anchorage"),
      letter({ delivery_date: "2026-05-10" }),
      letter({ product_code: "grand-luxe", delivery_date: "2026-05-07" }),
    ]) {
      const refused = await refusalOf(create(ctx, rail, JSON.stringify(body)));
      expect(refused.code).toBe("validation_failed");
      expect(refused.issues).toHaveLength(1);
    }
    expect(await flowerLetters(store)).toBe(0);
  });
});

describe("createFlowerLetter with x402", () => {
  it("asks for payment, takes it, then submits to the florist; status follows the delivery", async () => {
    const { ctx, store, clock } = setup();
    const { rail, counter } = x402Rail();
    const body = letter();
    const raw = JSON.stringify(body);

    const unpaid = expectKind(await create(ctx, rail, raw), "payment_required");
    expect(unpaid.challenge.status).toBe(402);
    const required = JSON.parse(
      Buffer.from(unpaid.challenge.headers["PAYMENT-REQUIRED"] as string, "base64").toString(),
    );
    expect(required.accepts[0].amount).toBe("89770000");
    expect(unpaid.order).toMatchObject({
      status: "awaiting_payment",
      payment_status: "unpaid",
      is_paid: false,
    });
    expect(await floristOrders(store)).toBe(0);

    const paid = expectKind(await create(ctx, rail, raw, await x402Pay(unpaid.challenge)), "accepted");
    expect(counter.settlements).toBe(1);
    expect(decodePaymentResponseHeader(paid.receiptHeaders["PAYMENT-RESPONSE"]!).success).toBe(true);
    expect(paid.order).toMatchObject({
      order_id: unpaid.order.order_id,
      request_id: body.request_id,
      status: "submitted",
      payment_status: "paid",
      is_paid: true,
      terminal: false,
      quote: { total_cents: ROSES_TOTAL },
      payment: { protocol: "x402", amount_cents: ROSES_TOTAL },
      submission: { attempts: 1, reference: expect.stringMatching(/^flo_/), last_error: null },
      delivery: { status: "accepted" },
    });
    expect(await floristOrders(store)).toBe(1);

    const byRequest = await getFlowerLetter(ctx, body.request_id as string);
    expect(byRequest?.order_id).toBe(paid.order.order_id);
    clock.set(Date.parse("2026-05-06T15:00:00-04:00"));
    const delivered = await getFlowerLetter(ctx, paid.order.order_id);
    expect(delivered).toMatchObject({ terminal: true, delivery: { status: "delivered" } });
    expect(delivered?.delivery?.events.map((e) => e.status)).toEqual([
      "accepted",
      "out_for_delivery",
      "delivered",
    ]);
  });

  it("answers a paid retry with 200 and the same receipt, settling nothing and ordering nothing again", async () => {
    const { ctx, store } = setup();
    const { rail, counter } = x402Rail();
    const raw = JSON.stringify(letter());
    const unpaid = expectKind(await create(ctx, rail, raw), "payment_required");
    const paid = expectKind(await create(ctx, rail, raw, await x402Pay(unpaid.challenge)), "accepted");
    // A second agent run with a fresh wallet signs a new payment: it must not be taken.
    const again = expectKind(await create(ctx, rail, raw, await x402Pay(unpaid.challenge)), "already_paid");
    expect(again.receiptHeaders).toEqual(paid.receiptHeaders);
    expect(again.order.order_id).toBe(paid.order.order_id);
    const plain = expectKind(await create(ctx, rail, raw), "already_paid");
    expect(plain.order.is_paid).toBe(true);
    expect(counter.settlements).toBe(1);
    expect(await floristOrders(store)).toBe(1);
  });

  it("refuses a changed body under a used request_id with 409, on create and for validate", async () => {
    const { ctx, store } = setup();
    const { rail } = x402Rail();
    const body = letter();
    expectKind(await create(ctx, rail, JSON.stringify(body)), "payment_required");
    const changed = JSON.stringify({ ...body, note: "A different note." });
    const refused = await refusalOf(create(ctx, rail, changed));
    expect(refused.code).toBe("request_id_conflict");
    expect(await flowerRequestConflict(ctx, body.request_id as string, changed)).toBe(true);
    expect(await flowerRequestConflict(ctx, body.request_id as string, JSON.stringify(body))).toBe(false);
    expectKind(await create(ctx, rail, JSON.stringify(body)), "payment_required");
    expect(await flowerLetters(store)).toBe(1);
  });

  it("settles once for 20 concurrent identical paid retries, and orders flowers once", async () => {
    const { ctx, store } = setup();
    const { rail, counter } = x402Rail();
    const raw = JSON.stringify(letter());
    const unpaid = expectKind(await create(ctx, rail, raw), "payment_required");
    const headers = await x402Pay(unpaid.challenge);
    const answers = await Promise.all(Array.from({ length: 20 }, () => create(ctx, rail, raw, headers)));
    const kinds = answers.map((a) => a.kind);
    expect(kinds.filter((k) => k === "accepted")).toHaveLength(1);
    expect(kinds.filter((k) => k === "already_paid")).toHaveLength(19);
    expect(counter.settlements).toBe(1);
    expect(await flowerLetters(store)).toBe(1);
    expect(await floristOrders(store)).toBe(1);
    const ids = new Set(answers.map((a) => ("order" in a ? a.order.order_id : undefined)));
    expect(ids).toEqual(new Set([unpaid.order.order_id]));
  });

  it("settles once when different credentials for one flower letter race each other", async () => {
    const { ctx, store } = setup();
    const { rail, counter } = x402Rail();
    const raw = JSON.stringify(letter());
    const unpaid = expectKind(await create(ctx, rail, raw), "payment_required");
    const wallets = await Promise.all(Array.from({ length: 10 }, () => x402Pay(unpaid.challenge)));
    const answers = await Promise.all(wallets.map((headers) => create(ctx, rail, raw, headers)));
    expect(answers.filter((a) => a.kind === "accepted")).toHaveLength(1);
    expect(answers.every((a) => a.kind === "accepted" || a.kind === "already_paid")).toBe(true);
    expect(counter.settlements).toBe(1);
    expect(await floristOrders(store)).toBe(1);
  });

  it("makes one flower letter from 20 concurrent first requests", async () => {
    const { ctx, store } = setup();
    const { rail } = x402Rail();
    const raw = JSON.stringify(letter());
    const answers = await Promise.all(Array.from({ length: 20 }, () => create(ctx, rail, raw)));
    expect(new Set(answers.map((a) => expectKind(a, "payment_required").order.order_id)).size).toBe(1);
    expect(await flowerLetters(store)).toBe(1);
  });

  it("refuses a payment credential replayed for another flower letter", async () => {
    const { ctx, store } = setup();
    const { rail, counter } = x402Rail();
    const first = JSON.stringify(letter());
    const unpaid = expectKind(await create(ctx, rail, first), "payment_required");
    const headers = await x402Pay(unpaid.challenge);
    expectKind(await create(ctx, rail, first, headers), "accepted");
    const other = letter();
    const replayed = expectKind(await create(ctx, rail, JSON.stringify(other), headers), "payment_required");
    // The credential names the order it was signed for, so it is refused before the facilitator is asked.
    expect(replayed.error?.code).toBe("payment_mismatch");
    expect(counter.settlements).toBe(1);
    expect(await getFlowerLetter(ctx, other.request_id as string)).toMatchObject({
      payment_status: "unpaid",
    });
    expect(await floristOrders(store)).toBe(1);
  });

  it("refuses an x402 payment signed for one flower letter when it is sent for another at the same price", async () => {
    const { ctx, store } = setup();
    const { rail, counter } = x402Rail();
    const a = JSON.stringify(letter());
    const b = JSON.stringify(letter());
    const unpaidA = expectKind(await create(ctx, rail, a), "payment_required");
    const unpaidB = expectKind(await create(ctx, rail, b), "payment_required");
    expect(unpaidB.order.quote.total_cents).toBe(unpaidA.order.quote.total_cents);
    const signedForA = await x402Pay(unpaidA.challenge);
    const refused = expectKind(await create(ctx, rail, b, signedForA), "payment_required");
    expect(refused.error?.code).toBe("payment_mismatch");
    expect(counter.settlements).toBe(0);
    // A's own retry still pays A.
    expectKind(await create(ctx, rail, a, signedForA), "accepted");
    expect(counter.settlements).toBe(1);
    expect(await floristOrders(store)).toBe(1);
  });

  it("counts new flower letters against the client's unpaid limit, garbage payment headers included", async () => {
    const { ctx, store } = setup();
    ctx.unpaidRateLimit = { limit: 3, windowMs: 60 * 60 * 1000 };
    const { rail } = x402Rail();
    const client = "198.51.100.7";
    const garbage = new Headers({ "payment-signature": "bm90IGEgcGF5bWVudA==" });
    const answers = [];
    for (let i = 0; i < 5; i++)
      answers.push(
        await create(ctx, rail, JSON.stringify(letter()), i % 2 ? garbage : new Headers(), client).then(
          (outcome) => outcome.kind,
          (error: unknown) => (CoreError.isInstance(error) ? error.code : Promise.reject(error)),
        ),
      );
    expect(answers).toEqual([
      "payment_required",
      "payment_required",
      "payment_required",
      "rate_limited",
      "rate_limited",
    ]);
    expect(await flowerLetters(store)).toBe(3);
    // Another client is not held back, and the identical retry of a stored letter is not a new creation.
    expectKind(
      await create(ctx, rail, JSON.stringify(letter()), new Headers(), "198.51.100.8"),
      "payment_required",
    );
  });

  it("charges the price of the 402 even when the florist's price has moved since", async () => {
    const { ctx, clock } = setup();
    const { rail } = x402Rail();
    const raw = JSON.stringify(letter({ delivery_date: "2026-05-05" }));
    const unpaid = expectKind(await create(ctx, rail, raw), "payment_required");
    expect(unpaid.order.quote.total_cents).toBe(ROSES_TOTAL);
    // The next morning the same date is same-day delivery, which costs more now.
    clock.set(Date.parse("2026-05-05T09:00:00-04:00"));
    const now = await validateFlowerLetter(ctx, letter({ delivery_date: "2026-05-05" }));
    expect(now.ok && now.view.quote.total_cents).toBeGreaterThan(ROSES_TOTAL);
    const paid = expectKind(await create(ctx, rail, raw, await x402Pay(unpaid.challenge)), "accepted");
    expect(paid.order.payment?.amount_cents).toBe(ROSES_TOTAL);
  });

  it("refuses to take payment once the delivery date can no longer be booked", async () => {
    const { ctx, clock, store } = setup();
    const { rail, counter } = x402Rail();
    const raw = JSON.stringify(letter({ delivery_date: "2026-05-04" }));
    const unpaid = expectKind(await create(ctx, rail, raw), "payment_required");
    clock.set(Date.parse("2026-05-04T13:30:00-04:00"));
    const late = await refusalOf(create(ctx, rail, raw, await x402Pay(unpaid.challenge)));
    expect(late.issues.map((i) => i.code)).toEqual(["delivery_date_unavailable"]);
    expect(counter.settlements).toBe(0);
    expect(await floristOrders(store)).toBe(0);
  });

  it("answers a failed settlement with a new challenge and orders nothing", async () => {
    const { ctx, store } = setup();
    const { rail } = x402Rail();
    const failing: PaymentRail = {
      ...rail,
      settle: () => Promise.reject(new PaymentError("settlement_failed", "insufficient funds")),
    };
    const raw = JSON.stringify(letter());
    const unpaid = expectKind(await create(ctx, failing, raw), "payment_required");
    const refused = expectKind(
      await create(ctx, failing, raw, await x402Pay(unpaid.challenge)),
      "payment_required",
    );
    expect(refused.error?.code).toBe("settlement_failed");
    expect(refused.order.payment_status).toBe("unpaid");
    expect(await floristOrders(store)).toBe(0);
  });

  it("keeps an order whose settlement outcome is unknown as settling: no florist, no second charge", async () => {
    const { ctx, store } = setup({ settleWaitMs: 50 });
    const { rail, counter } = x402Rail();
    const unknown: PaymentRail = {
      ...rail,
      async settle() {
        counter.settlements++;
        throw new PaymentError("facilitator_unavailable", "no answer from the facilitator");
      },
    };
    const raw = JSON.stringify(letter());
    const unpaid = expectKind(await create(ctx, unknown, raw), "payment_required");
    const pending = expectKind(await create(ctx, unknown, raw, await x402Pay(unpaid.challenge)), "accepted");
    expect(pending.order).toMatchObject({
      payment_status: "settled_pending_webhook",
      status: "awaiting_payment",
    });
    const retry = expectKind(await create(ctx, unknown, raw, await x402Pay(unpaid.challenge)), "accepted");
    expect(retry.order.payment_status).toBe("settled_pending_webhook");
    expect(counter.settlements).toBe(1);
    expect(await floristOrders(store)).toBe(0);
  });
});

describe("createFlowerLetter with MPP", () => {
  it("asks for payment with WWW-Authenticate, takes the test method's credential, then submits", async () => {
    const { ctx, store } = setup();
    const { rail, counter } = mppRail();
    const raw = JSON.stringify(letter());
    const unpaid = expectKind(await create(ctx, rail, raw), "payment_required");
    expect(unpaid.challenge.status).toBe(402);
    expect(unpaid.challenge.contentType).toBe("application/problem+json");
    expect([unpaid.challenge.headers["WWW-Authenticate"]].flat()[0]).toMatch(/^Payment /);

    const headers = await mppPay(unpaid.challenge);
    const paid = expectKind(await create(ctx, rail, raw, headers), "accepted");
    expect(Receipt.deserialize(paid.receiptHeaders["Payment-Receipt"]!).status).toBe("success");
    expect(paid.order).toMatchObject({
      status: "submitted",
      payment_status: "paid",
      payment: { protocol: "mpp", amount_cents: ROSES_TOTAL },
      delivery: { status: "accepted" },
    });

    // The same credential again: the replay claim holds, the order answers 200, nothing moves.
    const replayed = expectKind(await create(ctx, rail, raw, headers), "already_paid");
    expect(replayed.receiptHeaders).toEqual(paid.receiptHeaders);
    expect(counter.settlements).toBe(1);
    expect(await floristOrders(store)).toBe(1);
  });

  it("refuses a declined test token and keeps the order unpaid", async () => {
    const { ctx, store } = setup();
    const { rail, counter } = mppRail();
    const raw = JSON.stringify(letter());
    const unpaid = expectKind(await create(ctx, rail, raw), "payment_required");
    const declined = expectKind(
      await create(ctx, rail, raw, await mppPay(unpaid.challenge, "tok_test_declined")),
      "payment_required",
    );
    expect(declined.error?.code).toBe("verification_failed");
    expect(declined.order.payment_status).toBe("unpaid");
    expect(counter.settlements).toBe(0);
    expect(await floristOrders(store)).toBe(0);
  });

  it("refuses an MPP credential for another flower letter", async () => {
    const { ctx } = setup();
    const { rail, counter } = mppRail();
    const first = JSON.stringify(letter());
    const unpaid = expectKind(await create(ctx, rail, first), "payment_required");
    const headers = await mppPay(unpaid.challenge);
    expectKind(await create(ctx, rail, first, headers), "accepted");
    const other = JSON.stringify(letter());
    const refused = expectKind(await create(ctx, rail, other, headers), "payment_required");
    expect(refused.error).toBeDefined();
    expect(refused.order.payment_status).toBe("unpaid");
    expect(counter.settlements).toBe(1);
  });
});

describe("submitting to the florist after payment", () => {
  it("leaves a paid letter queued when the florist's answer is lost, and a paid retry submits it once", async () => {
    const { ctx, store } = setup();
    const { rail, counter } = x402Rail();
    const body = letter({
      recipient: {
        ...EXAMPLE_FLOWER_LETTER_REQUEST.recipient,
        address1: `350 Fifth Avenue, ${FLORIST_TEST_PHRASES.submitTimeout}`,
      },
    });
    const raw = JSON.stringify(body);
    const unpaid = expectKind(await create(ctx, rail, raw), "payment_required");
    const paid = expectKind(await create(ctx, rail, raw, await x402Pay(unpaid.challenge)), "accepted");
    expect(paid.order).toMatchObject({
      status: "submission_queued",
      payment_status: "paid",
      submission: { attempts: 1, reference: null, last_error: { code: "florist_unavailable" } },
      delivery: null,
    });
    const retry = expectKind(await create(ctx, rail, raw), "already_paid");
    expect(retry.order).toMatchObject({
      status: "submitted",
      submission: { attempts: 2, reference: expect.stringMatching(/^flo_/), last_error: null },
    });
    expect(counter.settlements).toBe(1);
    expect(await floristOrders(store)).toBe(1);
  });

  it("lets a worker submit a queued letter again with submitFlowerLetter, and never an unpaid one", async () => {
    let down = true;
    const { ctx, store } = setup({
      florist: (base) => ({
        ...base,
        submit: (order, options) =>
          down
            ? Promise.reject(new FloristError("florist_unavailable", "timeout"))
            : base.submit(order, options),
      }),
    });
    const { rail } = x402Rail();
    const raw = JSON.stringify(letter());
    const unpaid = expectKind(await create(ctx, rail, raw), "payment_required");
    expect(await submitFlowerLetter(ctx, unpaid.order.order_id)).toMatchObject({
      status: "awaiting_payment",
    });
    const paid = expectKind(await create(ctx, rail, raw, await x402Pay(unpaid.challenge)), "accepted");
    expect(paid.order.status).toBe("submission_queued");
    expect(await submitFlowerLetter(ctx, paid.order.order_id)).toMatchObject({
      status: "submission_queued",
      submission: { attempts: 2 },
    });
    down = false;
    expect(await submitFlowerLetter(ctx, paid.order.order_id)).toMatchObject({
      status: "submitted",
      submission: { attempts: 3 },
    });
    expect(await submitFlowerLetter(ctx, paid.order.order_id)).toMatchObject({ submission: { attempts: 3 } });
    expect(await floristOrders(store)).toBe(1);
    expect(await submitFlowerLetter(ctx, crypto.randomUUID())).toBeUndefined();
  });

  it("queues a paid letter whose submission failed, and the worker's retry submits it once the florist is back", async () => {
    let down = true;
    const { ctx, store, clock } = setup({
      florist: (base) => ({
        ...base,
        submit: (order, options) =>
          down
            ? Promise.reject(new FloristError("florist_unavailable", "timeout"))
            : base.submit(order, options),
      }),
    });
    const { rail } = x402Rail();
    const raw = JSON.stringify(letter());
    const unpaid = expectKind(await create(ctx, rail, raw), "payment_required");
    const paid = expectKind(await create(ctx, rail, raw, await x402Pay(unpaid.challenge)), "accepted");
    expect(paid.order.status).toBe("submission_queued");
    const id = paid.order.order_id;
    const jobs = ctx.payments.jobs;
    const retry = () => runQueue(jobs, flowerSubmissionWork(ctx), { owner: "test", leaseMs: 10_000 });
    expect(await jobs.get(FLOWER_SUBMISSIONS_QUEUE, id)).toMatchObject({ state: "pending" });
    // Not due while the request that paid may still be submitting it.
    expect(await retry()).toBe(0);
    clock.advance(10_000);
    expect(await retry()).toBe(1);
    expect((await getFlowerLetter(ctx, id))?.submission).toMatchObject({ attempts: 2 });
    const again = (await jobs.get(FLOWER_SUBMISSIONS_QUEUE, id))!;
    // Backing off with its attempts: 2 s after the first, 4 s after the second.
    expect(again.runAt).toBe(clock.now() + 4000);
    down = false;
    clock.advance(4000);
    expect(await retry()).toBe(1);
    expect((await getFlowerLetter(ctx, id))?.status).toBe("submitted");
    expect(await jobs.get(FLOWER_SUBMISSIONS_QUEUE, id)).toBeUndefined();
    clock.advance(3600_000);
    expect(await retry()).toBe(0);
    expect(await floristOrders(store)).toBe(1);
  });

  it("marks a letter the florist refuses for good after payment as submission_failed, terminal", async () => {
    const { ctx } = setup({
      florist: (base) => ({
        ...base,
        submit: () => Promise.reject(new FloristError("delivery_date_unavailable", "sold out for that day")),
      }),
    });
    const { rail } = x402Rail();
    const raw = JSON.stringify(letter());
    const unpaid = expectKind(await create(ctx, rail, raw), "payment_required");
    const paid = expectKind(await create(ctx, rail, raw, await x402Pay(unpaid.challenge)), "accepted");
    expect(paid.order).toMatchObject({
      status: "submission_failed",
      terminal: true,
      is_paid: true,
      submission: { last_error: { code: "delivery_date_unavailable" } },
    });
    expect(await submitFlowerLetter(ctx, paid.order.order_id)).toMatchObject({ submission: { attempts: 1 } });
  });
});

describe("getFlowerLetter", () => {
  it("finds a letter by order id or request_id, and nothing for unknown or malformed ids", async () => {
    const { ctx } = setup();
    const { rail } = x402Rail();
    const body = letter();
    const unpaid = expectKind(await create(ctx, rail, JSON.stringify(body)), "payment_required");
    expect((await getFlowerLetter(ctx, unpaid.order.order_id))?.request_id).toBe(body.request_id);
    expect((await getFlowerLetter(ctx, body.request_id as string))?.order_id).toBe(unpaid.order.order_id);
    expect(await getFlowerLetter(ctx, crypto.randomUUID())).toBeUndefined();
    expect(await getFlowerLetter(ctx, "../etc/passwd")).toBeUndefined();
    expect(await getFlowerLetter(ctx, "")).toBeUndefined();
  });

  it("shows the stored letter without delivery when the florist cannot be reached", async () => {
    let reachable = true;
    const { ctx } = setup({
      florist: (base) => ({
        ...base,
        status: (reference) =>
          reachable
            ? base.status(reference)
            : Promise.reject(new FloristError("florist_unavailable", "down")),
      }),
    });
    const { rail } = x402Rail();
    const raw = JSON.stringify(letter());
    const unpaid = expectKind(await create(ctx, rail, raw), "payment_required");
    const paid = expectKind(await create(ctx, rail, raw, await x402Pay(unpaid.challenge)), "accepted");
    reachable = false;
    expect(await getFlowerLetter(ctx, paid.order.order_id)).toMatchObject({
      status: "submitted",
      delivery: null,
    });
  });
});
