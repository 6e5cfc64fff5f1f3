import { type CheckoutReceipt, isValidKey, type Store } from "@mailpiece/ports";

/**
 * What happened under one idempotency key: the terms it was first used with and the outcome every repeat answers.
 * `terms` is a digest of amount, currency and token; the token itself is never kept.
 */
export type CheckoutLedgerEntry =
  | { terms: string; outcome: "paid"; receipt: CheckoutReceipt }
  | { terms: string; outcome: "payment_declined" | "requires_action" };

/**
 * Where the test adapter keeps outcomes by idempotency key. `record` MUST be atomic: under any number of concurrent
 * callers for one key, every caller receives the entry of the first; an entry is never replaced.
 */
export interface CheckoutLedger {
  /** Keeps `entry` under `key` unless the key has one; answers the entry the key has afterwards. */
  record(key: string, entry: CheckoutLedgerEntry): Promise<CheckoutLedgerEntry>;
  read(key: string): Promise<CheckoutLedgerEntry | undefined>;
}

/** A ledger in this process's memory: one process, lost on restart. */
export function memoryCheckoutLedger(): CheckoutLedger {
  const entries = new Map<string, CheckoutLedgerEntry>();
  return {
    async record(key, entry) {
      const first = entries.get(key) ?? structuredClone(entry);
      entries.set(key, first);
      return structuredClone(first);
    },
    async read(key) {
      const entry = entries.get(key);
      return entry === undefined ? undefined : structuredClone(entry);
    },
  };
}

/**
 * A ledger in a Store, through its atomic `create`: every process on one shared Store (Redis, for example) sees the
 * same outcomes. Keys are `<prefix>:key:<idempotency key as base64url>`.
 */
export function storeCheckoutLedger(store: Store, prefix = "checkout:test"): CheckoutLedger {
  if (!isValidKey(`${prefix}:key:x`)) {
    throw new TypeError(`prefix must make valid Store keys, got ${JSON.stringify(prefix)}`);
  }
  const keyOf = (key: string) => `${prefix}:key:${Buffer.from(key, "utf8").toString("base64url")}`;
  return {
    async record(key, entry) {
      const { record } = await store.create<CheckoutLedgerEntry>(keyOf(key), entry);
      return record.value;
    },
    async read(key) {
      return (await store.get<CheckoutLedgerEntry>(keyOf(key)))?.value;
    },
  };
}
