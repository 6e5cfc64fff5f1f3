import { hash } from "node:crypto";

/**
 * Where the ledger keeps its records, and the ids it hands out. Every key stays within the Store key pattern
 * (`^[A-Za-z0-9][A-Za-z0-9._:-]{0,511}$`). A book id may hold `:` itself, so the part after a book id's last `:` is
 * always a segment that holds no `:` (a zero-padded sequence number, a plain idempotency key, or an internal
 * segment starting with `_`), which keeps the keys of two books apart.
 */

/** A book id: 1 to 256 key characters, starting with a letter or digit. */
const BOOK_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,255}$/;
/** An idempotency key: 1 to 512 key characters, starting with a letter or digit. */
const IDEMPOTENCY_KEY_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,511}$/;
/** An idempotency key used as is in its index key: no `:`. */
const PLAIN_SEGMENT = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;
/** Entry ids: `le_`, twelve hex digits naming the book, `_`, the entry's sequence number. */
const ENTRY_ID_PATTERN = /^le_([0-9a-f]{12})_([1-9][0-9]{0,14})$/;
const MAX_KEY_LENGTH = 512;
const SEQ_DIGITS = 12;

export const MAX_SEQ = 10 ** SEQ_DIGITS - 1;

export function isBookId(value: unknown): value is string {
  return typeof value === "string" && BOOK_PATTERN.test(value);
}

export function isIdempotencyKey(value: unknown): value is string {
  return typeof value === "string" && IDEMPOTENCY_KEY_PATTERN.test(value);
}

/** The record holding a book's balances, sequence number and pending movement. */
export const bookKey = (book: string): string => `ledger_books:${book}`;

/** The immutable record of a book's entry number `seq`. */
export const entryKey = (book: string, seq: number): string =>
  `ledger_entries:${book}:${String(seq).padStart(SEQ_DIGITS, "0")}`;

/**
 * The index record of an idempotency key in a book: the key itself when it holds no `:` and fits, else `_sha256.`
 * and the hex SHA-256 of the key (an index record also holds the key in full, so nothing depends on the hash alone).
 */
export function idempotencyIndexKey(book: string, idempotencyKey: string): string {
  const plain = `ledger_keys:${book}:${idempotencyKey}`;
  if (PLAIN_SEGMENT.test(idempotencyKey) && plain.length <= MAX_KEY_LENGTH) return plain;
  return `ledger_keys:${book}:_sha256.${hash("sha256", idempotencyKey, "hex")}`;
}

/** The index record claimed by the one entry that settles (captures or releases) a reservation. */
export const settleIndexKey = (book: string, reservationId: string): string =>
  `ledger_keys:${book}:_settle.${reservationId}`;

/** Twelve hex digits of the SHA-256 of the book id: entry ids name their book. */
export const bookTag = (book: string): string => hash("sha256", book, "hex").slice(0, 12);

/** The id of a book's entry number `seq`: deterministic, so that finishing a movement twice makes one entry. */
export const entryId = (book: string, seq: number): string => `le_${bookTag(book)}_${seq}`;

/** The sequence number of an entry id of this book, or undefined for anything else. */
export function seqOfEntryId(book: string, id: unknown): number | undefined {
  if (typeof id !== "string") return undefined;
  const match = ENTRY_ID_PATTERN.exec(id);
  if (match === null || match[1] !== bookTag(book)) return undefined;
  const seq = Number(match[2]);
  return seq <= MAX_SEQ ? seq : undefined;
}
