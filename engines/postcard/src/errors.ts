/**
 * Stable error codes of the postcard package, for mistakes of the caller (never for a bad PDF: that is a problem
 * in the check result).
 * - `invalid_postcard_size`: the size is not one of 4x6, 6x9, 11x6.
 * - `invalid_postcard_input`: the PDF is not a Uint8Array, or an option is malformed (a negative tolerance).
 */
export type PostcardErrorCode = "invalid_postcard_size" | "invalid_postcard_input";

const MARKER = Symbol.for("mailpiece.postcard_error");

/** The one error class of the postcard package. `code` is a stable wire contract; `message` is for people. */
export class PostcardError extends Error {
  readonly code: PostcardErrorCode;
  readonly field: string | undefined;
  readonly [MARKER] = true;

  constructor(code: PostcardErrorCode, message: string, options?: { field?: string; cause?: unknown }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = "PostcardError";
    this.code = code;
    this.field = options?.field;
  }

  /** True for any PostcardError, also one created by another copy of this package. */
  static isInstance(value: unknown): value is PostcardError {
    return typeof value === "object" && value !== null && (value as Record<symbol, unknown>)[MARKER] === true;
  }
}
