import escapeHtml from "escape-html";
import { formatUsd } from "./format-usd.ts";
import { httpHref, isPlainEmailAddress } from "./http-url.ts";
import type { Amount, Block, Fact, Layout } from "./layout.ts";

const FONT = "font-family:Helvetica,Arial,sans-serif;";
const CELL = `padding:0 32px 20px 32px;${FONT}font-size:15px;line-height:22px;color:#18181b;`;
const TABLE = 'role="presentation" cellpadding="0" cellspacing="0" border="0"';
const LINK = "color:#1d4ed8;text-decoration:underline;";

/**
 * The HTML version of a layout: a whole document (`lang="en"`, a `<title>`), laid out with tables and inline styles
 * only, 600 pixels wide at most; no script, no style sheet, no image, nothing loaded from elsewhere. Every value is
 * escaped; a URL is a link only when it is http(s), any other is printed as text.
 */
export function renderHtml(layout: Layout): string {
  const rows: string[] = [];
  if (layout.notice !== null) {
    rows.push(
      `<tr><td style="padding:12px 32px;${FONT}font-size:14px;line-height:20px;color:#713f12;background-color:#fef9c3;border-bottom:1px solid #fde68a;">${escapeHtml(layout.notice)}</td></tr>`,
    );
  }
  rows.push(
    `<tr><td style="padding:24px 32px 4px 32px;${FONT}font-size:14px;font-weight:bold;color:#3f3f46;">${linkOrText(layout.brand.name, layout.brand.url)}</td></tr>`,
    `<tr><td style="padding:0 32px 20px 32px;${FONT}font-size:22px;line-height:28px;font-weight:bold;color:#18181b;"><h1 style="margin:0;font-size:22px;line-height:28px;">${escapeHtml(layout.heading)}</h1></td></tr>`,
  );
  for (const block of layout.blocks) rows.push(`<tr><td style="${CELL}">${htmlBlock(block)}</td></tr>`);
  rows.push(
    `<tr><td style="padding:16px 32px 24px 32px;border-top:1px solid #e4e4e7;${FONT}font-size:13px;line-height:20px;color:#71717a;">${footer(layout)}</td></tr>`,
  );
  return [
    "<!DOCTYPE html>",
    '<html lang="en">',
    "<head>",
    '<meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>${escapeHtml(layout.subject)}</title>`,
    "</head>",
    '<body style="margin:0;padding:0;background-color:#f4f4f5;">',
    `<table ${TABLE} width="100%" style="background-color:#f4f4f5;">`,
    '<tr><td align="center" style="padding:24px 12px;">',
    `<table ${TABLE} width="600" style="width:100%;max-width:600px;background-color:#ffffff;border:1px solid #e4e4e7;">`,
    ...rows,
    "</table>",
    "</td></tr>",
    "</table>",
    "</body>",
    "</html>",
    "",
  ].join("\n");
}

function htmlBlock(block: Block): string {
  switch (block.kind) {
    case "paragraph":
      return `<p style="margin:0;">${escapeHtml(block.text)}</p>`;
    case "facts":
      return factsTable(block.rows);
    case "list":
      return `<p style="margin:0 0 6px 0;font-weight:bold;">${escapeHtml(block.title)}</p>${listTable(block.items)}`;
    case "amounts":
      return `<p style="margin:0 0 6px 0;font-weight:bold;">${escapeHtml(block.title)}</p>${amountsTable(block.rows, block.total)}`;
    case "link":
      return `<p style="margin:0;">${escapeHtml(block.label)}:<br>${linkOrText(block.url, block.url)}</p>`;
  }
}

function factsTable(rows: readonly Fact[]): string {
  const cells = rows.map(
    (row) =>
      `<tr><td style="padding:3px 16px 3px 0;${FONT}font-size:15px;line-height:22px;color:#52525b;vertical-align:top;white-space:nowrap;">${escapeHtml(row.label)}</td><td style="padding:3px 0;${FONT}font-size:15px;line-height:22px;color:#18181b;vertical-align:top;word-break:break-word;">${row.url ? linkOrText(row.value, row.value) : escapeHtml(row.value)}</td></tr>`,
  );
  return `<table ${TABLE} width="100%">${cells.join("")}</table>`;
}

function listTable(items: readonly string[]): string {
  const cells = items.map(
    (item) =>
      `<tr><td style="padding:2px 8px 2px 0;${FONT}font-size:15px;line-height:22px;color:#71717a;vertical-align:top;">&#8226;</td><td style="padding:2px 0;${FONT}font-size:15px;line-height:22px;color:#18181b;vertical-align:top;word-break:break-word;">${escapeHtml(item)}</td></tr>`,
  );
  return `<table ${TABLE}>${cells.join("")}</table>`;
}

function amountsTable(rows: readonly Amount[], total: Amount): string {
  const row = (amount: Amount, last: boolean) => {
    const style = `${FONT}font-size:15px;line-height:22px;color:#18181b;vertical-align:top;${last ? "padding:8px 0 0 0;border-top:1px solid #d4d4d8;font-weight:bold;" : "padding:3px 0;"}`;
    return `<tr><td style="${style}padding-right:16px;word-break:break-word;">${escapeHtml(amount.label)}</td><td align="right" style="${style}text-align:right;white-space:nowrap;">${escapeHtml(formatUsd(amount.cents))}</td></tr>`;
  };
  return `<table ${TABLE} width="100%">${rows.map((amount) => row(amount, false)).join("")}${row(total, true)}</table>`;
}

function footer(layout: Layout): string {
  const parts = [linkOrText(layout.brand.name, layout.brand.url)];
  if (layout.brand.url !== null) parts.push(linkOrText(layout.brand.url, layout.brand.url));
  const support = layout.brand.support_email;
  if (support !== null) {
    const address = isPlainEmailAddress(support)
      ? `<a href="mailto:${escapeHtml(support)}" style="${LINK}">${escapeHtml(support)}</a>`
      : escapeHtml(support);
    parts.push(`Questions? Write to ${address}`);
  }
  return parts.join("<br>");
}

/** `text` linking to `url` when that is an http(s) URL; `text` alone otherwise. Both escaped. */
function linkOrText(text: string, url: string | null): string {
  const href = url === null ? undefined : httpHref(url);
  if (href === undefined) return escapeHtml(text);
  return `<a href="${escapeHtml(href)}" style="${LINK}">${escapeHtml(text)}</a>`;
}
