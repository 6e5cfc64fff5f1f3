import {
  type CampaignRow,
  campaignColumn,
  describeCharacters,
  unprintableCharacters,
} from "@mailpiece/orders";
import type { CampaignRowIssue } from "./types.ts";

/**
 * Whether the letter font prints every character of `text` (characters joined by spaces). The core gives one
 * backed by the typesetter; without one, only the characters no mailpiece can print (emoji, control and private-use
 * characters, see unprintableCharacters of the orders engine) are refused.
 */
export type PrintCheck = (text: string) => boolean | Promise<boolean>;

export const printableOnAnyMailpiece: PrintCheck = (text) => unprintableCharacters(text).length === 0;

/** Any UTF-16 code unit outside ASCII (surrogates included): plain ASCII always prints. */
const NON_ASCII = /[\u0080-\uffff]/;

/** The address cells printed in the envelope window. */
const PRINTED_ROLES = ["recipient_name", "line1", "line2", "city", "state", "zip"] as const;

/** The columns whose values a row prints: the template's columns and the address columns of the window. */
export function printedColumns(templateColumns: readonly string[], columns: readonly string[]): string[] {
  const printed = new Set(templateColumns);
  for (const role of PRINTED_ROLES) {
    const column = campaignColumn(columns, role);
    if (column !== undefined) printed.add(column);
  }
  return [...printed];
}

/**
 * The characters of `chars` that do not print: all are checked together, and only when some do not print are they
 * narrowed down, half by half, so a campaign whose characters all print costs one check.
 */
export async function findUnprintable(chars: readonly string[], canPrint: PrintCheck): Promise<string[]> {
  if (chars.length === 0) return [];
  if (await canPrint(chars.join(" "))) return [];
  if (chars.length === 1) return [...chars];
  const half = Math.ceil(chars.length / 2);
  return [
    ...(await findUnprintable(chars.slice(0, half), canPrint)),
    ...(await findUnprintable(chars.slice(half), canPrint)),
  ];
}

/**
 * For each row (by its index in `rows`) that prints a value holding a character the letter font cannot print, one
 * `character_unsupported` problem per such column. Values are compared in NFC; only non-ASCII characters are checked,
 * those of all rows together (see findUnprintable).
 */
export async function unprintableRowIssues(
  rows: readonly Pick<CampaignRow, "fields">[],
  checked: readonly string[],
  canPrint: PrintCheck,
): Promise<Map<number, CampaignRowIssue[]>> {
  const characters = new Set<string>();
  const withCharacters: number[] = [];
  rows.forEach((row, index) => {
    let found = false;
    for (const column of checked) {
      const value = cell(row, column);
      if (value === undefined || !NON_ASCII.test(value)) continue;
      found = true;
      for (const char of value.normalize("NFC")) if (NON_ASCII.test(char)) characters.add(char);
    }
    if (found) withCharacters.push(index);
  });
  const issues = new Map<number, CampaignRowIssue[]>();
  const unprintable = new Set(await findUnprintable([...characters], canPrint));
  if (unprintable.size === 0) return issues;
  for (const index of withCharacters) {
    const row = rows[index]!;
    for (const column of checked) {
      const value = cell(row, column);
      if (value === undefined || !NON_ASCII.test(value)) continue;
      const bad = [...new Set([...value.normalize("NFC")].filter((char) => unprintable.has(char)))];
      if (bad.length === 0) continue;
      const issue = {
        column,
        code: "character_unsupported",
        message: `${column} holds characters the letter font cannot print: ${describeCharacters(bad)}. Remove or replace them.`,
      };
      const list = issues.get(index);
      if (list === undefined) issues.set(index, [issue]);
      else list.push(issue);
    }
  }
  return issues;
}

function cell(row: Pick<CampaignRow, "fields">, column: string): string | undefined {
  return Object.hasOwn(row.fields, column) ? row.fields[column] : undefined;
}
