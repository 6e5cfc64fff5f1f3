/**
 * The accounts of a book. `available` and `reserved` hold the workspace's credits and never go negative; `funding`
 * (where credits come from) and `captured` (where spent credits go) are the outside accounts. `funding` only ever
 * goes down: its balance is minus everything funded.
 */
export type LedgerAccount = "funding" | "available" | "reserved" | "captured";

/** One leg of an entry: `amount_cents` is added to the account's balance (negative: taken from it). */
export interface LedgerPosting {
  account: LedgerAccount;
  amount_cents: number;
}

/**
 * - `fund`: funding → available.
 * - `reserve`: available → reserved; the entry's id is the reservation id.
 * - `capture`: reserved → captured for the amount captured, and reserved → available for the rest of the
 *   reservation.
 * - `release`: reserved → available for the whole reservation.
 */
export type LedgerEntryKind = "fund" | "reserve" | "capture" | "release";

/** One immutable movement of a book. Its postings sum to zero. */
export interface LedgerEntry {
  /** `le_…`, deterministic from the book and `seq`. */
  id: string;
  book: string;
  /** 1 for the book's first entry, then one more for each. */
  seq: number;
  kind: LedgerEntryKind;
  /** What was funded, reserved, captured or released. */
  amount_cents: number;
  postings: LedgerPosting[];
  idempotency_key: string;
  /** The caller's reference (fund and reserve), e.g. a payment or an order id. */
  reference?: string;
  /** The reservation a capture or release settles. */
  reservation_id?: string;
  /** Milliseconds since the epoch, from the ledger's clock. */
  created_at: number;
}

/** What a movement returns: its entry, and whether that entry was made by an earlier call with the same key. */
export interface LedgerMovement extends LedgerEntry {
  replayed: boolean;
}

export interface LedgerBalance {
  available_cents: number;
  reserved_cents: number;
  /** Everything ever funded. Always `available_cents + reserved_cents + captured_cents`. */
  funded_cents: number;
  captured_cents: number;
  /** The sequence number of the book's last entry; 0 for a book without entries. */
  seq: number;
}

export interface FundInput {
  amount_cents: number;
  idempotency_key: string;
  reference?: string;
}

export interface ReserveInput {
  amount_cents: number;
  idempotency_key: string;
  reference?: string;
}

export interface CaptureInput {
  reservation_id: string;
  idempotency_key: string;
  /** At most the reservation's amount; the rest returns to available. Default: the whole reservation. */
  amount_cents?: number;
}

export interface ReleaseInput {
  reservation_id: string;
  idempotency_key: string;
}

export interface EntriesOptions {
  /** The `cursor` of the previous page. */
  cursor?: string;
  /** 1 to 1000; default 100. */
  limit?: number;
}

export interface EntriesPage {
  /** In sequence order. */
  entries: LedgerEntry[];
  /** Present when more entries follow; pass it back as `cursor`. */
  cursor?: string;
}
