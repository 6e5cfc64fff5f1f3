import { charCount } from "./text-length.ts";

/** One piece of a campaign template: literal text, or the value of a CSV column. */
export type TemplatePart = { text: string } | { column: string };

/** A bulk template taken apart once, so filling it for each row needs no parsing. */
export interface CampaignTemplate {
  parts: readonly TemplatePart[];
  /** The columns (as written in the CSV header) the template takes values from, each once, in order. */
  columns: readonly string[];
  /** Characters of the literal text (code points). */
  literalChars: number;
  /** true: values are escaped as HTML text when filled in. */
  html: boolean;
}

/** A {{placeholder}}: the name inside double braces, surrounding spaces left out. */
export const PLACEHOLDER = /\{\{\s*([^{}]*?)\s*\}\}/g;

/**
 * Takes a template_text or template_html apart. A {{placeholder}} names a column without regard to case (columns as
 * written in the header); one that names no column is kept as literal text. In html, values are escaped as text, so
 * a cell can never add markup to the letter.
 */
export function compileTemplate(
  template: string,
  columns: readonly string[],
  options: { html: boolean },
): CampaignTemplate {
  const byName = new Map<string, string>();
  for (const column of columns) {
    const key = column.toLowerCase();
    if (!byName.has(key)) byName.set(key, column);
  }
  const parts: TemplatePart[] = [];
  const used = new Set<string>();
  let literal = "";
  let literalChars = 0;
  let last = 0;
  const pushLiteral = (text: string) => {
    literal += text;
    literalChars += charCount(text);
  };
  for (const match of template.matchAll(PLACEHOLDER)) {
    pushLiteral(template.slice(last, match.index));
    last = match.index + match[0].length;
    const column = byName.get((match[1] ?? "").toLowerCase());
    if (column === undefined) {
      pushLiteral(match[0]);
      continue;
    }
    if (literal !== "") parts.push({ text: literal });
    literal = "";
    parts.push({ column });
    used.add(column);
  }
  pushLiteral(template.slice(last));
  if (literal !== "") parts.push({ text: literal });
  return { parts, columns: [...used], literalChars, html: options.html };
}

/** The template with every placeholder replaced by the row's value (escaped in html); a missing value is empty. */
export function fillTemplate(template: CampaignTemplate, values: Readonly<Record<string, string>>): string {
  let out = "";
  for (const part of template.parts) {
    if ("text" in part) out += part.text;
    else out += templateValue(template, Object.hasOwn(values, part.column) ? values[part.column] : undefined);
  }
  return out;
}

/** A value as it is filled into this template: escaped as HTML text in html templates. */
export function templateValue(template: CampaignTemplate, value: string | undefined): string {
  if (value === undefined) return "";
  return template.html ? escapeHtml(value) : value;
}

const HTML_SPECIAL = /[&<>"']/g;
const HTML_ENTITY: Readonly<Record<string, string>> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&#39;",
};

/** Text made safe to place in HTML: & < > " and ' as character references. */
export function escapeHtml(text: string): string {
  return text.replace(HTML_SPECIAL, (char) => HTML_ENTITY[char] ?? char);
}
