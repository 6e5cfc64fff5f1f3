import {
  type CheckoutCharge,
  CheckoutPaymentError,
  manualClock,
  type SavedMethod,
  type SavedMethodCharge,
  type SaveMethodRequest,
  type Store,
} from "@mailpiece/ports";
import { createMemoryStore } from "@mailpiece/store-unstorage";
import { describe, expect, it } from "vitest";
import { type CheckoutLedger, memoryCheckoutLedger, storeCheckoutLedger } from "./checkout-ledger.ts";
import { createTestCheckout, TEST_CARD_EXP_YEAR } from "./test-checkout.ts";
import { CHECKOUT_TEST_TOKENS, testTokenOutcome } from "./test-tokens.ts";

const charge = (overrides: Partial<CheckoutCharge> = {}): CheckoutCharge => ({
  token: CHECKOUT_TEST_TOKENS.ok,
  amount_cents: 340,
  currency: "usd",
  description: "One letter",
  idempotency_key: "cs_1",
  metadata: { order_id: "ord_1" },
  ...overrides,
});

const save = (overrides: Partial<SaveMethodRequest> = {}): SaveMethodRequest => ({
  token: CHECKOUT_TEST_TOKENS.ok,
  description: "Acme Inc (ws_1)",
  idempotency_key: "setup_1",
  metadata: { workspace_id: "ws_1" },
  ...overrides,
});

const refill = (method: SavedMethod, overrides: Partial<SavedMethodCharge> = {}): SavedMethodCharge => ({
  customer: method.customer,
  payment_method: method.reference,
  amount_cents: 5000,
  currency: "usd",
  description: "Prepaid credits",
  idempotency_key: "refill_1",
  ...overrides,
});

/** UUIDs 00000000-0000-4000-8000-000000000001, ...02 and so on. */
const countingIds = () => {
  let n = 0;
  return { uuid: () => `00000000-0000-4000-8000-${String(++n).padStart(12, "0")}` };
};

async function codeOf(action: () => Promise<unknown>): Promise<string> {
  try {
    await action();
  } catch (error) {
    if (CheckoutPaymentError.isInstance(error)) return error.code;
    throw error;
  }
  return "paid";
}

describe("testTokenOutcome", () => {
  it("pays spt_test_ok and spt_test_ok_<suffix>, declines, asks for 3-D Secure, and knows nothing else", () => {
    expect(testTokenOutcome("spt_test_ok")).toBe("paid");
    expect(testTokenOutcome("spt_test_ok_alice")).toBe("paid");
    expect(testTokenOutcome("spt_test_ok_")).toBe("invalid_token");
    expect(testTokenOutcome("spt_test_okay")).toBe("invalid_token");
    expect(testTokenOutcome("spt_test_declined")).toBe("payment_declined");
    expect(testTokenOutcome("spt_test_3ds")).toBe("requires_action");
    expect(testTokenOutcome("spt_test_3ds_x")).toBe("invalid_token");
    expect(testTokenOutcome("spt_live_abc")).toBe("invalid_token");
    expect(testTokenOutcome("spt_test_declines_off_session")).toBe("paid");
  });
});

describe("createTestCheckout", () => {
  it("answers a simulated receipt with a ch_test_ reference, the amount and the clock's time", async () => {
    const clock = manualClock(Date.UTC(2026, 4, 4, 12));
    const ids = { uuid: () => "0f8e4b2a-1c3d-4e5f-8a9b-0c1d2e3f4a5b" };
    const payments = createTestCheckout({ clock, ids });
    expect(payments.simulated).toBe(true);
    expect(payments.name).toBe("test");
    expect(await payments.charge(charge())).toEqual({
      reference: "ch_test_0f8e4b2a1c3d4e5f8a9b0c1d2e3f4a5b",
      amount_cents: 340,
      currency: "usd",
      paidAt: Date.UTC(2026, 4, 4, 12),
    });
  });

  it("answers the first receipt to a repeat, also once the clock has moved", async () => {
    const clock = manualClock();
    const payments = createTestCheckout({ clock });
    const first = await payments.charge(charge());
    clock.advance(60_000);
    expect(await payments.charge(charge())).toEqual(first);
    expect((await payments.charge(charge({ idempotency_key: "cs_2" }))).paidAt).toBe(first.paidAt + 60_000);
  });

  it("compares amount, currency and token under a key, not the description or metadata", async () => {
    const payments = createTestCheckout();
    const first = await payments.charge(charge());
    expect(await payments.charge(charge({ description: "Another text", metadata: {} }))).toEqual(first);
    expect(await codeOf(() => payments.charge(charge({ amount_cents: 341 })))).toBe("idempotency_conflict");
    expect(await codeOf(() => payments.charge(charge({ token: "spt_test_ok_bob" })))).toBe(
      "idempotency_conflict",
    );
  });

  it("keeps a decline under its key, and lets an unknown token or a malformed request take no key", async () => {
    const payments = createTestCheckout();
    const declined = charge({ token: CHECKOUT_TEST_TOKENS.declined, idempotency_key: "cs_declined" });
    expect(await codeOf(() => payments.charge(declined))).toBe("payment_declined");
    expect(await codeOf(() => payments.charge({ ...declined, token: CHECKOUT_TEST_TOKENS.ok }))).toBe(
      "idempotency_conflict",
    );
    expect(await codeOf(() => payments.charge(charge({ token: "spt_test_nobody" })))).toBe("invalid_token");
    expect(await codeOf(() => payments.charge(charge({ amount_cents: 0 })))).toBe("invalid_request");
    expect(await codeOf(() => payments.charge(charge()))).toBe("paid");
  });

  it("refuses an idempotency key that is empty or longer than 255 characters", async () => {
    const payments = createTestCheckout();
    expect(await codeOf(() => payments.charge(charge({ idempotency_key: "" })))).toBe("invalid_request");
    expect(await codeOf(() => payments.charge(charge({ idempotency_key: "k".repeat(256) })))).toBe(
      "invalid_request",
    );
    expect(await codeOf(() => payments.charge(charge({ idempotency_key: "k".repeat(255) })))).toBe("paid");
  });

  it("reports ledger trouble as provider_unavailable without the token", async () => {
    const broken = {
      read: async () => {
        throw new Error(`cannot reach redis://:hunter2@cache for ${CHECKOUT_TEST_TOKENS.ok}`);
      },
      record: async () => {
        throw new Error("unreachable");
      },
    };
    const payments = createTestCheckout({ ledger: broken });
    const error = await payments.charge(charge()).catch((e: unknown) => e);
    expect(CheckoutPaymentError.isInstance(error) && error.code).toBe("provider_unavailable");
    expect(String((error as Error).message)).not.toContain("hunter2");
    expect((error as Error).cause).toBeUndefined();
  });
});

describe("createTestCheckout saved methods", () => {
  it("saves a Visa ending in 4242 under a new customer, or under the customer given", async () => {
    const payments = createTestCheckout({ ids: countingIds() });
    const made = await payments.saveMethod(save());
    expect(made).toEqual({
      customer: "cus_test_00000000000040008000000000000001",
      reference: "pm_test_00000000000040008000000000000002",
      brand: "visa",
      last4: "4242",
      exp_month: 12,
      exp_year: TEST_CARD_EXP_YEAR,
    });
    const under = await payments.saveMethod(save({ idempotency_key: "setup_2", customer: "cus_given" }));
    expect(under).toMatchObject({
      customer: "cus_given",
      reference: "pm_test_00000000000040008000000000000003",
    });
  });

  it("answers the first method to a repeat; another token or customer under the key is idempotency_conflict", async () => {
    const payments = createTestCheckout();
    const first = await payments.saveMethod(save());
    expect(await payments.saveMethod(save({ description: "Renamed", metadata: {} }))).toEqual(first);
    expect(await codeOf(() => payments.saveMethod(save({ token: "spt_test_ok_bob" })))).toBe(
      "idempotency_conflict",
    );
    expect(await codeOf(() => payments.saveMethod(save({ customer: first.customer })))).toBe(
      "idempotency_conflict",
    );
    expect(await codeOf(() => payments.charge(charge({ idempotency_key: "setup_1" })))).toBe(
      "idempotency_conflict",
    );
    expect(await payments.saveMethod(save())).toEqual(first);
  });

  it("refuses tokens as charge does: declines and 3-D Secure take the key, unknown tokens and bad requests do not", async () => {
    const payments = createTestCheckout();
    const declined = save({ token: CHECKOUT_TEST_TOKENS.declined, idempotency_key: "setup_declined" });
    expect(await codeOf(() => payments.saveMethod(declined))).toBe("payment_declined");
    expect(await codeOf(() => payments.saveMethod(declined))).toBe("payment_declined");
    expect(await codeOf(() => payments.saveMethod({ ...declined, token: CHECKOUT_TEST_TOKENS.ok }))).toBe(
      "idempotency_conflict",
    );
    const secure = save({ token: CHECKOUT_TEST_TOKENS.requiresAction, idempotency_key: "setup_3ds" });
    expect(await codeOf(() => payments.saveMethod(secure))).toBe("requires_action");
    expect(await codeOf(() => payments.saveMethod({ ...secure, token: CHECKOUT_TEST_TOKENS.ok }))).toBe(
      "idempotency_conflict",
    );
    expect(await codeOf(() => payments.saveMethod(save({ token: "spt_test_nobody" })))).toBe("invalid_token");
    expect(await codeOf(() => payments.saveMethod(save({ token: "pm_card_visa" })))).toBe("invalid_token");
    expect(await codeOf(() => payments.saveMethod(save({ customer: "cus 1" })))).toBe("invalid_request");
    expect(await codeOf(() => payments.saveMethod(save({ idempotency_key: "" })))).toBe("invalid_request");
    expect((await payments.saveMethod(save())).last4).toBe("4242");
  });

  it("charges a saved method once per key and answers the first receipt to a repeat", async () => {
    const clock = manualClock(Date.UTC(2026, 10, 1));
    const payments = createTestCheckout({ clock, ids: countingIds() });
    const method = await payments.saveMethod(save());
    const receipt = await payments.chargeSaved(refill(method));
    expect(receipt).toEqual({
      reference: "ch_test_00000000000040008000000000000003",
      amount_cents: 5000,
      currency: "usd",
      paidAt: Date.UTC(2026, 10, 1),
    });
    clock.advance(60_000);
    expect(
      await payments.chargeSaved(refill(method, { description: "Other", metadata: { a: "b" } })),
    ).toEqual(receipt);
    const other = await payments.chargeSaved(refill(method, { idempotency_key: "refill_2" }));
    expect(other.reference).not.toBe(receipt.reference);
    expect(other.paidAt).toBe(receipt.paidAt + 60_000);
  });

  it("refuses other terms under a used key, and a method it did not save for the customer", async () => {
    const payments = createTestCheckout();
    const method = await payments.saveMethod(save());
    const sibling = await payments.saveMethod(
      save({ idempotency_key: "setup_2", customer: method.customer }),
    );
    const stranger = await payments.saveMethod(save({ idempotency_key: "setup_3" }));
    await payments.chargeSaved(refill(method));
    for (const other of [
      refill(method, { amount_cents: 5001 }),
      refill(sibling),
      refill(stranger),
      refill(method, { payment_method: "pm_test_nothing" }),
    ]) {
      expect(await codeOf(() => payments.chargeSaved(other))).toBe("idempotency_conflict");
    }
    const fresh = { idempotency_key: "refill_fresh" };
    expect(
      await codeOf(() => payments.chargeSaved(refill(method, { ...fresh, customer: stranger.customer }))),
    ).toBe("invalid_token");
    expect(
      await codeOf(() => payments.chargeSaved(refill(method, { ...fresh, payment_method: "pm_test_x" }))),
    ).toBe("invalid_token");
    expect(
      await codeOf(() => payments.chargeSaved(refill(method, { ...fresh, customer: "cus_nobody" }))),
    ).toBe("invalid_token");
    // The refusals took no key.
    expect(await codeOf(() => payments.chargeSaved(refill(stranger, fresh)))).toBe("paid");
  });

  it("declines every off-session charge of a method saved from declinesOffSession, which pays on-session", async () => {
    const payments = createTestCheckout();
    const token = CHECKOUT_TEST_TOKENS.declinesOffSession;
    expect(await codeOf(() => payments.charge(charge({ token })))).toBe("paid");
    const method = await payments.saveMethod(save({ token }));
    expect(method.last4).toBe("4242");
    expect(await codeOf(() => payments.chargeSaved(refill(method)))).toBe("payment_declined");
    expect(await codeOf(() => payments.chargeSaved(refill(method)))).toBe("payment_declined");
    expect(await codeOf(() => payments.chargeSaved(refill(method, { amount_cents: 100 })))).toBe(
      "idempotency_conflict",
    );
    expect(await codeOf(() => payments.chargeSaved(refill(method, { idempotency_key: "refill_2" })))).toBe(
      "payment_declined",
    );
  });

  it("checks an off-session charge as a charge, also one without a payment method", async () => {
    const payments = createTestCheckout();
    const method = await payments.saveMethod(save());
    expect(await codeOf(() => payments.chargeSaved(refill(method, { amount_cents: 12.5 })))).toBe(
      "invalid_request",
    );
    expect(await codeOf(() => payments.chargeSaved(refill(method, { currency: "eur" as "usd" })))).toBe(
      "invalid_request",
    );
    const { payment_method: _, ...bare } = refill(method, { amount_cents: 0 });
    expect(await codeOf(() => payments.chargeSaved(bare as SavedMethodCharge))).toBe("invalid_request");
  });

  it("completes a save whose answer was lost before its method was kept, when the save is asked again", async () => {
    const inner = memoryCheckoutLedger();
    let records = 0;
    // The first record (the save under its key) lands; the second (the method under its reference) fails.
    const ledger: CheckoutLedger = {
      read: (key) => inner.read(key),
      record: async (key, entry) => {
        records += 1;
        if (records === 2) throw new Error("connection reset");
        return inner.record(key, entry);
      },
    };
    const payments = createTestCheckout({ ledger });
    expect(await codeOf(() => payments.saveMethod(save()))).toBe("provider_unavailable");
    const method = await payments.saveMethod(save());
    expect(await codeOf(() => payments.chargeSaved(refill(method)))).toBe("paid");
  });

  it("reports ledger trouble as provider_unavailable for saves and off-session charges", async () => {
    const method = await createTestCheckout().saveMethod(save());
    const broken: CheckoutLedger = {
      read: async () => {
        throw new Error(`cannot reach redis://:hunter2@cache for ${CHECKOUT_TEST_TOKENS.ok}`);
      },
      record: async () => {
        throw new Error("unreachable");
      },
    };
    const payments = createTestCheckout({ ledger: broken });
    for (const action of [() => payments.saveMethod(save()), () => payments.chargeSaved(refill(method))]) {
      const error = await action().catch((e: unknown) => e);
      expect(CheckoutPaymentError.isInstance(error) && error.code).toBe("provider_unavailable");
      expect(String((error as Error).message)).not.toContain("hunter2");
      expect(String((error as Error).message)).not.toContain(CHECKOUT_TEST_TOKENS.ok);
    }
  });
});

describe("storeCheckoutLedger", () => {
  it("lets an adapter charge a method that another adapter on the Store saved, keeping no token", async () => {
    const store: Store = createMemoryStore();
    const one = createTestCheckout({ ledger: storeCheckoutLedger(store) });
    const two = createTestCheckout({ ledger: storeCheckoutLedger(store) });
    const token = "spt_test_ok_workspace_7";
    const methods = await Promise.all(
      [one, two, one].map((payments) => payments.saveMethod(save({ token }))),
    );
    expect(new Set(methods.map((m) => m.reference)).size).toBe(1);
    const method = methods[0] as SavedMethod;
    const receipts = await Promise.all(
      [two, one, two].map((payments) => payments.chargeSaved(refill(method))),
    );
    expect(new Set(receipts.map((r) => r.reference)).size).toBe(1);
    const keys = (await store.list("checkout:test:")).records.map((record) => record.key).sort();
    const b64 = (key: string) => `checkout:test:key:${Buffer.from(key).toString("base64url")}`;
    expect(keys).toEqual([b64(`method:${method.reference}`), b64("refill_1"), b64("setup_1")].sort());
    const page = await store.list("checkout:test:");
    expect(JSON.stringify(page.records)).not.toContain(token);
  });

  it("lets two adapters on one Store charge a key once, keeping no token", async () => {
    const store: Store = createMemoryStore();
    const one = createTestCheckout({ ledger: storeCheckoutLedger(store) });
    const two = createTestCheckout({ ledger: storeCheckoutLedger(store) });
    const receipts = await Promise.all([one, two, one, two].map((payments) => payments.charge(charge())));
    expect(new Set(receipts.map((receipt) => receipt.reference)).size).toBe(1);
    const page = await store.list("checkout:test:");
    expect(page.records).toHaveLength(1);
    expect(page.records[0]?.key).toBe(`checkout:test:key:${Buffer.from("cs_1").toString("base64url")}`);
    expect(JSON.stringify(page.records)).not.toContain(CHECKOUT_TEST_TOKENS.ok);
  });

  it("keeps keys of any characters apart under its prefix", async () => {
    const store = createMemoryStore();
    const ledger = storeCheckoutLedger(store, "shop:checkout");
    const payments = createTestCheckout({ ledger });
    const a = await payments.charge(charge({ idempotency_key: "a/b c" }));
    const b = await payments.charge(charge({ idempotency_key: "a_b_c" }));
    expect(a.reference).not.toBe(b.reference);
    expect((await store.list("shop:checkout:key:")).records).toHaveLength(2);
    expect(() => storeCheckoutLedger(store, "bad prefix")).toThrow(TypeError);
  });

  it("answers the first entry to every record of a key, as the memory ledger does", async () => {
    for (const ledger of [memoryCheckoutLedger(), storeCheckoutLedger(createMemoryStore())]) {
      const first = { terms: "t1", outcome: "payment_declined" } as const;
      expect(await ledger.read("k")).toBeUndefined();
      expect(await ledger.record("k", first)).toEqual(first);
      expect(await ledger.record("k", { terms: "t2", outcome: "requires_action" })).toEqual(first);
      expect(await ledger.read("k")).toEqual(first);
    }
  });
});
