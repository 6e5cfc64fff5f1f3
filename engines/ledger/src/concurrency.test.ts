import { describe, expect, it } from "vitest";
import { LedgerError } from "./errors.ts";
import { createLedger, type Ledger } from "./ledger.ts";
import {
  allEntries,
  codeOf,
  expectBalanced,
  keysUnder,
  memoryStore,
  NOW,
  type Store,
  withoutReplayed,
} from "./test-support.ts";

const BOOK = "ws_123:test";

/**
 * Two ways to race: every caller through one ledger, and every caller through a ledger of its own over the shared
 * store (as separate processes would).
 */
const MODES: [string, (store: Store) => (i: number) => Ledger][] = [
  [
    "one ledger",
    (store) => {
      const ledger = createLedger(store, { now: NOW });
      return () => ledger;
    },
  ],
  [
    "a ledger per caller",
    (store) => {
      const ledgers = new Map<number, Ledger>();
      return (i) => {
        if (!ledgers.has(i)) ledgers.set(i, createLedger(store, { now: NOW }));
        return ledgers.get(i)!;
      };
    },
  ],
];

/** Settled outcomes: values of the fulfilled, codes of the rejected. */
async function outcomes<T>(promises: Promise<T>[]): Promise<{ ok: T[]; codes: string[] }> {
  const settled = await Promise.allSettled(promises);
  const ok: T[] = [];
  const codes: string[] = [];
  for (const result of settled) {
    if (result.status === "fulfilled") ok.push(result.value);
    else if (LedgerError.isInstance(result.reason)) codes.push(result.reason.code);
    else throw result.reason;
  }
  return { ok, codes };
}

describe.each(MODES)("under concurrency (%s)", (_mode, ledgersOf) => {
  it("lets exactly 16 of 50 concurrent 300-cent reservations through a balance of 5000", async () => {
    const store = memoryStore();
    const ledgerFor = ledgersOf(store);
    await ledgerFor(0).fund(BOOK, { amount_cents: 5000, idempotency_key: "initial" });
    const { ok, codes } = await outcomes(
      Array.from({ length: 50 }, (_, i) =>
        ledgerFor(i).reserve(BOOK, { amount_cents: 300, idempotency_key: `order-${i}` }),
      ),
    );
    expect(ok).toHaveLength(16);
    expect(codes).toEqual(Array(34).fill("insufficient_credits"));
    expect(new Set(ok.map((entry) => entry.id)).size).toBe(16);
    expect(ok.every((entry) => !entry.replayed)).toBe(true);

    const balance = await expectBalanced(ledgerFor(0), BOOK);
    expect(balance).toEqual({
      available_cents: 200,
      reserved_cents: 4800,
      funded_cents: 5000,
      captured_cents: 0,
      seq: 17,
    });
    // Nothing half-written: 17 entries, 17 index records, and no movement left pending.
    expect(await keysUnder(store, "ledger_entries:")).toHaveLength(17);
    expect(await keysUnder(store, "ledger_keys:")).toHaveLength(17);
    expect((await store.get<{ pending: unknown }>(`ledger_books:${BOOK}`))?.value.pending).toBeNull();
    const reserved = (await allEntries(ledgerFor(0), BOOK)).filter((entry) => entry.kind === "reserve");
    expect(reserved.map((entry) => entry.id).sort()).toEqual(ok.map((entry) => entry.id).sort());
  });

  it("makes one entry of concurrent identical retries and answers every caller with it", async () => {
    const store = memoryStore();
    const ledgerFor = ledgersOf(store);
    const same = async <T extends { replayed: boolean }>(call: (i: number) => Promise<T>) => {
      const results = await Promise.all(Array.from({ length: 20 }, (_, i) => call(i)));
      expect(results.filter((result) => !result.replayed)).toHaveLength(1);
      const first = withoutReplayed(results[0]!);
      for (const result of results) expect(withoutReplayed(result)).toEqual(first);
      return results[0]!;
    };

    const f = await same((i) => ledgerFor(i).fund(BOOK, { amount_cents: 1000, idempotency_key: "topup" }));
    const r = await same((i) => ledgerFor(i).reserve(BOOK, { amount_cents: 600, idempotency_key: "order" }));
    const c = await same((i) =>
      ledgerFor(i).capture(BOOK, { reservation_id: r.id, idempotency_key: "cap", amount_cents: 500 }),
    );
    expect([f.seq, r.seq, c.seq]).toEqual([1, 2, 3]);
    expect(await expectBalanced(ledgerFor(0), BOOK)).toEqual({
      available_cents: 500,
      reserved_cents: 0,
      funded_cents: 1000,
      captured_cents: 500,
      seq: 3,
    });
    expect(await keysUnder(store, "ledger_entries:")).toHaveLength(3);
  });

  it("lets one of concurrent calls with one key and different arguments through, refusing the others", async () => {
    const store = memoryStore();
    const ledgerFor = ledgersOf(store);
    const { ok, codes } = await outcomes(
      Array.from({ length: 20 }, (_, i) =>
        ledgerFor(i).fund(BOOK, { amount_cents: 100 + i, idempotency_key: "topup" }),
      ),
    );
    expect(ok).toHaveLength(1);
    expect(codes).toEqual(Array(19).fill("idempotency_conflict"));
    expect(await ledgerFor(0).balance(BOOK)).toMatchObject({ available_cents: ok[0]!.amount_cents, seq: 1 });
  });

  it("settles a reservation once when a capture and a release race", async () => {
    const store = memoryStore();
    const ledgerFor = ledgersOf(store);
    await ledgerFor(0).fund(BOOK, { amount_cents: 100_000, idempotency_key: "initial" });
    const reservations = [];
    for (let i = 0; i < 10; i++) {
      reservations.push(await ledgerFor(0).reserve(BOOK, { amount_cents: 1000, idempotency_key: `r${i}` }));
    }
    let captures = 0;
    let releases = 0;
    for (const [i, reservation] of reservations.entries()) {
      const partial = i % 2 === 0 ? { amount_cents: 400 } : {};
      const race = () => [
        ledgerFor(1).capture(BOOK, { reservation_id: reservation.id, idempotency_key: `c${i}`, ...partial }),
        ledgerFor(2).release(BOOK, { reservation_id: reservation.id, idempotency_key: `l${i}` }),
        ledgerFor(3).capture(BOOK, { reservation_id: reservation.id, idempotency_key: `c${i}-other` }),
        ledgerFor(4).release(BOOK, { reservation_id: reservation.id, idempotency_key: `l${i}-other` }),
      ];
      const { ok, codes } = await outcomes(race());
      expect(ok).toHaveLength(1);
      expect(codes).toEqual(Array(3).fill("reservation_settled"));
      const won = ok[0]!;
      expect(won.replayed).toBe(false);
      if (won.kind === "capture") {
        captures++;
        expect(won.amount_cents).toBe(won.idempotency_key === `c${i}` && i % 2 === 0 ? 400 : 1000);
      } else releases++;
      // The same calls again: the winner's replays its entry, the others are refused again.
      const again = await outcomes(race());
      expect(again.ok.map((entry) => ({ id: entry.id, replayed: entry.replayed }))).toEqual([
        { id: won.id, replayed: true },
      ]);
      expect(again.codes).toEqual(Array(3).fill("reservation_settled"));
    }
    expect(captures + releases).toBe(10);
    const balance = await expectBalanced(ledgerFor(0), BOOK);
    expect(balance.reserved_cents).toBe(0);
    expect(balance.seq).toBe(21);
    const settled = (await allEntries(ledgerFor(0), BOOK)).filter((e) => e.reservation_id !== undefined);
    expect(new Set(settled.map((e) => e.reservation_id)).size).toBe(10);
  });
});

describe("one ledger", () => {
  it("queues the movements of a book, so that none loses a compare-and-set to another", async () => {
    const store = memoryStore();
    let conflicts = 0;
    const counting: Store = {
      ...store,
      async put(key, value, options) {
        try {
          return await store.put(key, value, options);
        } catch (error) {
          conflicts++;
          throw error;
        }
      },
    };
    const ledger = createLedger(counting, { now: NOW });
    await ledger.fund(BOOK, { amount_cents: 5000, idempotency_key: "initial" });
    const { ok, codes } = await outcomes(
      Array.from({ length: 50 }, (_, i) =>
        i % 5 === 4
          ? ledger.fund(BOOK, { amount_cents: 0, idempotency_key: `bad-${i}` })
          : ledger.reserve(BOOK, { amount_cents: 300, idempotency_key: `order-${i}` }),
      ),
    );
    expect(ok).toHaveLength(16);
    expect(codes.filter((code) => code === "invalid_amount")).toHaveLength(10);
    expect(codes.filter((code) => code === "insufficient_credits")).toHaveLength(24);
    expect(conflicts).toBe(0);
    // In arrival order: the first 16 reservations asked went through.
    expect(ok.map((entry) => entry.idempotency_key)).toEqual(
      Array.from({ length: 20 }, (_, i) => i)
        .filter((i) => i % 5 !== 4)
        .map((i) => `order-${i}`),
    );
    await expectBalanced(ledger, BOOK);
  });
});

describe("racing movements of every kind", () => {
  it("stays balanced while funds, reserves, captures and releases run at once", async () => {
    const store = memoryStore();
    // 30 movements through 4 ledgers move the book at most 60 times: more attempts than that can never be needed.
    const ledgers = Array.from({ length: 4 }, () => createLedger(store, { now: NOW, maxAttempts: 100 }));
    await ledgers[0]!.fund(BOOK, { amount_cents: 3000, idempotency_key: "initial" });
    const open = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        ledgers[i % 4]!.reserve(BOOK, { amount_cents: 100, idempotency_key: `r${i}` }),
      ),
    );
    const calls: Promise<unknown>[] = [];
    for (let i = 0; i < 10; i++) {
      const ledger = ledgers[i % 4]!;
      calls.push(ledger.fund(BOOK, { amount_cents: 50, idempotency_key: `f${i}` }));
      calls.push(ledger.reserve(BOOK, { amount_cents: 250, idempotency_key: `r-more${i}` }));
      calls.push(
        i % 2 === 0
          ? ledger.capture(BOOK, { reservation_id: open[i]!.id, idempotency_key: `c${i}`, amount_cents: 30 })
          : ledger.release(BOOK, { reservation_id: open[i]!.id, idempotency_key: `l${i}` }),
      );
    }
    const { codes } = await outcomes(calls);
    expect(codes.every((code) => code === "insufficient_credits")).toBe(true);
    const balance = await expectBalanced(ledgers[3]!, BOOK);
    expect(balance.funded_cents).toBe(3500);
    expect(balance.seq).toBe(11 + 30 - codes.length);
    expect(balance.captured_cents).toBe(150);
    expect(
      await codeOf(ledgers[0]!.release(BOOK, { reservation_id: open[0]!.id, idempotency_key: "late" })),
    ).toBe("reservation_settled");
  });
});
