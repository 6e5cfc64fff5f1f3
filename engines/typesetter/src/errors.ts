/**
 * Stable error codes of the typesetter. Apps map them to HTTP in one place.
 * - `format_unsupported`: the letter format cannot be typeset (yet).
 * - `invalid_letter_input`: the letter input is malformed (a missing body, render options out of range).
 * - `letter_too_complex`: the body is within the size limit but holds more structure than a letter may (nesting,
 *   lines, list items, emphasis markers, link brackets or table columns beyond `LETTER_LIMITS`).
 * - `address_too_long_for_window`: an address block does not fit its envelope window even at the smallest size.
 * - `character_unsupported`: the text holds characters that no embedded font can print.
 * - `image_unreadable`: a drawn signature is not a readable PNG or JPEG data URL.
 * - `pdf_unreadable`: the bytes are not a PDF that can be read, or it has no pages.
 * - `pdf_encrypted`: the PDF is encrypted (password-protected) and cannot be printed as sent.
 */
export type TypesetterErrorCode =
  | "format_unsupported"
  | "invalid_letter_input"
  | "letter_too_complex"
  | "address_too_long_for_window"
  | "character_unsupported"
  | "image_unreadable"
  | "pdf_unreadable"
  | "pdf_encrypted";

const MARKER = Symbol.for("mailpiece.typesetter_error");

/**
 * The one error class of the typesetter package. `code` is a stable wire contract; `message` is for people.
 * `field` names the `LetterInput` key at fault where one is ("body", "title", "recipient", "sender", "signature",
 * "signer_name", "date", "watermark", "render", "format", "furniture").
 */
export class TypesetterError extends Error {
  readonly code: TypesetterErrorCode;
  readonly field: string | undefined;
  readonly [MARKER] = true;

  constructor(code: TypesetterErrorCode, message: string, options?: { field?: string; cause?: unknown }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = "TypesetterError";
    this.code = code;
    this.field = options?.field;
  }

  /** True for any TypesetterError, also one created by another copy of this package. */
  static isInstance(value: unknown): value is TypesetterError {
    return typeof value === "object" && value !== null && (value as Record<symbol, unknown>)[MARKER] === true;
  }
}
