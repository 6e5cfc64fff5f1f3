import type { Block } from "./blocks.ts";
import { TypesetterError } from "./errors.ts";
import { parseHtml } from "./parse-html.ts";
import { parseMarkdown } from "./parse-markdown.ts";
import { parseRtf } from "./parse-rtf.ts";
import { parseText } from "./parse-text.ts";

/** The letter formats of the order request. */
export type LetterFormat = "text" | "markdown" | "html" | "rtf";

export const LETTER_FORMATS: readonly LetterFormat[] = ["text", "markdown", "html", "rtf"];

const PARSERS: Record<LetterFormat, (body: string) => Block[]> = {
  text: parseText,
  markdown: parseMarkdown,
  html: parseHtml,
  rtf: parseRtf,
};

/**
 * Parses a letter body into blocks for the layout engine; refuses other formats (`format_unsupported`), and a body
 * nested so deeply that its parser runs out of stack (`invalid_letter_input`).
 */
export function parseLetterBody(format: string, body: string): Block[] {
  if (!(LETTER_FORMATS as readonly string[]).includes(format)) {
    throw new TypesetterError(
      "format_unsupported",
      `"${format}" is not a letter format; send the letter as ${LETTER_FORMATS.map((known) => `"${known}"`).join(", ")}.`,
      { field: "format" },
    );
  }
  try {
    return PARSERS[format as LetterFormat](body);
  } catch (error) {
    if (error instanceof RangeError && /call stack/i.test(error.message)) {
      throw new TypesetterError("invalid_letter_input", "The letter body nests too deeply to be typeset.", {
        field: "body",
        cause: error,
      });
    }
    throw error;
  }
}
