import { LedgerError } from "./errors.ts";
import {
  bookKey,
  entryId,
  entryKey,
  idempotencyIndexKey,
  isBookId,
  isIdempotencyKey,
  MAX_SEQ,
  seqOfEntryId,
  settleIndexKey,
} from "./keys.ts";
import type { LedgerStore } from "./ledger-store.ts";
import type {
  CaptureInput,
  EntriesOptions,
  EntriesPage,
  FundInput,
  LedgerBalance,
  LedgerEntry,
  LedgerEntryKind,
  LedgerMovement,
  LedgerPosting,
  ReleaseInput,
  ReserveInput,
} from "./types.ts";

export interface LedgerOptions {
  /** Milliseconds since the epoch, for `created_at`; default `Date.now`. */
  now?: () => number;
  /** Compare-and-set attempts of one call before it gives up with `ledger_busy`; default 50. */
  maxAttempts?: number;
  /** A number in [0, 1), for the jitter between attempts; default `Math.random`. */
  random?: () => number;
}

export interface Ledger {
  /** funding → available: top-ups, initial test credits. */
  fund(book: string, input: FundInput): Promise<LedgerMovement>;
  /** available → reserved; `insufficient_credits` when less is available. The entry's id is the reservation id. */
  reserve(book: string, input: ReserveInput): Promise<LedgerMovement>;
  /** reserved → captured for the reservation's amount or less, the rest back to available, in one entry. */
  capture(book: string, input: CaptureInput): Promise<LedgerMovement>;
  /** reserved → available for the reservation's amount. */
  release(book: string, input: ReleaseInput): Promise<LedgerMovement>;
  balance(book: string): Promise<LedgerBalance>;
  /** A page of the book's entries in sequence order. */
  entries(book: string, options?: EntriesOptions): Promise<EntriesPage>;
  /** One entry of the book by id; undefined when the book has none with that id. */
  entry(book: string, id: string): Promise<LedgerEntry | undefined>;
}

/** The balances a book record holds. */
interface Balances {
  available_cents: number;
  reserved_cents: number;
  funded_cents: number;
  captured_cents: number;
}

/** The value of `ledger_books:<book>`: the point of commit of every movement. */
interface BookRecord extends Balances {
  book: string;
  seq: number;
  /** The last movement committed, while its entry and index records may still be missing. */
  pending: PendingMovement | null;
}

interface PendingMovement {
  entry: LedgerEntry;
  /** Index records to create with the entry. */
  index: { key: string; value: IndexRecord }[];
}

/** The arguments of a movement, as given: a reused idempotency key must come with the same. */
interface MovementRequest {
  kind: LedgerEntryKind;
  amount_cents: number | null;
  reference: string | null;
  reservation_id: string | null;
}

type IndexRecord =
  | {
      kind: "idempotency";
      book: string;
      idempotency_key: string;
      entry_id: string;
      seq: number;
      request: MovementRequest;
    }
  | { kind: "settle"; book: string; reservation_id: string; entry_id: string; seq: number };

/** What a movement does, decided against the book as read. */
interface Plan {
  amount_cents: number;
  postings: LedgerPosting[];
  /** The reservation this movement settles. */
  settles?: string;
}

const DEFAULT_MAX_ATTEMPTS = 50;
const MAX_BACKOFF_MS = 8;
const DEFAULT_PAGE = 100;
const MAX_PAGE = 1000;
const MAX_REFERENCE_LENGTH = 1024;

/**
 * A double-entry credits ledger over `store`. Every movement commits with one compare-and-set of the book record,
 * which holds the balances, the sequence number and the movement's entry as pending; the entry record and the
 * idempotency index records are created from it afterwards, by this call or by whichever call touches the book
 * next. Movements of one book through one ledger queue behind each other; several ledgers (in one process or in
 * several sharing the store) may work on one book at once, and then take turns by compare-and-set.
 */
export function createLedger(store: LedgerStore, options: LedgerOptions = {}): Ledger {
  const now = options.now ?? Date.now;
  const maxAttempts = Math.max(1, options.maxAttempts ?? DEFAULT_MAX_ATTEMPTS);
  const random = options.random ?? Math.random;
  /** The last queued movement of each book with movements running or waiting in this ledger. */
  const queues = new Map<string, Promise<unknown>>();

  /**
   * Runs the movements of one book through this ledger one after another, so that they do not race each other's
   * compare-and-set; movements of other books, and of other ledgers on the same store, still run at once.
   */
  function queued<T>(book: string, task: () => Promise<T>): Promise<T> {
    const previous = queues.get(book);
    const run = previous === undefined ? task() : previous.then(task);
    const tail = run.then(
      () => undefined,
      () => undefined,
    );
    queues.set(book, tail);
    void tail.then(() => {
      if (queues.get(book) === tail) queues.delete(book);
    });
    return run;
  }

  /** Compare-and-set of the book record; the new version, or undefined when another write came first. */
  async function writeBook(book: string, value: BookRecord, version: number): Promise<number | undefined> {
    if (version === 0) {
      const result = await store.create<BookRecord>(bookKey(book), value);
      return result.created ? result.record.version : undefined;
    }
    try {
      return (await store.put<BookRecord>(bookKey(book), value, { ifVersion: version })).version;
    } catch (error) {
      if (isVersionConflict(error)) return undefined;
      throw error;
    }
  }

  /** Creates a committed movement's entry, then its index records. Harmless when they exist already. */
  async function finishRecords(book: string, pending: PendingMovement): Promise<void> {
    await store.create<LedgerEntry>(entryKey(book, pending.entry.seq), pending.entry);
    await Promise.all(pending.index.map((record) => store.create<IndexRecord>(record.key, record.value)));
  }

  /**
   * The book with no pending movement, and its version for the next compare-and-set: a pending movement is finished
   * and cleared first. Undefined when clearing lost to another write.
   */
  async function head(book: string): Promise<{ state: BookRecord; version: number } | undefined> {
    const record = await store.get<BookRecord>(bookKey(book));
    if (record === undefined) return { state: emptyBook(book), version: 0 };
    if (record.value.pending === null) return { state: record.value, version: record.version };
    await finishRecords(book, record.value.pending);
    const cleared: BookRecord = { ...record.value, pending: null };
    const version = await writeBook(book, cleared, record.version);
    return version === undefined ? undefined : { state: cleared, version };
  }

  /** The book as readers see it: a pending movement is finished (its entry made) and cleared unless already. */
  async function view(book: string): Promise<BookRecord> {
    const record = await store.get<BookRecord>(bookKey(book));
    if (record === undefined) return emptyBook(book);
    if (record.value.pending === null) return record.value;
    await finishRecords(book, record.value.pending);
    const cleared: BookRecord = { ...record.value, pending: null };
    await writeBook(book, cleared, record.version);
    return cleared;
  }

  async function pause(attempt: number): Promise<void> {
    const ceiling = Math.min(MAX_BACKOFF_MS, 2 ** (attempt - 1) / 4);
    const ms = Math.floor(random() * ceiling);
    await new Promise<void>((resolve) => {
      if (ms < 1) setImmediate(resolve);
      else setTimeout(resolve, ms);
    });
  }

  /**
   * One movement, after the book's earlier movements in this ledger: (1) finish the book's pending movement,
   * (2) answer a used idempotency key from its index, (3) plan against the balances, (4) commit balances, seq + 1
   * and the new pending movement with one compare-and-set, starting again on conflict, (5) finish the new pending
   * movement.
   */
  function move(
    book: string,
    idempotencyKey: string,
    request: MovementRequest,
    plan: (state: BookRecord) => Promise<Plan>,
  ): Promise<LedgerMovement> {
    return queued(book, () => attemptMove(book, idempotencyKey, request, plan));
  }

  async function attemptMove(
    book: string,
    idempotencyKey: string,
    request: MovementRequest,
    plan: (state: BookRecord) => Promise<Plan>,
  ): Promise<LedgerMovement> {
    const indexKey = idempotencyIndexKey(book, idempotencyKey);
    for (let attempt = 1; ; attempt++) {
      const current = await head(book);
      if (current !== undefined) {
        const { state, version } = current;
        const claim = await store.get<IndexRecord>(indexKey);
        if (claim !== undefined) return replay(book, claim.value, idempotencyKey, request);
        const planned = await plan(state);
        const seq = state.seq + 1;
        if (seq > MAX_SEQ) throw new Error(`ledger book ${book} is full (${MAX_SEQ} entries)`);
        const entry: LedgerEntry = {
          id: entryId(book, seq),
          book,
          seq,
          kind: request.kind,
          amount_cents: planned.amount_cents,
          postings: planned.postings,
          idempotency_key: idempotencyKey,
          ...(request.reference === null ? {} : { reference: request.reference }),
          ...(request.reservation_id === null ? {} : { reservation_id: request.reservation_id }),
          created_at: now(),
        };
        const index: PendingMovement["index"] = [
          {
            key: indexKey,
            value: {
              kind: "idempotency",
              book,
              idempotency_key: idempotencyKey,
              entry_id: entry.id,
              seq,
              request,
            },
          },
        ];
        if (planned.settles !== undefined) {
          index.push({
            key: settleIndexKey(book, planned.settles),
            value: { kind: "settle", book, reservation_id: planned.settles, entry_id: entry.id, seq },
          });
        }
        const pending: PendingMovement = { entry, index };
        const next: BookRecord = { book, seq, ...applyPostings(state, planned.postings), pending };
        const committed = await writeBook(book, next, version);
        if (committed !== undefined) {
          await finishRecords(book, pending);
          await writeBook(book, { ...next, pending: null }, committed);
          return { ...entry, replayed: false };
        }
      }
      if (attempt >= maxAttempts) {
        throw new LedgerError(
          "ledger_busy",
          `the book ${book} kept changing: no movement committed after ${attempt} attempts`,
          { details: { attempts: attempt } },
        );
      }
      await pause(attempt);
    }
  }

  async function replay(
    book: string,
    claim: IndexRecord,
    idempotencyKey: string,
    request: MovementRequest,
  ): Promise<LedgerMovement> {
    if (claim.kind !== "idempotency" || claim.idempotency_key !== idempotencyKey) {
      throw new Error(`ledger index record of ${idempotencyKey} in ${book} holds another key`);
    }
    if (!sameRequest(claim.request, request)) {
      throw new LedgerError(
        "idempotency_conflict",
        `the idempotency key ${idempotencyKey} was used in ${book} with other arguments`,
        { details: { idempotency_key: idempotencyKey, entry_id: claim.entry_id } },
      );
    }
    const record = await store.get<LedgerEntry>(entryKey(book, claim.seq));
    if (record === undefined) throw new Error(`ledger entry ${claim.entry_id} of ${book} is missing`);
    return { ...record.value, replayed: true };
  }

  /** The open reservation `id` of the book, or the refusal. */
  async function openReservation(book: string, id: string, state: BookRecord): Promise<LedgerEntry> {
    const seq = seqOfEntryId(book, id);
    const record =
      seq !== undefined && seq <= state.seq ? await store.get<LedgerEntry>(entryKey(book, seq)) : undefined;
    if (record === undefined || record.value.kind !== "reserve") {
      throw new LedgerError("reservation_not_found", `the book ${book} has no reservation ${id}`, {
        details: { reservation_id: id },
      });
    }
    const settled = await store.get<IndexRecord>(settleIndexKey(book, id));
    if (settled !== undefined) {
      throw new LedgerError("reservation_settled", `the reservation ${id} was already captured or released`, {
        details: { reservation_id: id, settled_by: settled.value.entry_id },
      });
    }
    return record.value;
  }

  return {
    async fund(book, input) {
      assertBook(book);
      const key = idempotencyKeyOf(input);
      const amount = amountOf(input?.amount_cents);
      const reference = referenceOf(input?.reference);
      const request: MovementRequest = {
        kind: "fund",
        amount_cents: amount,
        reference,
        reservation_id: null,
      };
      return move(book, key, request, async () => ({
        amount_cents: amount,
        postings: [
          { account: "funding", amount_cents: -amount },
          { account: "available", amount_cents: amount },
        ],
      }));
    },

    async reserve(book, input) {
      assertBook(book);
      const key = idempotencyKeyOf(input);
      const amount = amountOf(input?.amount_cents);
      const reference = referenceOf(input?.reference);
      const request: MovementRequest = {
        kind: "reserve",
        amount_cents: amount,
        reference,
        reservation_id: null,
      };
      return move(book, key, request, async (state) => {
        if (state.available_cents < amount) {
          throw new LedgerError(
            "insufficient_credits",
            `the book ${book} has ${state.available_cents} cents available, ${amount} asked`,
            { details: { available_cents: state.available_cents, amount_cents: amount } },
          );
        }
        return {
          amount_cents: amount,
          postings: [
            { account: "available", amount_cents: -amount },
            { account: "reserved", amount_cents: amount },
          ],
        };
      });
    },

    async capture(book, input) {
      assertBook(book);
      const key = idempotencyKeyOf(input);
      const id = reservationIdOf(book, input?.reservation_id);
      const asked = input?.amount_cents === undefined ? null : amountOf(input.amount_cents);
      const request: MovementRequest = {
        kind: "capture",
        amount_cents: asked,
        reference: null,
        reservation_id: id,
      };
      return move(book, key, request, async (state) => {
        const reservation = await openReservation(book, id, state);
        const held = reservation.amount_cents;
        const amount = asked ?? held;
        if (amount > held) {
          throw new LedgerError(
            "invalid_amount",
            `the reservation ${id} holds ${held} cents, ${amount} asked`,
            {
              details: { reservation_id: id, reserved_cents: held, amount_cents: amount },
            },
          );
        }
        const postings: LedgerPosting[] = [
          { account: "reserved", amount_cents: -held },
          { account: "captured", amount_cents: amount },
        ];
        if (held > amount) postings.push({ account: "available", amount_cents: held - amount });
        return { amount_cents: amount, postings, settles: id };
      });
    },

    async release(book, input) {
      assertBook(book);
      const key = idempotencyKeyOf(input);
      const id = reservationIdOf(book, input?.reservation_id);
      const request: MovementRequest = {
        kind: "release",
        amount_cents: null,
        reference: null,
        reservation_id: id,
      };
      return move(book, key, request, async (state) => {
        const held = (await openReservation(book, id, state)).amount_cents;
        return {
          amount_cents: held,
          postings: [
            { account: "reserved", amount_cents: -held },
            { account: "available", amount_cents: held },
          ],
          settles: id,
        };
      });
    },

    async balance(book) {
      assertBook(book);
      const state = await view(book);
      return {
        available_cents: state.available_cents,
        reserved_cents: state.reserved_cents,
        funded_cents: state.funded_cents,
        captured_cents: state.captured_cents,
        seq: state.seq,
      };
    },

    async entries(book, options = {}) {
      assertBook(book);
      const limit = options.limit ?? DEFAULT_PAGE;
      if (!Number.isInteger(limit) || limit < 1 || limit > MAX_PAGE) {
        throw new LedgerError("invalid_page", `limit must be an integer from 1 to ${MAX_PAGE}`, {
          details: { limit },
        });
      }
      const state = await view(book);
      let after = 0;
      if (options.cursor !== undefined) {
        const seq = seqOfEntryId(book, options.cursor);
        if (seq === undefined || seq > state.seq) {
          throw new LedgerError("invalid_page", `the cursor is not one of the book ${book}`, {
            details: { cursor: options.cursor },
          });
        }
        after = seq;
      }
      const last = Math.min(state.seq, after + limit);
      const records = await Promise.all(
        Array.from({ length: last - after }, (_, i) => store.get<LedgerEntry>(entryKey(book, after + 1 + i))),
      );
      const entries = records.map((record, i) => {
        if (record === undefined) throw new Error(`ledger entry ${after + 1 + i} of ${book} is missing`);
        return record.value;
      });
      const tail = entries.at(-1);
      return last < state.seq && tail !== undefined ? { entries, cursor: tail.id } : { entries };
    },

    async entry(book, id) {
      assertBook(book);
      const seq = seqOfEntryId(book, id);
      if (seq === undefined) return undefined;
      const found = await store.get<LedgerEntry>(entryKey(book, seq));
      if (found !== undefined) return found.value;
      // The entry of a movement still pending appears once the movement is finished.
      const state = await view(book);
      if (seq > state.seq) return undefined;
      return (await store.get<LedgerEntry>(entryKey(book, seq)))?.value;
    },
  };
}

function emptyBook(book: string): BookRecord {
  return {
    book,
    seq: 0,
    available_cents: 0,
    reserved_cents: 0,
    funded_cents: 0,
    captured_cents: 0,
    pending: null,
  };
}

/** The balances after `postings`; refuses a total beyond the safe integers. */
function applyPostings(state: Balances, postings: readonly LedgerPosting[]): Balances {
  const next: Balances = {
    available_cents: state.available_cents,
    reserved_cents: state.reserved_cents,
    funded_cents: state.funded_cents,
    captured_cents: state.captured_cents,
  };
  for (const { account, amount_cents } of postings) {
    if (account === "funding") next.funded_cents -= amount_cents;
    else next[`${account}_cents`] += amount_cents;
  }
  for (const [name, value] of Object.entries(next)) {
    if (!Number.isSafeInteger(value)) {
      throw new LedgerError("invalid_amount", `the movement would take ${name} beyond the safe integers`, {
        details: { [name]: value },
      });
    }
    // Plans check what they take from available and reserved; a negative balance here is a defect.
    if (value < 0) throw new Error(`ledger movement would make ${name} negative`);
  }
  return next;
}

/** The store's refusal of a compare-and-set (a Store port `PortError`, or any error with that code). */
function isVersionConflict(error: unknown): boolean {
  return (
    typeof error === "object" && error !== null && (error as { code?: unknown }).code === "version_conflict"
  );
}

function sameRequest(a: MovementRequest, b: MovementRequest): boolean {
  return (
    a.kind === b.kind &&
    a.amount_cents === b.amount_cents &&
    a.reference === b.reference &&
    a.reservation_id === b.reservation_id
  );
}

function assertBook(book: unknown): asserts book is string {
  if (!isBookId(book)) {
    throw new LedgerError(
      "invalid_book",
      "a book id is 1 to 256 of A-Z a-z 0-9 . _ : -, starting with a letter or digit",
      { details: { book } },
    );
  }
}

function idempotencyKeyOf(input: { idempotency_key?: unknown } | undefined): string {
  const key = input?.idempotency_key;
  if (!isIdempotencyKey(key)) {
    throw new LedgerError(
      "invalid_idempotency_key",
      "an idempotency key is 1 to 512 of A-Z a-z 0-9 . _ : -, starting with a letter or digit",
      { details: { idempotency_key: key } },
    );
  }
  return key;
}

function amountOf(amount: unknown): number {
  if (typeof amount !== "number" || !Number.isSafeInteger(amount) || amount <= 0) {
    throw new LedgerError("invalid_amount", "an amount is a positive safe integer of cents", {
      details: { amount_cents: amount },
    });
  }
  return amount;
}

function referenceOf(reference: unknown): string | null {
  if (reference === undefined) return null;
  if (typeof reference !== "string" || reference.length < 1 || reference.length > MAX_REFERENCE_LENGTH) {
    throw new LedgerError(
      "invalid_reference",
      `a reference is a string of 1 to ${MAX_REFERENCE_LENGTH} characters`,
      {
        details: { reference },
      },
    );
  }
  return reference;
}

/** A reservation id that may name an entry of this book; anything else cannot be one of its reservations. */
function reservationIdOf(book: string, id: unknown): string {
  if (typeof id !== "string" || seqOfEntryId(book, id) === undefined) {
    throw new LedgerError("reservation_not_found", `the book ${book} has no reservation ${String(id)}`, {
      details: { reservation_id: id },
    });
  }
  return id;
}
