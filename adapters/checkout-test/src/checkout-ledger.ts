import { type CheckoutReceipt, isValidKey, type SavedMethod, type Store } from "@mailpiece/ports";

/**
 * What happened under one idempotency key: the terms it was first used with and the outcome every repeat answers.
 * `terms` is a digest of what a repeat must bring again (amount, currency and token for a charge; token and customer
 * for a save; amount, currency, customer and method for an off-session charge); the token itself is never kept.
 *
 * A saved method is also kept under `method:<reference>` (`outcome: "method"`): its customer, and what its off-session
 * charges do. `terms` is then the digest of the save that made it.
 */
export type CheckoutLedgerEntry =
  | { terms: string; outcome: "paid"; receipt: CheckoutReceipt }
  | { terms: string; outcome: "payment_declined" | "requires_action" }
  | { terms: string; outcome: "saved"; method: SavedMethod; off_session: OffSessionOutcome }
  | { terms: string; outcome: "method"; customer: string; off_session: OffSessionOutcome };

/** What an off-session charge of a saved method does. */
export type OffSessionOutcome = "paid" | "payment_declined";

/** The ledger key of a saved method's entry. */
export const methodLedgerKey = (reference: string): string => `method:${reference}`;

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
