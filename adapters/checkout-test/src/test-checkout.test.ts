import { type CheckoutCharge, CheckoutPaymentError, manualClock, type Store } from "@mailpiece/ports";
import { createMemoryStore } from "@mailpiece/store-unstorage";
import { describe, expect, it } from "vitest";
import { memoryCheckoutLedger, storeCheckoutLedger } from "./checkout-ledger.ts";
import { createTestCheckout } from "./test-checkout.ts";
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

describe("storeCheckoutLedger", () => {
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
