import { TypesetterError } from "./errors.ts";
import type { FontFace } from "./fonts.ts";
import { normalizeText } from "./normalize-text.ts";

/** Scripts written right to left. Their glyphs exist in Tinos and Arimo, but lines are not reordered for them yet. */
const RIGHT_TO_LEFT =
  /[\p{Script=Hebrew}\p{Script=Arabic}\p{Script=Syriac}\p{Script=Thaana}\p{Script=Nko}\p{Script=Samaritan}\p{Script=Mandaic}\p{Script=Adlam}]/u;

/**
 * Refuses text that `face` cannot print as written: right-to-left text, and characters the face has no glyph for
 * (`character_unsupported` on `field`, naming up to five of them).
 */
export function requirePrintable(face: FontFace, text: string, field: string): void {
  const rtl = RIGHT_TO_LEFT.exec(text);
  if (rtl) {
    const code = rtl[0].codePointAt(0)!.toString(16).toUpperCase().padStart(4, "0");
    throw new TypesetterError(
      "character_unsupported",
      `The ${field} holds right-to-left text ("${rtl[0]}", U+${code}), which letters cannot be typeset in yet.`,
      { field },
    );
  }
  const missing = face.missing(text);
  if (missing.length === 0) return;
  const shown = missing
    .slice(0, 5)
    .map((char) => `"${char}" (U+${char.codePointAt(0)!.toString(16).toUpperCase().padStart(4, "0")})`)
    .join(", ");
  const more = missing.length > 5 ? ` and ${missing.length - 5} more` : "";
  throw new TypesetterError(
    "character_unsupported",
    `The ${field} holds characters the letter font ${face.name} cannot print: ${shown}${more}. Remove or replace them.`,
    { field },
  );
}

/** Text that prints on one line: normalised, line breaks as spaces, trimmed. */
export function oneLine(text: string): string {
  return normalizeText(text).replace(/\n/g, " ").trim();
}

/** Refuses an address that is not `{ lines: string[] }` (`invalid_letter_input` on `field`); absent is fine. */
export function checkAddressBlock(value: unknown, field: "sender" | "recipient"): void {
  if (value === undefined) return;
  const block = value as { lines?: unknown } | null;
  const valid =
    typeof block === "object" &&
    block !== null &&
    Array.isArray(block.lines) &&
    block.lines.every((line) => typeof line === "string");
  if (!valid) invalid(field, `The ${field} address must be { lines: string[] }.`);
}

/** Refuses an optional input that is present but not a string (`invalid_letter_input` on `field`). */
export function checkOptionalString(value: unknown, field: string, message: string): void {
  if (value !== undefined && typeof value !== "string") invalid(field, message);
}

/** Throws `invalid_letter_input` on `field` ("" for the whole input). */
export function invalid(field: string, message: string): never {
  throw new TypesetterError("invalid_letter_input", message, field === "" ? {} : { field });
}
