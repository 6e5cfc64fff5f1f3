import { addressLines } from "./address-block.ts";
import { TypesetterError } from "./errors.ts";
import type { FaceRole, FontFace } from "./fonts.ts";
import { FAMILY_FACES, HANDWRITING_FACES, loadFace } from "./fonts.ts";
import type { HandwritingStyle } from "./handwriting-styles.ts";
import {
  DEFAULT_HANDWRITING_STYLE,
  HANDWRITING_STYLE_FACES,
  HANDWRITING_STYLES,
  MAX_HANDWRITTEN_MESSAGE_CHARS,
} from "./handwriting-styles.ts";
import {
  checkAddressBlock,
  checkOptionalString,
  invalid,
  oneLine,
  requirePrintable,
} from "./input-checks.ts";
import { layoutHandwritten } from "./layout-handwritten.ts";
import { letterDate, todayUtc } from "./letter-date.ts";
import { normalizeText } from "./normalize-text.ts";
import { renderPdf } from "./render-pdf.ts";
import type { AddressBlock } from "./typeset-letter.ts";

export interface HandwrittenInput {
  /** The message as written: "\n" breaks a line and blank lines are kept; at most 800 characters. */
  message: string;
  /** Printed in the recipient window of the #10 double-window envelope. */
  recipient: AddressBlock;
  /** Printed in the return window. */
  sender: AddressBlock;
  /** The handwriting: "casual" (Caveat, the default), "neat" (Patrick Hand) or "slanted" (Kalam). */
  style?: HandwritingStyle;
  /** The card's date, `YYYY-MM-DD`, written at the top right; default today's date in UTC. */
  date?: string;
  /** e.g. "TEST MODE": set diagonally in light grey across the page. */
  watermark?: string;
}

export interface HandwrittenResult {
  pdf: Uint8Array;
  /** Always 1: a card is one page. */
  page_count: number;
  /** The size the message was set at, in points (the style's size, or smaller to fit). */
  font_size: number;
}

/**
 * Typesets a handwritten card as a print-ready PDF: one US letter page (8.5 x 11 in) for the #10 double-window
 * envelope, folded and mailed like a one-page letter. The addresses print in the envelope windows exactly as on a
 * letter (Tinos, 10 pt shrinking to 8 pt, refused with `address_too_long_for_window` when they do not fit). Below
 * them the date and the message are set in the style's handwriting face (`HANDWRITING_STYLE_FACES`), at the style's
 * size or smaller, down to its smallest, until the whole message fits the page. A message that does not fit at the
 * smallest size, or holds more than `MAX_HANDWRITTEN_MESSAGE_CHARS` characters, is refused with
 * `message_too_long_for_card` (field "message"); it is never cut. The same input with a `date` always gives the
 * same bytes.
 *
 * Throws TypesetterError: `invalid_letter_input` (a malformed input, an unknown style, an empty message, a date that
 * is not a calendar date), `message_too_long_for_card`, `address_too_long_for_window`, `character_unsupported` (a
 * character the style's face or the address face cannot print, or right-to-left text).
 */
export async function typesetHandwritten(input: HandwrittenInput): Promise<HandwrittenResult> {
  checkInput(input);
  const style = input.style ?? DEFAULT_HANDWRITING_STYLE;
  // A bound on the raw text first, so that no work is spent on a message far beyond the limit.
  if (input.message.length > 4 * MAX_HANDWRITTEN_MESSAGE_CHARS)
    tooLong(`more than ${MAX_HANDWRITTEN_MESSAGE_CHARS}`);
  const message = normalizeText(input.message)
    .split("\n")
    .map((line) => line.trimEnd())
    .join("\n")
    .replace(/^\n+/, "")
    .trimEnd();
  if (message === "") invalid("message", "The message is empty.");
  const chars = [...message].length;
  if (chars > MAX_HANDWRITTEN_MESSAGE_CHARS) tooLong(String(chars));
  const dateLine = letterDate(input.date ?? todayUtc());
  const watermark = input.watermark === undefined ? undefined : oneLine(input.watermark);

  const times = FAMILY_FACES.times;
  const [hand, regular, bold] = await Promise.all([
    loadFace(HANDWRITING_FACES[style]),
    loadFace(times.regular),
    watermark ? loadFace(times.bold) : undefined,
  ]);
  const sender = addressLines(input.sender.lines);
  const recipient = addressLines(input.recipient.lines);
  requirePrintable(hand, message, "message");
  requirePrintable(hand, dateLine, "date");
  requirePrintable(regular, sender.join(" "), "sender");
  requirePrintable(regular, recipient.join(" "), "recipient");
  if (watermark && bold) requirePrintable(bold, watermark, "watermark");

  const faces: Record<FaceRole, FontFace> = {
    regular,
    bold: bold ?? regular,
    italic: regular,
    "bold-italic": regular,
    signature: hand,
  };
  const { size: largest, min_size: smallest } = HANDWRITING_STYLE_FACES[style];
  const sizes: number[] = [];
  for (let size = largest; size >= smallest; size--) sizes.push(size);
  const { layout, size } = layoutHandwritten(
    {
      message,
      date_line: dateLine,
      sender,
      recipient,
      ...(watermark ? { watermark } : {}),
      sizes,
      style,
    },
    faces,
  );
  const pdf = await renderPdf(layout, faces, { title: "Handwritten card" });
  return { pdf, page_count: layout.pages.length, font_size: size };
}

function tooLong(count: string): never {
  throw new TypesetterError(
    "message_too_long_for_card",
    `The message has ${count} characters; a card holds at most ${MAX_HANDWRITTEN_MESSAGE_CHARS}.`,
    { field: "message" },
  );
}

function checkInput(input: HandwrittenInput): void {
  if (typeof input !== "object" || input === null) invalid("", "The card input must be an object.");
  if (typeof input.message !== "string") invalid("message", "The message must be a string.");
  if (input.style !== undefined && !(HANDWRITING_STYLES as readonly unknown[]).includes(input.style)) {
    invalid(
      "style",
      `The style must be one of ${HANDWRITING_STYLES.map((style) => `"${style}"`).join(", ")}.`,
    );
  }
  checkOptionalString(input.date, "date", "The date must be a string written YYYY-MM-DD.");
  checkOptionalString(input.watermark, "watermark", "The watermark must be a string.");
  for (const field of ["sender", "recipient"] as const) {
    if (input[field] === undefined) invalid(field, `The ${field} address is required.`);
    checkAddressBlock(input[field], field);
  }
}
