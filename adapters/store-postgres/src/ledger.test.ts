import { type PostgresServer, startPostgres } from "@mailpiece/conformance";
import { createLedger, type Ledger, LedgerError } from "@mailpiece/ledger";
import type { Store } from "@mailpiece/ports";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPostgresStore } from "./postgres-store.ts";
import { uniqueTable } from "./test-support.ts";

let server: PostgresServer | undefined;

beforeAll(async () => {
  server = await startPostgres();
}, 120_000);

afterAll(async () => {
  await server?.stop();
});

function url(): string {
  if (!server) throw new Error("postgres is not running");
  return server.url;
}

const BOOK = "ws_123:test";
/** Enough compare-and-set attempts that a busy machine never turns contention into `ledger_busy`. */
const MAX_ATTEMPTS = 100_000;

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

/** Every key of the store under `prefix`, following the cursors. */
async function keysUnder(store: Store, prefix: string): Promise<string[]> {
  const keys: string[] = [];
  let cursor: string | undefined;
  do {
    const page = await store.list(prefix, { limit: 1000, ...(cursor === undefined ? {} : { cursor }) });
    keys.push(...page.records.map((r) => r.key));
    cursor = page.cursor;
  } while (cursor !== undefined);
  return keys;
}

/** The sum of every posting per account across the book's entries, which must match the balances. */
async function postingSums(ledger: Ledger, book: string): Promise<Record<string, number>> {
  const sums: Record<string, number> = { funding: 0, available: 0, reserved: 0, captured: 0 };
  let cursor: string | undefined;
  do {
    const page = await ledger.entries(book, { limit: 1000, ...(cursor === undefined ? {} : { cursor }) });
    for (const entry of page.entries) {
      for (const posting of entry.postings)
        sums[posting.account] = (sums[posting.account] ?? 0) + posting.amount_cents;
    }
    cursor = page.cursor;
  } while (cursor !== undefined);
  return sums;
}

/**
 * Two ways to race on one table: one store (one pool) with a ledger per caller, and two stores (two pools, as two
 * processes would have) with the callers' ledgers alternating between them.
 */
const MODES: [string, number][] = [
  ["one store, a ledger per caller", 1],
  ["two stores with pools of their own", 2],
];

describe.each(MODES)("the ledger on the Postgres store (%s)", (_mode, storeCount) => {
  it("lets exactly 16 of 50 concurrent 300-cent reservations through a balance of 5000", async () => {
    const tableName = uniqueTable();
    const stores = await Promise.all(
      Array.from({ length: storeCount }, () => createPostgresStore({ url: url(), tableName })),
    );
    try {
      const ledgers = Array.from({ length: 50 }, (_, i) =>
        createLedger(stores[i % storeCount] as Store, { maxAttempts: MAX_ATTEMPTS }),
      );
      await ledgers[0]?.fund(BOOK, { amount_cents: 5000, idempotency_key: "initial" });
      const { ok, codes } = await outcomes(
        ledgers.map((ledger, i) =>
          ledger.reserve(BOOK, { amount_cents: 300, idempotency_key: `order-${i}` }),
        ),
      );
      expect(ok).toHaveLength(16);
      expect(codes).toEqual(Array(34).fill("insufficient_credits"));
      expect(new Set(ok.map((entry) => entry.id)).size).toBe(16);

      const reader = createLedger(stores[storeCount - 1] as Store);
      expect(await reader.balance(BOOK)).toEqual({
        available_cents: 200,
        reserved_cents: 4800,
        funded_cents: 5000,
        captured_cents: 0,
        seq: 17,
      });
      expect(await postingSums(reader, BOOK)).toEqual({
        funding: -5000,
        available: 200,
        reserved: 4800,
        captured: 0,
      });
      const store = stores[0] as Store;
      expect(await keysUnder(store, "ledger_entries:")).toHaveLength(17);
      expect(await keysUnder(store, "ledger_keys:")).toHaveLength(17);
      expect((await store.get<{ pending: unknown }>(`ledger_books:${BOOK}`))?.value.pending).toBeNull();
    } finally {
      await Promise.all(stores.map((store) => store.close()));
    }
  });
});
