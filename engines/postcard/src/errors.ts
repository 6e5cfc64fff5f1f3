import { defineError, type ErrorOptions } from "@mailpiece/errors";

/**
 * Stable error codes of the postcard package, for mistakes of the caller (never for a bad PDF: that is a problem
 * in the check result).
 * - `invalid_postcard_size`: the size is not one of 4x6, 6x9, 11x6.
 * - `invalid_postcard_input`: the PDF is not a Uint8Array, or an option is malformed (a negative tolerance).
 *
 * Internal codes, for content the checker cannot follow; `checkPostcard` reports them as the problem
 * `postcard_content_unreadable`, so they never reach a caller:
 * - `content_undecodable`: a stream's data cannot be decoded (an unsupported or corrupt filter).
 * - `content_malformed`: content that cannot be read at all (nesting deeper than any real content stream has).
 * - `content_too_complex`: content too large or nested too deeply to follow to the end.
 */
export type PostcardErrorCode =
  | "invalid_postcard_size"
  | "invalid_postcard_input"
  | "content_undecodable"
  | "content_malformed"
  | "content_too_complex";

/** The options of a PostcardError: those of every Mailpiece error, and the input at fault. */
export interface PostcardErrorOptions extends ErrorOptions {
  field?: string;
}

const PostcardErrorBase = defineError<PostcardErrorCode>("PostcardError");

/** The one error class of the postcard package. `code` is a stable wire contract; `message` is for people. */
export class PostcardError extends PostcardErrorBase {
  readonly field: string | undefined;

  constructor(code: PostcardErrorCode, message: string, options: PostcardErrorOptions = {}) {
    super(code, message, options);
    this.field = options.field;
  }

  /** True for any PostcardError, also one created by another copy of this package. */
  static override isInstance(value: unknown): value is PostcardError {
    return PostcardErrorBase.isInstance(value);
  }
}
