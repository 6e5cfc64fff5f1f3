import { createMemoryStore } from "@mailpiece/store-unstorage";
import { expect } from "vitest";
import { LedgerError, type LedgerErrorCode } from "./errors.ts";
import type { Ledger } from "./ledger.ts";
import type { LedgerAccount, LedgerBalance, LedgerEntry } from "./types.ts";

/** A fixed clock for tests: every entry is made at the same instant. */
export const NOW = () => 1_700_000_000_000;

/** The project's Store port, as the memory store implements it. */
export type Store = ReturnType<typeof createMemoryStore>;

export const memoryStore = (): Store => createMemoryStore();

/** A small seeded generator (mulberry32): the same seed gives the same sequence. */
export function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Every record of the store, by key: value and version. */
export async function snapshot(store: Store): Promise<Map<string, { value: unknown; version: number }>> {
  const all = new Map<string, { value: unknown; version: number }>();
  let cursor: string | undefined;
  do {
    const page = await store.list("", { limit: 1000, ...(cursor === undefined ? {} : { cursor }) });
    for (const record of page.records) all.set(record.key, { value: record.value, version: record.version });
    cursor = page.cursor;
  } while (cursor !== undefined);
  return all;
}

/** The keys of the store under `prefix`. */
export async function keysUnder(store: Store, prefix: string): Promise<string[]> {
  return [...(await snapshot(store)).keys()].filter((key) => key.startsWith(prefix));
}

/** Every entry of a book, following the cursors. */
export async function allEntries(ledger: Ledger, book: string, limit = 7): Promise<LedgerEntry[]> {
  const out: LedgerEntry[] = [];
  let cursor: string | undefined;
  do {
    const page = await ledger.entries(book, { limit, ...(cursor === undefined ? {} : { cursor }) });
    out.push(...page.entries);
    cursor = page.cursor;
  } while (cursor !== undefined);
  return out;
}

/**
 * Checks the double-entry invariants of a book: entries numbered 1..seq, each summing to zero, and the postings per
 * account adding up to the balances.
 */
export async function expectBalanced(ledger: Ledger, book: string): Promise<LedgerBalance> {
  const balance = await ledger.balance(book);
  const entries = await allEntries(ledger, book);
  expect(entries.map((entry) => entry.seq)).toEqual(Array.from({ length: balance.seq }, (_, i) => i + 1));
  const sums: Record<LedgerAccount, number> = { funding: 0, available: 0, reserved: 0, captured: 0 };
  for (const entry of entries) {
    expect(entry.book).toBe(book);
    expect(entry.postings.reduce((sum, posting) => sum + posting.amount_cents, 0)).toBe(0);
    for (const posting of entry.postings) sums[posting.account] += posting.amount_cents;
  }
  expect(sums).toEqual({
    funding: -balance.funded_cents,
    available: balance.available_cents,
    reserved: balance.reserved_cents,
    captured: balance.captured_cents,
  });
  expect(balance.available_cents).toBeGreaterThanOrEqual(0);
  expect(balance.reserved_cents).toBeGreaterThanOrEqual(0);
  expect(balance.funded_cents).toBe(
    balance.available_cents + balance.reserved_cents + balance.captured_cents,
  );
  return balance;
}

/** The code of the LedgerError a promise rejects with. */
export async function codeOf(promise: Promise<unknown>): Promise<LedgerErrorCode> {
  try {
    await promise;
  } catch (error) {
    if (LedgerError.isInstance(error)) return error.code;
    throw error;
  }
  throw new Error("expected a LedgerError, got a result");
}

/** An entry without the `replayed` mark of a movement's result. */
export function withoutReplayed<T extends { replayed?: boolean }>(movement: T): Omit<T, "replayed"> {
  const { replayed: _replayed, ...entry } = movement;
  return entry;
}

/**
 * A store that dies like a process killed right after a movement's commit: the first `put` of a book record with a
 * pending movement lands, then throws, and every later call through this wrapper throws too. Other wrappers over
 * the same store (a restarted process) work on.
 */
export function crashAfterCommit(store: Store): { store: Store; crashed: () => boolean } {
  let dead = false;
  const guard = () => {
    if (dead) throw new Error("simulated crash: the process is gone");
  };
  const wrapped: Store = {
    ...store,
    async get(key) {
      guard();
      return store.get(key);
    },
    async create(key, value, options) {
      guard();
      return store.create(key, value, options);
    },
    async put(key, value, options) {
      guard();
      const record = await store.put(key, value, options);
      if (key.startsWith("ledger_books:") && (value as { pending?: unknown }).pending) {
        dead = true;
        throw new Error("simulated crash right after the commit");
      }
      return record;
    },
  };
  return { store: wrapped, crashed: () => dead };
}

/**
 * A store whose every compare-and-set loses: each `put` with `ifVersion` first rewrites the record as it is (another
 * writer), so the store itself answers `version_conflict`. Counts those puts.
 */
export function alwaysConflicting(store: Store): { store: Store; casAttempts: () => number } {
  let attempts = 0;
  const wrapped: Store = {
    ...store,
    async put(key, value, options) {
      if (options?.ifVersion !== undefined) {
        attempts++;
        const current = await store.get(key);
        if (current !== undefined) await store.put(key, current.value);
      }
      return store.put(key, value, options);
    },
  };
  return { store: wrapped, casAttempts: () => attempts };
}
