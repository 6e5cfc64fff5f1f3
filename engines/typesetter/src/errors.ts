import type { ErrorOptions, Issue } from "@mailpiece/errors";
import { defineError } from "@mailpiece/errors";

/**
 * Stable error codes of the typesetter. Apps map them to HTTP in one place.
 * - `format_unsupported`: the letter format cannot be typeset (yet).
 * - `invalid_letter_input`: the letter input is malformed (a missing body, render options out of range, a body that
 *   is not readable RTF).
 * - `letter_too_complex`: the body is within the size limit but holds more structure than a letter may (nesting,
 *   lines, list items, emphasis markers, link brackets or table columns beyond `LETTER_LIMITS`).
 * - `address_too_long_for_window`: an address block does not fit its envelope window even at the smallest size.
 * - `message_too_long_for_card`: the message of a handwritten card does not fit its one page even at the style's
 *   smallest size, or is longer than `MAX_HANDWRITTEN_MESSAGE_CHARS`.
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
  | "message_too_long_for_card"
  | "character_unsupported"
  | "image_unreadable"
  | "pdf_unreadable"
  | "pdf_encrypted";

/** The options of a TypesetterError: those of every Mailpiece error, and the `LetterInput` key at fault. */
export interface TypesetterErrorOptions extends ErrorOptions {
  field?: string;
}

const MailpieceTypesetterError = defineError<TypesetterErrorCode>("TypesetterError");

/**
 * The one error class of the typesetter package. `code` is a stable wire contract; `message` is for people.
 * `field` names the input key at fault where one is (of a `LetterInput`: "body", "title", "recipient", "sender",
 * "signature", "signer_name", "date", "watermark", "render", "format", "furniture"; of a `HandwrittenInput`:
 * "message", "style", "recipient", "sender", "date", "watermark"); such an error also carries it as its one issue
 * (path `field`, the error's code and message) unless other issues are given.
 */
export class TypesetterError extends MailpieceTypesetterError {
  readonly field: string | undefined;

  constructor(code: TypesetterErrorCode, message: string, options: TypesetterErrorOptions = {}) {
    const { field, ...rest } = options;
    const issues: readonly Issue[] | undefined =
      rest.issues ?? (field === undefined ? undefined : [{ path: field, code, message }]);
    super(code, message, issues === undefined ? rest : { ...rest, issues });
    this.field = field;
  }

  /** True for any TypesetterError, also one created by another copy of this package. */
  static override isInstance(value: unknown): value is TypesetterError {
    return MailpieceTypesetterError.isInstance(value);
  }
}
