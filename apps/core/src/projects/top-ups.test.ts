import { createTestCheckout } from "@mailpiece/checkout-test";
import type { CheckoutCharge, CheckoutPayments } from "@mailpiece/ports";
import { createMemoryBlobStore, createMemoryStore } from "@mailpiece/store-unstorage";
import { describe, expect, it } from "vitest";
import { createMailpieceCore } from "../core.ts";
import { CoreError } from "../errors.ts";

async function setup(payments?: CheckoutPayments) {
  let now = Date.UTC(2026, 10, 24, 12);
  const charges: CheckoutCharge[] = [];
  const inner = payments ?? createTestCheckout();
  const core = createMailpieceCore({
    store: createMemoryStore(),
    blobs: createMemoryBlobStore(),
    clock: { now: () => now },
    checkoutPayments: {
      ...inner,
      name: inner.name,
      simulated: inner.simulated,
      charge(request) {
        charges.push(request);
        return inner.charge(request);
      },
    },
    config: { testCreditsCents: 1_000 },
  });
  const principal = await core.workspaces.authenticate((await core.workspaces.create("Acme")).test_api_key);
  const available = async () =>
    (await core.workspaces.balance(principal.workspace_id, "test")).available_cents;
  return { core, principal, charges, available, advance: (ms: number) => (now += ms) };
}

describe("credit top-ups", () => {
  it("adds the credits once when a person pays the top-up page, also when the payment is sent again or raced", async () => {
    const { core, principal, charges, available } = await setup();
    const session = await core.projects.createTopUp(principal, { amount_cents: 2_500 });
    expect(session).toMatchObject({ status: "open", amount_cents: 2_500, mode: "test", simulated: true });
    expect(session.url_path).toBe(`/checkout/top-up/${session.id}`);
    const declined = await core.projects.payTopUp(session.id, { token: "spt_test_declined" });
    expect(declined).toMatchObject({ status: "open", message: { code: "payment_declined" } });
    expect(await available()).toBe(1_000);
    const paid = await Promise.all(
      [1, 2, 3].map(() => core.projects.payTopUp(session.id, { token: "spt_test_ok" })),
    );
    expect(paid.every((view) => view.status === "completed")).toBe(true);
    expect(await available()).toBe(3_500);
    expect((await core.projects.payTopUp(session.id, { token: "spt_test_ok" })).status).toBe("completed");
    expect(await available()).toBe(3_500);
    // One declined charge, and one charge for the payment however often it was sent.
    expect(new Set(charges.filter((c) => c.token === "spt_test_ok").map((c) => c.idempotency_key)).size).toBe(
      1,
    );
    const ledger = await core.workspaces.ledger(principal, {});
    expect(ledger.data.map((entry) => [entry.type, entry.amount_cents])).toEqual([
      ["top_up", 1_000],
      ["top_up", 2_500],
    ]);
  });

  it("refuses amounts outside 100 to 100000 cents, bad tokens, unknown and expired pages", async () => {
    const { core, principal, advance } = await setup();
    for (const amount_cents of [99, 100_001, 1.5, "500", undefined]) {
      const error = await core.projects.createTopUp(principal, { amount_cents }).catch((e: unknown) => e);
      expect((error as CoreError).code, String(amount_cents)).toBe("validation_failed");
    }
    const session = await core.projects.createTopUp(principal, { amount_cents: 500 });
    const bad = await core.projects.payTopUp(session.id, { token: "tok_visa" }).catch((e: unknown) => e);
    expect(CoreError.isInstance(bad) && bad.issues?.[0]?.path).toBe("token");
    expect(await core.projects.getTopUp("ts_00000000000000000000000000000000")).toBeUndefined();
    advance(25 * 60 * 60 * 1000);
    expect((await core.projects.getTopUp(session.id))?.status).toBe("expired");
    const late = await core.projects.payTopUp(session.id, { token: "spt_test_ok" }).catch((e: unknown) => e);
    expect((late as CoreError).code).toBe("checkout_expired");
  });
});
