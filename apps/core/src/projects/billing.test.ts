import { createTestCheckout } from "@mailpiece/checkout-test";
import { CheckoutPaymentError, type CheckoutPayments, type SavedMethodCharge } from "@mailpiece/ports";
import { createSimulatedPrinter } from "@mailpiece/print-simulated";
import { createMemoryBlobStore, createMemoryStore } from "@mailpiece/store-unstorage";
import { describe, expect, it } from "vitest";
import { createMailpieceCore } from "../core.ts";
import { CoreError } from "../errors.ts";
import { readyDocument, refusal } from "./projects.fixture.ts";

const address = (name: string) => ({
  name,
  street1: "350 Fifth Avenue",
  city: "New York",
  province: "NY",
  zip: "10118",
});

/**
 * A core with the test checkout, counting saves and off-session charges (and able to make the provider unreachable
 * for the next off-session charges), a workspace without credits, and a completed one-page document whose letter
 * costs `price` cents.
 */
async function setup() {
  let now = Date.UTC(2026, 10, 24, 12);
  const inner = createTestCheckout();
  const saves: string[] = [];
  const offSession: SavedMethodCharge[] = [];
  let unreachable = 0;
  const payments: CheckoutPayments = {
    ...inner,
    name: inner.name,
    simulated: true,
    charge: (request) => inner.charge(request),
    async saveMethod(request) {
      saves.push(request.idempotency_key);
      return inner.saveMethod(request);
    },
    async chargeSaved(request) {
      if (unreachable > 0) {
        unreachable--;
        throw new CheckoutPaymentError("provider_unavailable", "The provider cannot be reached.");
      }
      offSession.push(request);
      return inner.chargeSaved(request);
    },
  };
  const errors: unknown[] = [];
  const store = createMemoryStore();
  const clock = { now: () => now };
  const core = createMailpieceCore({
    store,
    blobs: createMemoryBlobStore(),
    clock,
    printProviders: [createSimulatedPrinter({ store, clock })],
    checkoutPayments: payments,
    config: { testCreditsCents: 0 },
    onBackgroundError: (error) => errors.push(error),
  });
  const workspace = await core.workspaces.create("Acme");
  const principal = await core.workspaces.authenticate(workspace.test_api_key);
  const documentId = await readyDocument(core, principal);
  const price = (await core.projects.createQuote(principal, "letter", { document_id: documentId }))
    .price_cents;
  let orders = 0;
  /** Sends one letter (200 cents); answers the order or the refusal. */
  const send = async () => {
    const quote = await core.projects.createQuote(principal, "letter", { document_id: documentId });
    return core.projects
      .createOrder(
        principal,
        "letter",
        { quote_id: quote.quote_id, recipient: address("Grace Recipient"), sender: address("Ada Sender") },
        `order-${++orders}`,
      )
      .catch((error: unknown) => error);
  };
  const balance = () => core.workspaces.balance(principal.workspace_id, "test");
  /** Waits for the refills started by requests (they run after the request answers). */
  const settled = async () => {
    for (let i = 0; i < 50 && (await core.projects.getAutoRefill(principal)).status === "refilling"; i++) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  };
  /** Adds credits on a top-up page paid by a test card. */
  const fund = async (amount_cents: number) => {
    const session = await core.projects.createTopUp(principal, { amount_cents });
    expect((await core.projects.payTopUp(session.id, { token: "spt_test_ok_fund" })).status).toBe(
      "completed",
    );
  };
  const saveCard = async (token = "spt_test_ok", mode?: "test" | "live") => {
    const session = await core.projects.createSetup(principal, mode ? { mode } : undefined);
    return core.projects.completeSetup(session.id, { token });
  };
  return {
    core,
    principal,
    workspace,
    saves,
    offSession,
    errors,
    send,
    balance,
    settled,
    saveCard,
    fund,
    price,
    unreachableNext: (n: number) => {
      unreachable = n;
    },
    advance: (ms: number) => {
      now += ms;
    },
  };
}

describe("payment-method setup", () => {
  it("saves one card however often the page is sent, and lists it as the mode's default", async () => {
    const { core, principal, saves } = await setup();
    const session = await core.projects.createSetup(principal, undefined);
    expect(session).toMatchObject({
      object: "payment_method_setup_session",
      status: "open",
      mode: "test",
      simulated: true,
      enables_live: false,
      payment_method: null,
      url_path: `/checkout/setup/${session.id}`,
    });
    const declined = await core.projects.completeSetup(session.id, { token: "spt_test_declined" });
    expect(declined.session).toMatchObject({ status: "open", message: { code: "payment_declined" } });
    expect((await core.projects.listPaymentMethods(principal)).data).toEqual([]);

    const outcomes = await Promise.all(
      [1, 2, 3].map(() => core.projects.completeSetup(session.id, { token: "spt_test_ok" })),
    );
    const completed = outcomes.find((o) => o.session.status === "completed")!;
    expect(completed.session.payment_method).toMatchObject({
      object: "payment_method",
      type: "card",
      brand: "visa",
      last4: "4242",
      default: true,
      mode: "test",
    });
    expect(outcomes.every((o) => o.live_api_key === undefined)).toBe(true);
    // One declined attempt, and one save for the card however often it was sent.
    expect(saves).toHaveLength(2);
    const listed = await core.projects.listPaymentMethods(principal);
    expect(listed.data).toHaveLength(1);
    expect(listed.data[0]!.id).toBe(completed.session.payment_method!.id);
    expect((await core.projects.getSetup(session.id))?.status).toBe("completed");
    expect((await core.workspaces.get(principal.workspace_id))?.live_enabled).toBe(false);
  });

  it("a live setup opened with a test key live-enables the workspace and issues its first live key once", async () => {
    const { core, principal, saveCard } = await setup();
    expect((await core.workspaces.balance(principal.workspace_id, "live")).status).toBe("setup_required");
    const first = await saveCard("spt_test_ok", "live");
    expect(first.session).toMatchObject({ status: "completed", mode: "live", enables_live: true });
    const key = first.live_api_key!;
    expect(key.api_key).toMatch(/^svc_live_/);
    expect(first.session.live_api_key_prefix).toBe(key.api_key_prefix);
    const live = await core.workspaces.authenticate(key.api_key);
    expect(live).toMatchObject({ workspace_id: principal.workspace_id, mode: "live" });
    expect(core.workspaces.requirePermission(live, "submit")).toBeUndefined();
    expect((await core.workspaces.balance(principal.workspace_id, "live")).status).toBe("active");
    expect((await core.projects.listPaymentMethods(live)).data).toHaveLength(1);
    // The test mode has no card of its own; a second live setup saves a card and issues no key.
    expect((await core.projects.listPaymentMethods(principal)).data).toHaveLength(0);
    const second = await saveCard("spt_test_ok_second", "live");
    expect(second.session.status).toBe("completed");
    expect(second.live_api_key).toBeUndefined();
    expect((await core.workspaces.listKeys(live)).filter((k) => k.mode === "live")).toHaveLength(1);
    const methods = (await core.projects.listPaymentMethods(live)).data;
    expect(methods.map((m) => m.default)).toEqual([true, false]);
    expect(methods[0]!.id).toBe(second.session.payment_method!.id);
  });

  it("refuses bad bodies, bad tokens, unknown and expired setups", async () => {
    const { core, principal, advance } = await setup();
    for (const body of [{ mode: "prod" }, { extra: 1 }, [], "live"]) {
      const error = await refusal(core.projects.createSetup(principal, body));
      expect(error.code, JSON.stringify(body)).toBe("validation_failed");
    }
    const session = await core.projects.createSetup(principal, {});
    const bad = await refusal(core.projects.completeSetup(session.id, { token: "tok_visa" }));
    expect(bad.issues?.[0]?.path).toBe("token");
    const unknown = await refusal(
      core.projects.completeSetup("ps_00000000000000000000000000000000", { token: "spt_test_ok" }),
    );
    expect(unknown.code).toBe("not_found");
    advance(25 * 60 * 60 * 1000);
    expect((await core.projects.getSetup(session.id))?.status).toBe("expired");
    const late = await refusal(core.projects.completeSetup(session.id, { token: "spt_test_ok" }));
    expect(late.code).toBe("checkout_expired");
  });
});

describe("automatic refills", () => {
  it("refuses policies out of bounds, unknown fields, a test key setting live refills, and refills without a card", async () => {
    const { core, principal } = await setup();
    const cases: [unknown, string][] = [
      [{ threshold_cents: 99, refill_amount_cents: 500 }, "threshold_cents"],
      [{ threshold_cents: 500, refill_amount_cents: 100_001 }, "refill_amount_cents"],
      [{ threshold_cents: 500.5, refill_amount_cents: 500 }, "threshold_cents"],
      [{ refill_amount_cents: 500 }, "threshold_cents"],
      [{ threshold_cents: 500, refill_amount_cents: 500, enabled: "yes" }, "enabled"],
      [{ threshold_cents: 500, refill_amount_cents: 500, mode: "both" }, "mode"],
      [{ threshold_cents: 500, refill_amount_cents: 500, limit: 3 }, "limit"],
    ];
    for (const [body, path] of cases) {
      const error = await refusal(core.projects.setAutoRefill(principal, body));
      expect(error.code).toBe("validation_failed");
      expect(error.issues?.map((i) => i.path)).toContain(path);
    }
    const live = await refusal(
      core.projects.setAutoRefill(principal, {
        mode: "live",
        threshold_cents: 500,
        refill_amount_cents: 500,
      }),
    );
    expect(live.code).toBe("forbidden");
    const noCard = await refusal(
      core.projects.setAutoRefill(principal, { threshold_cents: 500, refill_amount_cents: 500 }),
    );
    expect(noCard.code).toBe("payment_method_required");
    expect((await core.projects.getAutoRefill(principal)).status).toBe("not_configured");
    // Turning refills off needs no card.
    const off = await core.projects.setAutoRefill(principal, {
      enabled: false,
      threshold_cents: 500,
      refill_amount_cents: 500,
    });
    expect(off).toMatchObject({ enabled: false, status: "disabled", threshold_cents: 500 });
  });

  it("refills once per fall below the threshold, also when many orders cross it together", async () => {
    const { core, principal, send, balance, settled, saveCard, fund, price: p, offSession } = await setup();
    await fund(5 * p);
    await saveCard();
    const threshold = Math.floor(3.5 * p);
    const policy = await core.projects.setAutoRefill(principal, {
      threshold_cents: threshold,
      refill_amount_cents: 100,
    });
    expect(policy).toMatchObject({
      enabled: true,
      status: "active",
      threshold_cents: threshold,
      refill_amount_cents: 100,
    });
    await send(); // 5p → 4p: above the threshold, nothing happens.
    await settled();
    expect(offSession).toHaveLength(0);
    // Five orders at once: the first takes it below 3.5p; a refill of 100 never lifts it back over.
    const outcomes = await Promise.all([1, 2, 3, 4, 5].map(() => send()));
    await settled();
    expect(outcomes.filter((o) => CoreError.isInstance(o))).toHaveLength(1);
    expect(offSession).toHaveLength(1);
    expect(offSession[0]).toMatchObject({ amount_cents: 100, currency: "usd" });
    expect(await core.projects.getAutoRefill(principal)).toMatchObject({
      status: "active",
      last_refill: { amount_cents: 100 },
    });
    const credits = await balance();
    expect(credits).toMatchObject({ available_cents: 100, reserved_cents: 5 * p });
    const topUps = (await core.workspaces.ledger(principal, { limit: 100 })).data.filter(
      (e) => e.type === "top_up",
    );
    expect(topUps.map((e) => e.amount_cents)).toEqual([5 * p, 100]);
    expect(credits.auto_refill).toEqual([expect.objectContaining({ mode: "test", enabled: true })]);
  });

  it("does not refill again while the balance stays below, and refills after it was lifted over and fell again", async () => {
    const { core, principal, send, settled, saveCard, fund, price: p, offSession, balance } = await setup();
    await fund(2 * p);
    await saveCard();
    await core.projects.setAutoRefill(principal, { threshold_cents: 2 * p, refill_amount_cents: 100 });
    await send(); // 2p → p: a crossing; the refill lifts it to p + 100, still below.
    await settled();
    expect(offSession).toHaveLength(1);
    await send(); // p + 100 → 100: no crossing.
    await settled();
    expect(offSession).toHaveLength(1);
    expect((await balance()).available_cents).toBe(100);
    await fund(2 * p); // 2p + 100: over the threshold again.
    await send(); // → p + 100: a new crossing.
    await settled();
    expect(offSession).toHaveLength(2);
    expect(new Set(offSession.map((c) => c.idempotency_key)).size).toBe(2);
    expect((await balance()).available_cents).toBe(p + 200);
  });

  it("a card declined off-session ends the refill with the reason and adds nothing; setting the policy again refills with a new card", async () => {
    const { core, principal, send, settled, saveCard, fund, price: p, offSession, balance } = await setup();
    await fund(2 * p);
    await saveCard("spt_test_declines_off_session");
    await core.projects.setAutoRefill(principal, { threshold_cents: 2 * p, refill_amount_cents: 1_000 });
    await send();
    await settled();
    expect(offSession).toHaveLength(1);
    expect(await core.projects.getAutoRefill(principal)).toMatchObject({
      status: "payment_failed",
      last_error: { code: "payment_declined" },
      last_refill: null,
    });
    expect((await balance()).available_cents).toBe(p);
    // Saving a card while below the threshold is no crossing; setting the policy again is, at once.
    await saveCard("spt_test_ok");
    await settled();
    expect(offSession).toHaveLength(1);
    await core.projects.setAutoRefill(principal, { threshold_cents: 2 * p, refill_amount_cents: 1_000 });
    await settled();
    expect(offSession).toHaveLength(2);
    expect((await balance()).available_cents).toBe(p + 1_000);
    expect((await core.projects.getAutoRefill(principal)).status).toBe("active");
  });

  it("a refill whose provider cannot be reached is finished later under the same key, crediting once", async () => {
    const {
      core,
      principal,
      send,
      saveCard,
      fund,
      price: p,
      offSession,
      unreachableNext,
      advance,
      balance,
      errors,
    } = await setup();
    await fund(2 * p);
    await saveCard();
    await core.projects.setAutoRefill(principal, { threshold_cents: 2 * p, refill_amount_cents: 1_000 });
    unreachableNext(1);
    await send();
    for (let i = 0; i < 100 && errors.length === 0; i++) await new Promise((r) => setTimeout(r, 10));
    expect(errors).toHaveLength(1);
    expect((await core.projects.getAutoRefill(principal)).status).toBe("refilling");
    expect((await balance()).available_cents).toBe(p);
    // Too soon: the fulfilment round leaves it; later it charges under the same key.
    await core.fulfil();
    expect(offSession).toHaveLength(0);
    advance(31_000);
    await core.fulfil();
    await core.fulfil();
    expect(offSession).toHaveLength(1);
    expect(offSession[0]!.idempotency_key).toMatch(/^auto_refill:/);
    expect((await balance()).available_cents).toBe(p + 1_000);
    expect((await core.projects.getAutoRefill(principal)).status).toBe("active");
  });
});
