import { type CampaignRow, charCount, fillTemplate, templateValue } from "@mailpiece/orders";
import { CampaignsError } from "./errors.ts";
import type { CampaignLetter } from "./letter.ts";

/**
 * The pages a letter takes once typeset (`format` says whether `letterText` is plain text or HTML). The core gives
 * the typesetter's, with the sender, the date and the render settings every piece is set with.
 */
export type PageCounter = (
  letterText: string,
  letter: { format: "text" | "html" },
) => number | Promise<number>;

/** The pages every piece of a campaign is priced at, and how they were decided. */
export interface CampaignDocumentPages {
  page_count: number;
  page_count_basis: string;
}

/** The letter whose pages bound every row's, and where its values come from. */
export interface PageBoundLetter {
  text: string;
  format: "text" | "html";
  /** `column: row N`, or `column: rows N and M`, one per placeholder column. */
  sources: string[];
}

/** The longest value of a column among the rows, and the value with the most line breaks if another. */
interface Longest {
  value: string;
  chars: number;
  row: number;
  breaks: number;
  breaksValue: string;
  breaksRow: number;
}

/**
 * The one letter whose page count bounds every row's: the template with each placeholder replaced by the longest
 * value of its column among `rows` (in text, followed on a new line by the value with the most line breaks when that
 * is another one), so no row's letter is longer and none takes more pages.
 */
export function pageBoundLetter(
  letter: CampaignLetter,
  rows: readonly Pick<CampaignRow, "row_number" | "fields">[],
): PageBoundLetter {
  const { template } = letter;
  const longest = new Map<string, Longest>();
  for (const row of rows) {
    for (const column of template.columns) {
      const value = (Object.hasOwn(row.fields, column) ? row.fields[column] : undefined) ?? "";
      const printed = templateValue(template, value);
      const best = longest.get(column);
      if (best === undefined) {
        const breaks = template.html ? 0 : lineBreaks(value);
        const first = { value, chars: charCount(printed), row: row.row_number };
        longest.set(column, { ...first, breaks, breaksValue: value, breaksRow: row.row_number });
        continue;
      }
      // A string has at least as many code units as characters (and line breaks): most values need no counting.
      if (printed.length > best.chars) {
        const chars = charCount(printed);
        if (chars > best.chars) Object.assign(best, { value, chars, row: row.row_number });
      }
      if (!template.html && value.length > best.breaks) {
        const breaks = lineBreaks(value);
        if (breaks > best.breaks)
          Object.assign(best, { breaks, breaksValue: value, breaksRow: row.row_number });
      }
    }
  }
  const standIns: [string, string][] = [];
  const sources: string[] = [];
  for (const [column, best] of longest) {
    const both = best.breaksRow !== best.row && best.breaks > lineBreaks(best.value);
    standIns.push([column, both ? `${best.value}\n${best.breaksValue}` : best.value]);
    sources.push(both ? `${column}: rows ${best.row} and ${best.breaksRow}` : `${column}: row ${best.row}`);
  }
  return {
    // The stand-ins are raw values: fillTemplate escapes them in html as it does each row's.
    text: fillTemplate(template, Object.fromEntries(standIns)),
    format: template.html ? "html" : "text",
    sources,
  };
}

/**
 * The pages of a text or html campaign: `pageCount` is called once, on pageBoundLetter, whatever the number of rows
 * (a template without placeholders is the same letter for every row). Throws CampaignsError `page_count_invalid`
 * when it answers something other than an integer of at least 1; its own errors pass through.
 */
export async function letterPages(
  letter: CampaignLetter,
  rows: readonly Pick<CampaignRow, "row_number" | "fields">[],
  pageCount: PageCounter,
): Promise<CampaignDocumentPages> {
  const bound = pageBoundLetter(letter, rows);
  const pages = checkPageCount(await pageCount(bound.text, { format: bound.format }));
  const { field } = letter;
  const basis =
    bound.sources.length === 0
      ? `${field} has no placeholders, so every row's letter is the same; it was typeset once.`
      : `${field} was typeset once with each placeholder replaced by the longest value of its column among the valid rows (${bound.sources.join("; ")}); no row's letter is longer, so none takes more pages.`;
  return { page_count: pages, page_count_basis: basis };
}

/** The pages of a pdf campaign: every row is mailed the same PDF. */
export function pdfPages(pages: number): CampaignDocumentPages {
  const count = checkPageCount(pages);
  return {
    page_count: count,
    page_count_basis: `bulk.pdf has ${count} page${count === 1 ? "" : "s"}; every row is mailed the same PDF.`,
  };
}

function checkPageCount(pages: unknown): number {
  if (typeof pages !== "number" || !Number.isSafeInteger(pages) || pages < 1) {
    throw new CampaignsError(
      "page_count_invalid",
      `A page count must be an integer of at least 1; got ${String(pages)}.`,
    );
  }
  return pages;
}

/** Line breaks of a text: LF, CRLF and a lone CR each count once. */
export function lineBreaks(text: string): number {
  let count = 0;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    if (unit === 10 || (unit === 13 && text.charCodeAt(i + 1) !== 10)) count++;
  }
  return count;
}
