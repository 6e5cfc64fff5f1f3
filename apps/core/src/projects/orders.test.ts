import { requestKey } from "@mailpiece/idempotency";
import type { PrintProvider, Store } from "@mailpiece/ports";
import { createSimulatedPrinter } from "@mailpiece/print-simulated";
import { createMemoryBlobStore, createMemoryStore } from "@mailpiece/store-unstorage";
import { describe, expect, it } from "vitest";
import { createMailpieceCore } from "../core.ts";
import type { CoreError } from "../errors.ts";
import { ORDER_INTENT_GRACE_MS } from "./orders.ts";
import { readyDocument, refusal } from "./projects.fixture.ts";
import { address, orderCrashStore } from "./sends.fixture.ts";

async function setup(options: { testCreditsCents?: number; store?: Store } = {}) {
  let now = Date.UTC(2026, 10, 24, 12);
  const clock = { now: () => now };
  const store = options.store ?? createMemoryStore();
  const core = createMailpieceCore({
    store,
    blobs: createMemoryBlobStore(),
    clock,
    printProviders: [
      createSimulatedPrinter({
        store,
        clock,
        pace: { acceptAfterMs: 1_000, inTransitAfterMs: 2_000, deliverAfterMs: 3_000 },
      }),
    ],
    config: { testCreditsCents: options.testCreditsCents ?? 10_000 },
  });
  const workspace = await core.workspaces.create("Acme");
  const principal = await core.workspaces.authenticate(workspace.test_api_key);
  const documentId = await readyDocument(core, principal);
  const quote = () => core.projects.createQuote(principal, "letter", { document_id: documentId });
  const body = async (overrides: Record<string, unknown> = {}) => ({
    quote_id: (await quote()).quote_id,
    recipient: address("Grace Recipient"),
    sender: address("Ada Sender"),
    metadata: { customer: "42" },
    ...overrides,
  });
  const balance = () => core.workspaces.balance(principal.workspace_id, "test");
  return {
    core,
    principal,
    quote,
    body,
    balance,
    advance: (ms: number) => {
      now += ms;
    },
  };
}

describe("Projects API orders", () => {
  it("reserves the price, answers the same key and body with the same order, captures when the printer accepts", async () => {
    const { core, principal, body, balance, advance } = await setup();
    const request = await body();
    const order = await core.projects.createOrder(principal, "letter", request, "key-1");
    expect(order).toMatchObject({
      object: "letter",
      status: "queued",
      mode: "test",
      funds_status: "reserved",
      billing_rail: "mock_test_credits",
      metadata: { customer: "42" },
      idempotent_replay: false,
    });
    expect(await balance()).toMatchObject({
      available_cents: 10_000 - order.price_cents,
      reserved_cents: order.price_cents,
    });
    const replay = await core.projects.createOrder(principal, "letter", request, "key-1");
    expect(replay).toMatchObject({ id: order.id, idempotent_replay: true });
    expect((await balance()).reserved_cents).toBe(order.price_cents);
    expect((await refusal(core.projects.createOrder(principal, "letter", await body(), "key-1"))).code).toBe(
      "request_id_conflict",
    );
    expect((await refusal(core.projects.createOrder(principal, "letter", request, undefined))).code).toBe(
      "idempotency_key_required",
    );

    for (let round = 0; round < 6; round++) {
      await core.fulfil();
      advance(1_000);
    }
    const done = await core.projects.getOrder(principal, "letter", order.id);
    expect(["accepted", "in_transit", "delivered"]).toContain(done?.status);
    expect(done?.funds_status).toBe("captured");
    expect(done?.timeline.map((event) => event.status_after)).toEqual(
      expect.arrayContaining(["queued", "submitted", "accepted"]),
    );
    expect(await balance()).toMatchObject({ available_cents: 10_000 - order.price_cents, reserved_cents: 0 });
    const ledger = await core.workspaces.ledger(principal, {});
    expect(ledger.data.map((entry) => entry.type)).toEqual(["top_up", "reservation", "capture"]);
    expect(await core.projects.orderDocument(principal, "letter", order.id)).toBeInstanceOf(Uint8Array);
    expect(await core.projects.getOrder(principal, "postcard", order.id)).toBeUndefined();
  });

  it("releases the reservation of an order the printer refuses", async () => {
    const { core, principal, body, balance, advance } = await setup();
    const order = await core.projects.createOrder(
      principal,
      "letter",
      await body({ recipient: address("Grace Recipient", { street1: "1 REJECT PRINT Way" }) }),
      "rejected",
    );
    for (let round = 0; round < 4; round++) {
      await core.fulfil();
      advance(1_000);
    }
    const done = await core.projects.getOrder(principal, "letter", order.id);
    expect(done).toMatchObject({ status: "failed", funds_status: "released" });
    expect(await balance()).toMatchObject({ available_cents: 10_000, reserved_cents: 0 });
  });

  it("sends a test-mode order only to a simulated printer, and fails it when none is configured", async () => {
    let now = Date.UTC(2026, 10, 24, 12);
    const clock = { now: () => now };
    /** A printer that prints for real (simulated: false), listed first: it records every job submitted to it. */
    const pressWith = (store: Store) => {
      const printer = createSimulatedPrinter({ store, clock });
      const submitted: string[] = [];
      const press: PrintProvider = {
        ...printer,
        name: "press",
        simulated: false,
        capabilities: printer.capabilities,
        async submit(job, options) {
          submitted.push(options.idempotencyKey);
          return printer.submit(job, options);
        },
      };
      return { press, submitted };
    };
    const coreWith = async (providers: (store: Store) => PrintProvider[]) => {
      const store = createMemoryStore();
      const core = createMailpieceCore({
        store,
        blobs: createMemoryBlobStore(),
        clock,
        printProviders: providers(store),
        config: { testCreditsCents: 10_000 },
      });
      const principal = await core.workspaces.authenticate(
        (await core.workspaces.create("Acme")).test_api_key,
      );
      const documentId = await readyDocument(core, principal);
      const { quote_id } = await core.projects.createQuote(principal, "letter", { document_id: documentId });
      const order = await core.projects.createOrder(
        principal,
        "letter",
        { quote_id, recipient: address("Grace Recipient"), sender: address("Ada Sender") },
        "test-routing",
      );
      for (let round = 0; round < 6; round++) {
        await core.fulfil();
        now += 1_000;
      }
      return {
        stored: JSON.stringify((await store.list("orders:")).records),
        done: await core.projects.getOrder(principal, "letter", order.id),
        balance: await core.workspaces.balance(principal.workspace_id, "test"),
      };
    };

    let both: ReturnType<typeof pressWith> | undefined;
    const routed = await coreWith((store) => {
      both = pressWith(store);
      const pace = { acceptAfterMs: 1_000, inTransitAfterMs: 2_000, deliverAfterMs: 3_000 };
      return [both.press, createSimulatedPrinter({ store, clock, pace })];
    });
    expect(routed.done).toMatchObject({ status: "delivered", funds_status: "captured" });
    expect(both?.submitted).toEqual([]);

    let alone: ReturnType<typeof pressWith> | undefined;
    const refused = await coreWith((store) => {
      alone = pressWith(store);
      return [alone.press];
    });
    expect(refused.done).toMatchObject({ status: "failed", funds_status: "released" });
    expect(refused.stored).toContain("test-mode orders go only to simulated print providers");
    expect(refused.balance).toMatchObject({ available_cents: 10_000, reserved_cents: 0 });
    expect(alone?.submitted).toEqual([]);
  });

  it("prints the longest name and company spec 3 allows on lines of their own, and the printer accepts them", async () => {
    const { core, principal, body, advance } = await setup();
    const name = "N".repeat(255);
    const company = "C".repeat(255);
    const order = await core.projects.createOrder(
      principal,
      "letter",
      await body({ recipient: address(name, { company }) }),
      "long-names",
    );
    for (let round = 0; round < 4; round++) {
      await core.fulfil();
      advance(1_000);
    }
    const done = await core.projects.getOrder(principal, "letter", order.id);
    expect(done).toMatchObject({ status: "delivered", funds_status: "captured" });
  });

  it("refuses a bad request before reserving anything", async () => {
    const { core, principal, quote, body, balance, advance } = await setup();
    const before = await balance();
    const issues = async (request: unknown, key: string) =>
      ((await refusal(core.projects.createOrder(principal, "letter", request, key))).issues ?? []).map(
        (i) => [i.path, i.code],
      );
    expect(await issues(await body({ recipient: address("x".repeat(256)) }), "a")).toContainEqual([
      "recipient.name",
      "name_too_long",
    ]);
    expect(await issues(await body({ sender: undefined }), "b")).toContainEqual(["sender", "required"]);
    expect(
      await issues(
        await body({
          recipient: address("Grace", { country: "CA", province: "ON", zip: "K1A 0A9", city: "Ottawa" }),
        }),
        "c",
      ),
    ).toContainEqual(["recipient.countryCode", "destination_mismatch"]);
    expect(await issues(await body({ quote_id: "qt_00000000000000000000000000000000" }), "d")).toContainEqual(
      ["quote_id", "quote_not_found"],
    );
    const used = await body();
    const first = await core.projects.createOrder(principal, "letter", used, "first");
    expect(await issues({ ...used, metadata: {} }, "second")).toContainEqual(["quote_id", "quote_used"]);
    const stale = (await quote()).quote_id;
    advance(25 * 60 * 60 * 1000);
    expect(await issues(await body({ quote_id: stale }), "e")).toContainEqual(["quote_id", "quote_expired"]);
    // Only the one order that passed reserved anything.
    expect(await balance()).toMatchObject({
      available_cents: before.available_cents - first.price_cents,
      reserved_cents: first.price_cents,
    });
    // A refused request made nothing, so its key is free for the corrected request.
    const corrected = await core.projects.createOrder(principal, "letter", await body(), "e");
    expect(corrected).toMatchObject({ funds_status: "reserved", idempotent_replay: false });
  });

  it("never overspends: 50 concurrent orders against a balance that covers some of them", async () => {
    const { core, principal, quote, body, balance } = await setup({ testCreditsCents: 1_000 });
    const price = (await quote()).price_cents;
    const bodies = await Promise.all(Array.from({ length: 50 }, () => body()));
    const results = await Promise.allSettled(
      bodies.map((request, i) => core.projects.createOrder(principal, "letter", request, `concurrent-${i}`)),
    );
    const made = results.filter((r) => r.status === "fulfilled");
    const refused = results.filter((r) => r.status === "rejected").map((r) => (r.reason as CoreError).code);
    expect(made).toHaveLength(Math.floor(1_000 / price));
    expect(new Set(refused)).toEqual(new Set(["insufficient_credits"]));
    expect(await balance()).toMatchObject({
      available_cents: 1_000 - made.length * price,
      reserved_cents: made.length * price,
    });
  });

  it("undoes an order request lost between its reservation and its record, so its retry starts afresh", async () => {
    const { store, crashing } = orderCrashStore();
    const { core, principal, body, balance, advance } = await setup({ store });
    const request = await body();
    crashing(true);
    await expect(core.projects.createOrder(principal, "letter", request, "crash")).rejects.toThrow(/stopped/);
    crashing(false);
    const held = await balance();
    expect(held.reserved_cents).toBeGreaterThan(0);
    // Within the grace period nothing is undone; after it, the reservation is released and the quote freed.
    await core.fulfil();
    expect((await balance()).reserved_cents).toBe(held.reserved_cents);
    advance(ORDER_INTENT_GRACE_MS + 1);
    await core.fulfil();
    expect(await balance()).toMatchObject({ available_cents: 10_000, reserved_cents: 0 });
    const retried = await core.projects.createOrder(principal, "letter", request, "crash");
    expect(retried).toMatchObject({ funds_status: "reserved", idempotent_replay: false });
    expect((await balance()).reserved_cents).toBe(retried.price_cents);
  });

  it("a request that stalls past the grace writes nothing once the reconciler has undone it", async () => {
    const inner = createMemoryStore();
    let stallHere: (() => Promise<void>) | undefined;
    const store: Store = {
      ...inner,
      name: inner.name,
      capabilities: inner.capabilities,
      put: (key, value, options) => inner.put(key, value, options),
      delete: (key, options) => inner.delete(key, options),
      list: (prefix, options) => inner.list(prefix, options),
      create: (key, value, options) => inner.create(key, value, options),
      close: () => inner.close(),
      async get(key) {
        // The request's last look at its claim, after its reservation: the process stalls here past the grace.
        const stall = key.startsWith(requestKey("")) ? stallHere : undefined;
        if (stall) {
          stallHere = undefined;
          await stall();
        }
        return inner.get(key);
      },
    };
    const { core, principal, body, balance, advance } = await setup({ store });
    const request = await body();
    let heldWhileStalled = 0;
    stallHere = async () => {
      heldWhileStalled = (await balance()).reserved_cents;
      advance(ORDER_INTENT_GRACE_MS + 1);
      await core.fulfil();
    };
    const stalled = await refusal(core.projects.createOrder(principal, "letter", request, "stall"));
    expect(stalled.code).toBe("service_busy");
    expect(heldWhileStalled).toBeGreaterThan(0);
    expect(await balance()).toMatchObject({ available_cents: 10_000, reserved_cents: 0 });
    expect((await inner.list("orders:")).records).toEqual([]);
    // The client's retry starts afresh: one order, one reservation.
    const retried = await core.projects.createOrder(principal, "letter", request, "stall");
    expect(retried).toMatchObject({ funds_status: "reserved", idempotent_replay: false });
    expect((await balance()).reserved_cents).toBe(retried.price_cents);
  });
});
