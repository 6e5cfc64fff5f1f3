import { describe, expect, it } from "vitest";
import { LedgerError } from "./errors.ts";
import { createLedger } from "./ledger.ts";
import {
  alwaysConflicting,
  codeOf,
  crashAfterCommit,
  expectBalanced,
  keysUnder,
  memoryStore,
  NOW,
  type Store,
  snapshot,
  withoutReplayed,
} from "./test-support.ts";

const BOOK = "ws_123:test";

/** Funds 1000 and reserves 400, then runs `movement` through a ledger that dies right after its commit. */
async function crashedAfterCommit(store: Store, movement: "fund" | "reserve" | "capture" | "release") {
  const healthy = createLedger(store, { now: NOW });
  await healthy.fund(BOOK, { amount_cents: 1000, idempotency_key: "initial" });
  const reservation = await healthy.reserve(BOOK, { amount_cents: 400, idempotency_key: "r" });
  const dying = crashAfterCommit(store);
  const ledger = createLedger(dying.store, { now: NOW });
  const calls = {
    fund: () => ledger.fund(BOOK, { amount_cents: 250, idempotency_key: "k" }),
    reserve: () => ledger.reserve(BOOK, { amount_cents: 250, idempotency_key: "k" }),
    capture: () =>
      ledger.capture(BOOK, { reservation_id: reservation.id, idempotency_key: "k", amount_cents: 250 }),
    release: () => ledger.release(BOOK, { reservation_id: reservation.id, idempotency_key: "k" }),
  };
  await expect(calls[movement]()).rejects.toThrow("simulated crash");
  expect(dying.crashed()).toBe(true);
  return reservation;
}

const BALANCES_AFTER = {
  fund: { available_cents: 850, reserved_cents: 400, funded_cents: 1250, captured_cents: 0 },
  reserve: { available_cents: 350, reserved_cents: 650, funded_cents: 1000, captured_cents: 0 },
  capture: { available_cents: 750, reserved_cents: 0, funded_cents: 1000, captured_cents: 250 },
  release: { available_cents: 1000, reserved_cents: 0, funded_cents: 1000, captured_cents: 0 },
};

describe("a crash right after the commit", () => {
  it.each(["fund", "reserve", "capture", "release"] as const)(
    "leaves a %s that the next reader finishes, once, and that a retry replays",
    async (movement) => {
      const store = memoryStore();
      const reservation = await crashedAfterCommit(store, movement);
      // Committed but unfinished: the book moved, the entry is not there yet.
      expect(await keysUnder(store, "ledger_entries:")).toHaveLength(2);
      const book = await store.get<{ seq: number; pending: unknown }>(`ledger_books:${BOOK}`);
      expect(book?.value).toMatchObject({ seq: 3, pending: expect.anything() });

      const restarted = createLedger(store, { now: NOW });
      expect(await restarted.balance(BOOK)).toEqual({ ...BALANCES_AFTER[movement], seq: 3 });
      expect(await keysUnder(store, "ledger_entries:")).toHaveLength(3);
      expect((await store.get<{ pending: unknown }>(`ledger_books:${BOOK}`))?.value.pending).toBeNull();
      await expectBalanced(restarted, BOOK);

      const entry = (await restarted.entries(BOOK)).entries[2]!;
      expect(entry).toMatchObject({ seq: 3, kind: movement, idempotency_key: "k" });
      const retried = {
        fund: () => restarted.fund(BOOK, { amount_cents: 250, idempotency_key: "k" }),
        reserve: () => restarted.reserve(BOOK, { amount_cents: 250, idempotency_key: "k" }),
        capture: () =>
          restarted.capture(BOOK, {
            reservation_id: reservation.id,
            idempotency_key: "k",
            amount_cents: 250,
          }),
        release: () => restarted.release(BOOK, { reservation_id: reservation.id, idempotency_key: "k" }),
      }[movement];
      const again = await retried();
      expect(again.replayed).toBe(true);
      expect(withoutReplayed(again)).toEqual(entry);
      expect(await keysUnder(store, "ledger_entries:")).toHaveLength(3);
    },
  );

  it("is finished by the next movement, by a retry and by entry lookups alike", async () => {
    for (const firstTouch of ["movement", "retry", "entries", "entry"] as const) {
      const store = memoryStore();
      await crashedAfterCommit(store, "reserve");
      const restarted = createLedger(store, { now: NOW });
      const pendingId = (await store.get<{ pending: { entry: { id: string } } }>(`ledger_books:${BOOK}`))
        ?.value.pending.entry?.id;
      expect(pendingId).toMatch(/^le_[0-9a-f]{12}_3$/);
      if (firstTouch === "movement") {
        const next = await restarted.fund(BOOK, { amount_cents: 5, idempotency_key: "next" });
        expect(next.seq).toBe(4);
      } else if (firstTouch === "retry") {
        const again = await restarted.reserve(BOOK, { amount_cents: 250, idempotency_key: "k" });
        expect({ id: again.id, replayed: again.replayed }).toEqual({ id: pendingId, replayed: true });
      } else if (firstTouch === "entries") {
        expect((await restarted.entries(BOOK)).entries.map((e) => e.id)).toContain(pendingId);
      } else {
        expect(await restarted.entry(BOOK, pendingId!)).toMatchObject({ id: pendingId, kind: "reserve" });
      }
      await expectBalanced(restarted, BOOK);
      expect(
        (await restarted.entries(BOOK)).entries.filter((entry) => entry.idempotency_key === "k"),
      ).toHaveLength(1);
    }
  });

  it("is finished once when many readers and writers touch the book at the same time", async () => {
    const store = memoryStore();
    await crashedAfterCommit(store, "capture");
    const ledgers = Array.from({ length: 10 }, () => createLedger(store, { now: NOW }));
    await Promise.all(
      ledgers.flatMap((ledger, i) => [
        ledger.balance(BOOK),
        ledger.entries(BOOK),
        ledger.fund(BOOK, { amount_cents: 1, idempotency_key: `after-${i}` }),
      ]),
    );
    const balance = await expectBalanced(ledgers[0]!, BOOK);
    expect(balance).toMatchObject({ seq: 13, captured_cents: 250, funded_cents: 1010 });
    expect(await keysUnder(store, "ledger_entries:")).toHaveLength(13);
    expect(await keysUnder(store, "ledger_keys:")).toHaveLength(13 + 1);
  });
});

describe("a crash while a movement is being finished", () => {
  it("leaves an entry without its index records, which the next touch completes", async () => {
    const store = memoryStore();
    const healthy = createLedger(store, { now: NOW });
    await healthy.fund(BOOK, { amount_cents: 1000, idempotency_key: "initial" });
    const r = await healthy.reserve(BOOK, { amount_cents: 400, idempotency_key: "r" });
    // This process dies on its first attempt to write an index record.
    let dead = false;
    const dying: Store = {
      ...store,
      async get(key) {
        if (dead) throw new Error("simulated crash");
        return store.get(key);
      },
      async create(key, value, options) {
        if (dead || key.startsWith("ledger_keys:")) {
          dead = true;
          throw new Error("simulated crash");
        }
        return store.create(key, value, options);
      },
      async put(key, value, options) {
        if (dead) throw new Error("simulated crash");
        return store.put(key, value, options);
      },
    };
    await expect(
      createLedger(dying, { now: NOW }).capture(BOOK, { reservation_id: r.id, idempotency_key: "c" }),
    ).rejects.toThrow("simulated crash");
    expect(await keysUnder(store, "ledger_entries:")).toHaveLength(3);
    expect(await keysUnder(store, "ledger_keys:")).toHaveLength(2);

    const restarted = createLedger(store, { now: NOW });
    expect(await codeOf(restarted.release(BOOK, { reservation_id: r.id, idempotency_key: "l" }))).toBe(
      "reservation_settled",
    );
    expect(await keysUnder(store, "ledger_keys:")).toHaveLength(4);
    const again = await restarted.capture(BOOK, { reservation_id: r.id, idempotency_key: "c" });
    expect(again).toMatchObject({ seq: 3, kind: "capture", replayed: true });
    expect(await expectBalanced(restarted, BOOK)).toMatchObject({ captured_cents: 400, seq: 3 });
  });
});

describe("ledger_busy", () => {
  it("gives up after the bounded number of compare-and-set attempts, writing nothing", async () => {
    const store = memoryStore();
    const healthy = createLedger(store, { now: NOW });
    await healthy.fund(BOOK, { amount_cents: 1000, idempotency_key: "initial" });
    const r = await healthy.reserve(BOOK, { amount_cents: 100, idempotency_key: "r" });
    const contended = alwaysConflicting(store);
    const values = async () =>
      new Map([...(await snapshot(store))].map(([key, record]) => [key, record.value] as const));
    const before = await values();

    const ledger = createLedger(contended.store, { now: NOW });
    const error = await ledger.reserve(BOOK, { amount_cents: 10, idempotency_key: "busy" }).catch((e) => e);
    expect(LedgerError.isInstance(error) && error.code).toBe("ledger_busy");
    expect((error as LedgerError).details).toEqual({ attempts: 50 });
    expect(contended.casAttempts()).toBe(50);

    const few = createLedger(contended.store, { now: NOW, maxAttempts: 3, random: () => 0 });
    expect(await codeOf(few.capture(BOOK, { reservation_id: r.id, idempotency_key: "c" }))).toBe(
      "ledger_busy",
    );
    expect(contended.casAttempts()).toBe(53);
    expect(await values()).toEqual(before);

    // Once the contention is gone, the same call goes through.
    const entry = await healthy.reserve(BOOK, { amount_cents: 10, idempotency_key: "busy" });
    expect(entry).toMatchObject({ seq: 3, replayed: false });
    await expectBalanced(healthy, BOOK);
  });
});
