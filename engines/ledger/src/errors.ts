import { defineError, type ErrorOptions } from "@mailpiece/errors";

/**
 * Stable error codes of the ledger engine. Apps map them to HTTP in one place.
 * - `insufficient_credits`: a reservation larger than the book's available credits; `details.available_cents`
 *   holds what is available. Nothing was written.
 * - `idempotency_conflict`: the idempotency key was already used in this book with other arguments (another
 *   operation, amount, reference or reservation); `details.entry_id` is the entry it made.
 * - `reservation_not_found`: no reservation with this id in this book.
 * - `reservation_settled`: the reservation was already captured or released (`details.settled_by` is that entry).
 * - `invalid_amount`: an amount that is not a positive safe integer of cents, a capture larger than its
 *   reservation, or a movement that would take a balance beyond `Number.MAX_SAFE_INTEGER`.
 * - `invalid_book`: a book id that is not 1 to 256 of `A-Z a-z 0-9 . _ : -`, starting with a letter or digit.
 * - `invalid_idempotency_key`: an idempotency key that is not 1 to 512 of those characters, starting with a letter
 *   or digit.
 * - `invalid_reference`: a reference that is not a string of 1 to 1024 characters.
 * - `invalid_page`: a cursor that `entries` did not give for this book, or a limit that is not an integer from 1 to
 *   1000.
 * - `ledger_busy`: the book kept changing under the movement (compare-and-set lost on every bounded attempt);
 *   nothing was written by this call, and retrying later with the same idempotency key is safe.
 */
export type LedgerErrorCode =
  | "insufficient_credits"
  | "idempotency_conflict"
  | "reservation_not_found"
  | "reservation_settled"
  | "invalid_amount"
  | "invalid_book"
  | "invalid_idempotency_key"
  | "invalid_reference"
  | "invalid_page"
  | "ledger_busy";

/** The options of a LedgerError: those of every Mailpiece error, and facts about the refusal. */
export interface LedgerErrorOptions extends ErrorOptions {
  details?: Readonly<Record<string, unknown>>;
}

const LedgerErrorBase = defineError<LedgerErrorCode>("LedgerError");

/**
 * The one error class of the ledger package. `code` is a stable wire contract; `message` is for people; `details`
 * holds the facts a caller may show or branch on (for example `available_cents` for `insufficient_credits`).
 */
export class LedgerError extends LedgerErrorBase {
  readonly details: Readonly<Record<string, unknown>>;

  constructor(code: LedgerErrorCode, message: string, options: LedgerErrorOptions = {}) {
    super(code, message, options);
    this.details = options.details ?? {};
  }

  /** True for any LedgerError, also one created by another copy of this package. */
  static override isInstance(value: unknown): value is LedgerError {
    return LedgerErrorBase.isInstance(value);
  }
}
