import { formatUsd } from "./format-usd.ts";
import type { Amount, Block, Fact, Layout } from "./layout.ts";
import { MESSAGE_LIMITS } from "./limits.ts";
import { wrapText } from "./wrap-text.ts";

const WIDTH = MESSAGE_LIMITS.text_width;
const INDENT = "  ";

/**
 * The plain-text version of a layout: no markup, lines of at most 78 characters except a word longer than that
 * (a URL), labels before values, amounts right-aligned in one column, the brand in a footer after the usual `-- `
 * line. Lines end with LF; the sender writes them as CRLF.
 */
export function renderText(layout: Layout): string {
  const sections: string[][] = [];
  if (layout.notice !== null) sections.push(wrapText(layout.notice, WIDTH));
  const heading = wrapText(layout.heading, WIDTH);
  const rule = "-".repeat(Math.min(WIDTH, Math.max(...heading.map((line) => line.length))));
  sections.push([layout.brand.name], [...heading, rule]);
  for (const block of layout.blocks) sections.push(textBlock(block));
  const footer = ["-- ", layout.brand.name];
  if (layout.brand.url !== null) footer.push(layout.brand.url);
  if (layout.brand.support_email !== null) {
    footer.push(...wrapText(`Questions? Write to ${layout.brand.support_email}`, WIDTH));
  }
  sections.push(footer);
  return `${sections.map((lines) => lines.join("\n")).join("\n\n")}\n`;
}

function textBlock(block: Block): string[] {
  switch (block.kind) {
    case "paragraph":
      return wrapText(block.text, WIDTH);
    case "facts":
      return factLines(block.rows);
    case "list":
      return [
        block.title,
        ...block.items.flatMap((item) => wrapText(item, WIDTH, `${INDENT}- `, `${INDENT}  `)),
      ];
    case "amounts":
      return [block.title, ...amountLines(block.rows, block.total)];
    case "link":
      return [`${block.label}:`, block.url];
  }
}

/**
 * `Label:` in a column as wide as the longest label, the value after it, wrapped under itself; a value that starts
 * with a word too long for that (a URL) goes whole on the next line instead.
 */
function factLines(rows: readonly Fact[]): string[] {
  const column = Math.max(...rows.map((row) => row.label.length)) + 2;
  return rows.flatMap((row) => {
    const lines = wrapText(row.value, WIDTH, `${row.label}:`.padEnd(column), " ".repeat(column));
    return lines[0]!.length > WIDTH ? [`${row.label}:`, ...wrapText(row.value, WIDTH, INDENT)] : lines;
  });
}

/** Labels on the left, wrapped in their column; amounts right-aligned; a rule; the total. */
function amountLines(rows: readonly Amount[], total: Amount): string[] {
  const amounts = [...rows, total].map((row) => formatUsd(row.cents));
  const amountWidth = Math.max(...amounts.map((amount) => amount.length));
  const longest = Math.max(...[...rows, total].map((row) => row.label.length));
  const labelWidth = Math.min(longest, WIDTH - INDENT.length - 2 - amountWidth);
  const line = (row: Amount, amount: string): string[] => {
    const label = wrapText(row.label, labelWidth, "", INDENT);
    const [first, ...rest] = label;
    return [
      `${INDENT}${(first ?? "").padEnd(labelWidth)}  ${amount.padStart(amountWidth)}`,
      ...rest.map((part) => `${INDENT}${part}`),
    ];
  };
  return [
    ...rows.flatMap((row, index) => line(row, amounts[index]!)),
    `${INDENT}${"-".repeat(labelWidth + 2 + amountWidth)}`,
    ...line(total, amounts[amounts.length - 1]!),
  ];
}
