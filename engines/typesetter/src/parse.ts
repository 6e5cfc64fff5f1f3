import type { Block } from "./blocks.ts";
import { TypesetterError } from "./errors.ts";
import { parseText } from "./parse-text.ts";

/** The letter formats of the order request. Only "text" is typeset today. */
export type LetterFormat = "text" | "markdown" | "html" | "rtf";

const KNOWN: readonly string[] = ["text", "markdown", "html", "rtf"];

/** Parses a letter body into blocks for the layout engine; refuses formats without a parser (`format_unsupported`). */
export function parseLetterBody(format: string, body: string): Block[] {
  if (format === "text") return parseText(body);
  const what = KNOWN.includes(format)
    ? `Letters in ${format} format are not typeset yet`
    : `"${format}" is not a letter format`;
  throw new TypesetterError("format_unsupported", `${what}; send the letter as plain text (format "text").`, {
    field: "format",
  });
}
