import {
  type CampaignRow,
  type CampaignTemplate,
  charCount,
  compileTemplate,
  fillTemplate,
  MAX_LETTER_CHARS,
  MAX_TEMPLATE_HTML_CHARS,
  templateValue,
} from "@mailpiece/orders";
import type { CampaignRowIssue } from "./types.ts";

/** A text or html campaign's template, taken apart once, and the request field it comes from. */
export interface CampaignLetter {
  template: CampaignTemplate;
  field: "template_text" | "template_html";
}

/**
 * The letter of a text or html campaign (undefined in pdf mode): template_text or template_html, its
 * {{placeholders}} naming the columns without regard to case; in html, values are escaped as text.
 */
export function campaignLetter(bulk: {
  content_mode: "text" | "html" | "pdf";
  template_text?: string;
  template_html?: string;
  columns: readonly string[];
}): CampaignLetter | undefined {
  if (bulk.content_mode === "pdf") return undefined;
  const field = bulk.content_mode === "html" ? "template_html" : "template_text";
  return {
    template: compileTemplate(bulk[field] ?? "", bulk.columns, { html: bulk.content_mode === "html" }),
    field,
  };
}

/** The letter one row is mailed: the template with each placeholder replaced by the row's value. */
export function rowLetter(letter: CampaignLetter, row: Pick<CampaignRow, "fields">): string {
  return fillTemplate(letter.template, row.fields);
}

/**
 * A row's letter is held to the length of a single letter: MAX_LETTER_CHARS characters, or MAX_TEMPLATE_HTML_CHARS
 * of HTML. Counted without filling the letter; the problem (`too_long`) is put on the row's longest value's column.
 */
export function letterLengthIssue(
  letter: CampaignLetter,
  row: Pick<CampaignRow, "fields">,
): CampaignRowIssue | undefined {
  const { template, field } = letter;
  const limit = template.html ? MAX_TEMPLATE_HTML_CHARS : MAX_LETTER_CHARS;
  let chars = template.literalChars;
  let longest = { column: "", chars: -1 };
  for (const [column, times] of occurrences(template)) {
    const valueChars = charCount(
      templateValue(template, Object.hasOwn(row.fields, column) ? row.fields[column] : undefined),
    );
    chars += times * valueChars;
    if (valueChars > longest.chars) longest = { column, chars: valueChars };
  }
  if (chars <= limit) return undefined;
  return {
    column: longest.column,
    code: "too_long",
    message: `With this row's values ${field} is ${chars} characters; a letter has at most ${limit}.`,
  };
}

const OCCURRENCES = new WeakMap<CampaignTemplate, [string, number][]>();

/** How many times each column appears in the template. */
function occurrences(template: CampaignTemplate): [string, number][] {
  const known = OCCURRENCES.get(template);
  if (known !== undefined) return known;
  const counts = new Map<string, number>();
  for (const part of template.parts) {
    if ("column" in part) counts.set(part.column, (counts.get(part.column) ?? 0) + 1);
  }
  const list = [...counts];
  OCCURRENCES.set(template, list);
  return list;
}
