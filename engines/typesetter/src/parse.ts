import type { Block } from "./blocks.ts";
import { TypesetterError } from "./errors.ts";
import { checkTables } from "./letter-limits.ts";
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
 * beyond `LETTER_LIMITS` or nested so deeply that its parser runs out of stack (`letter_too_complex`).
 */
export function parseLetterBody(format: string, body: string): Block[] {
  if (!(LETTER_FORMATS as readonly string[]).includes(format)) {
    throw new TypesetterError(
      "format_unsupported",
      `"${format}" is not a letter format; send the letter as ${LETTER_FORMATS.map((known) => `"${known}"`).join(", ")}.`,
      { field: "format" },
    );
  }
  let blocks: Block[];
  try {
    blocks = PARSERS[format as LetterFormat](body);
  } catch (error) {
    throw tooDeep(error);
  }
  checkTables(blocks);
  return blocks;
}

/** A stack overflow as the refusal of a body nested too deeply (`letter_too_complex`); any other error as it is. */
export function tooDeep(error: unknown): unknown {
  if (error instanceof RangeError && /call stack/i.test(error.message)) {
    return new TypesetterError("letter_too_complex", "The letter body nests too deeply to be typeset.", {
      field: "body",
      cause: error,
    });
  }
  return error;
}
