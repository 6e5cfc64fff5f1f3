import type { CampaignRow, CampaignTemplate, Issue, NormalizedOrder, Party } from "@mailpiece/orders";
import {
  campaignColumn,
  charCount,
  compileTemplate,
  DEFAULT_RENDER,
  describeCampaignRows,
  fillTemplate,
  formatAddressLines,
  MAX_CAMPAIGN_ROWS,
  MAX_LETTER_CHARS,
  MAX_TEMPLATE_HTML_CHARS,
  templateValue,
} from "@mailpiece/orders";
import type { PdfWork } from "@mailpiece/pdf-work";
import type { BlobStore, Store } from "@mailpiece/ports";
import { systemClock } from "@mailpiece/ports";
import type { Quote } from "@mailpiece/pricing";
import { formatUsd, PricingError, quote } from "@mailpiece/pricing";
import { TypesetterError, todayUtc } from "@mailpiece/typesetter";
import type { DocumentContext } from "./documents.ts";
import { partyPath, resolveDocument } from "./documents.ts";
import { documentWorkIssue, pdfWorkOf } from "./pdf-work.ts";
import { quoteInputFor } from "./quote-order.ts";

/** One CSV row as the campaign will treat it; `errors` is empty for a valid row. */
export interface CampaignRowReport {
  row_number: number;
  status: "valid" | "invalid";
  /** `column` is the CSV header as written, "" for the row as a whole. */
  errors: { column: string; code: string; message: string }[];
}

/** The pieces of a campaign going to one destination country, all at the same price. */
export interface CampaignRouteQuote {
  destination_country: string;
  pieces: number;
  unit_cents: number;
  amount_cents: number;
}

/** The answer to a valid campaign: every row, the pages each letter takes, and what the valid rows cost. */
export interface CampaignValidationView {
  object: "campaign_validation";
  valid: true;
  request_id: string;
  bulk: {
    /** Valid rows: the mailpieces the campaign creates. */
    recipient_count: number;
    row_count: number;
    content_mode: "text" | "html" | "pdf";
    campaign_name: string | null;
  };
  /** Every row, valid and invalid, in file order. */
  rows: CampaignRowReport[];
  /** `page_count` is what every piece is priced at; `page_count_basis` says how it was decided. */
  document: { page_count: number; page_count_basis: string };
  quote: {
    price_cents: number;
    price_usd: string;
    currency: "usd";
    pricing_version: string;
    pieces: number;
    by_route: CampaignRouteQuote[];
  };
  options: NormalizedOrder["options"];
  warnings: Issue[];
}

/** What a paid campaign mails to one valid row. */
export interface CampaignPiece {
  row_number: number;
  recipient: Party;
  /** Every named cell of the row, for the template. */
  fields: Record<string, string>;
  price_cents: number;
}

export type CampaignValidationOutcome =
  | { ok: true; view: CampaignValidationView; pieces: CampaignPiece[] }
  | { ok: false; issues: Issue[] };

/**
 * What validating a campaign may use. The config is enough for text, html and a PDF sent as a data URL; a PDF given
 * by upload token or URL is read through the same ports as a single order's, and refused
 * (`campaign_pdf_source_unavailable`) when they are not given.
 */
export type CampaignContext = Pick<DocumentContext, "config"> & Partial<Omit<DocumentContext, "config">>;

type RowError = CampaignRowReport["errors"][number];

/**
 * Validates and prices a bulk campaign whose order passed validateOrderRequest. Beyond the CSV rules of the order
 * engine, a row becomes invalid when its letter would be longer than a single letter may be (`too_long`), when it
 * holds characters the letter font cannot print (`character_unsupported`, text and html modes), or when its
 * destination cannot be priced (the pricing code, on the country column). The campaign is refused only when no row
 * stays valid (`campaign_no_valid_rows`), a limit is exceeded, or something common to every row fails: the
 * template or the sender cannot be typeset, the PDF cannot be read, the sender's country cannot post.
 *
 * Pages: text and html templates are typeset once, each placeholder replaced by the longest value of its column
 * among the valid rows, which bounds every row's page count from above; pdf mode counts the PDF's pages. Each valid
 * row is priced at that page count for its destination (once per destination), within the bounds of one order.
 *
 * `orderWarnings` are the warnings validateOrderRequest gave; its campaign_rows_invalid is replaced by one that
 * counts the rows this validation left out as well.
 */
export async function validateCampaign(
  order: NormalizedOrder,
  ctx: CampaignContext,
  orderWarnings: readonly Issue[] = [],
): Promise<CampaignValidationOutcome> {
  const bulk = order.bulk;
  if (bulk === undefined) return refuse("bulk", "required", "The order carries no bulk campaign.");
  if (bulk.rows.length > MAX_CAMPAIGN_ROWS) {
    return refuse(
      "bulk.csv_content",
      "campaign_too_many_rows",
      `A campaign has at most ${MAX_CAMPAIGN_ROWS} recipient rows; this one has ${bulk.rows.length}.`,
    );
  }
  const rows = new RowStates(bulk.rows);

  let document: { page_count: number; page_count_basis: string };
  if (bulk.content_mode === "pdf") {
    const pdf = await pdfPages(order, ctx);
    if (!pdf.ok) return pdf;
    document = pdf.document;
  } else {
    const contentField = bulk.content_mode === "html" ? "template_html" : "template_text";
    const template = compileTemplate(bulk[contentField] ?? "", bulk.columns, {
      html: bulk.content_mode === "html",
    });
    checkLetterLength(rows, template, contentField);
    await checkPrintable(rows, template, bulk.columns, pdfWorkOf(ctx));
    if (rows.validCount() === 0) return noValidRows(rows);
    const date = todayUtc(new Date((ctx.clock ?? systemClock).now()));
    const letter = await letterPages(order, rows, template, contentField, pdfWorkOf(ctx), date);
    if (!letter.ok) return letter;
    document = letter.document;
  }

  const priced = priceRows(order, rows, document.page_count, ctx, campaignColumn(bulk.columns, "country"));
  if (!priced.ok) return priced;
  if (rows.validCount() === 0) return noValidRows(rows);

  const pieces: CampaignPiece[] = [];
  const byRoute = new Map<string, CampaignRouteQuote>();
  let total = 0;
  for (const index of rows.validIndexes()) {
    const row = rows.rows[index]!;
    const recipient = row.recipient!;
    const unit = priced.quotes.get(recipient.country)!.total_cents;
    pieces.push({ row_number: row.row_number, recipient, fields: row.fields, price_cents: unit });
    total += unit;
    const route = byRoute.get(recipient.country);
    if (route === undefined) {
      byRoute.set(recipient.country, {
        destination_country: recipient.country,
        pieces: 1,
        unit_cents: unit,
        amount_cents: unit,
      });
    } else {
      route.pieces += 1;
      route.amount_cents += unit;
    }
  }
  const ceiling = ctx.config.bounds.max_cents;
  if (total > ceiling) return aboveCeiling(pieces, total, ceiling);
  const reports = rows.reports();
  const invalid = reports.filter((report) => report.status === "invalid");
  const warnings = orderWarnings.filter((warning) => warning.code !== "campaign_rows_invalid");
  if (invalid.length > 0) {
    warnings.push({
      path: "bulk.csv_content",
      code: "campaign_rows_invalid",
      message: `${invalid.length} of ${reports.length} rows will not be mailed: ${describeCampaignRows(invalid)}`,
    });
  }
  const view: CampaignValidationView = {
    object: "campaign_validation",
    valid: true,
    request_id: order.request_id,
    bulk: {
      recipient_count: pieces.length,
      row_count: reports.length,
      content_mode: bulk.content_mode,
      campaign_name: bulk.campaign_name ?? null,
    },
    rows: reports,
    document,
    quote: {
      price_cents: total,
      price_usd: formatUsd(total),
      currency: "usd",
      pricing_version: ctx.config.priceBook.pricing_version,
      pieces: pieces.length,
      by_route: [...byRoute.values()].sort((a, b) =>
        a.destination_country.localeCompare(b.destination_country),
      ),
    },
    options: order.options,
    warnings,
  };
  return { ok: true, view, pieces };
}

/** The rows of a campaign with the errors this validation adds; the order's own rows are left as they are. */
class RowStates {
  private readonly added = new Map<number, RowError[]>();
  private valid: number[];

  constructor(readonly rows: readonly CampaignRow[]) {
    this.valid = [];
    rows.forEach((row, index) => {
      if (row.status === "valid") this.valid.push(index);
    });
  }

  /** Indexes of the rows still valid, in file order. */
  validIndexes(): readonly number[] {
    if (this.valid.length > 0 && this.added.size > 0) {
      this.valid = this.valid.filter((index) => !this.added.has(index));
    }
    return this.valid;
  }

  validCount(): number {
    return this.validIndexes().length;
  }

  invalidate(index: number, error: RowError): void {
    const errors = this.added.get(index);
    if (errors === undefined) this.added.set(index, [error]);
    else errors.push(error);
  }

  reports(): CampaignRowReport[] {
    return this.rows.map((row, index) => {
      const added = this.added.get(index);
      if (added === undefined) return { row_number: row.row_number, status: row.status, errors: row.errors };
      return { row_number: row.row_number, status: "invalid", errors: [...row.errors, ...added] };
    });
  }
}

function noValidRows(rows: RowStates): CampaignValidationOutcome {
  const reports = rows.reports();
  return refuse(
    "bulk.csv_content",
    "campaign_no_valid_rows",
    reports.length === 0
      ? "The CSV has a header row but no recipient rows."
      : `None of the ${reports.length} rows can be mailed: ${describeCampaignRows(reports)}`,
  );
}

/** How many times each column appears in the template. */
function occurrences(template: CampaignTemplate): Map<string, number> {
  const counts = new Map<string, number>();
  for (const part of template.parts) {
    if ("column" in part) counts.set(part.column, (counts.get(part.column) ?? 0) + 1);
  }
  return counts;
}

/** A row's letter is held to the length of a single letter: MAX_LETTER_CHARS, or MAX_TEMPLATE_HTML_CHARS of HTML. */
function checkLetterLength(
  rows: RowStates,
  template: CampaignTemplate,
  contentField: "template_text" | "template_html",
): void {
  const limit = template.html ? MAX_TEMPLATE_HTML_CHARS : MAX_LETTER_CHARS;
  const counts = [...occurrences(template)];
  for (const index of rows.validIndexes()) {
    const row = rows.rows[index]!;
    let chars = template.literalChars;
    let longest = { column: "", chars: -1 };
    for (const [column, times] of counts) {
      const valueChars = charCount(templateValue(template, row.fields[column]));
      chars += times * valueChars;
      if (valueChars > longest.chars) longest = { column, chars: valueChars };
    }
    if (chars <= limit) continue;
    rows.invalidate(index, {
      column: longest.column,
      code: "too_long",
      message: `With this row's values ${contentField} is ${chars} characters; a letter has at most ${limit}.`,
    });
  }
}

/** Any UTF-16 code unit outside ASCII (surrogates included). */
const NON_ASCII = /[\u0080-\uffff]/;
const PRINTED_ROLES = ["recipient_name", "line1", "line2", "city", "state", "zip"] as const;

/**
 * Makes a row invalid when a value it prints (a template column, or its address in the envelope window) holds a
 * character the letter font cannot print. Plain ASCII always prints; the other characters of all rows are checked
 * together with the typesetter, and only when some cannot print are they narrowed down, half by half.
 */
async function checkPrintable(
  rows: RowStates,
  template: CampaignTemplate,
  columns: readonly string[],
  work: PdfWork,
) {
  const printed = new Set(template.columns);
  for (const role of PRINTED_ROLES) {
    const column = campaignColumn(columns, role);
    if (column !== undefined) printed.add(column);
  }
  const checked = [...printed];
  const characters = new Set<string>();
  const withCharacters: number[] = [];
  for (const index of rows.validIndexes()) {
    const row = rows.rows[index]!;
    let found = false;
    for (const column of checked) {
      const value = row.fields[column];
      if (value === undefined || !NON_ASCII.test(value)) continue;
      found = true;
      for (const char of value.normalize("NFC")) if (NON_ASCII.test(char)) characters.add(char);
    }
    if (found) withCharacters.push(index);
  }
  const unprintable = new Set(await unprintableOf([...characters], work));
  if (unprintable.size === 0) return;
  for (const index of withCharacters) {
    const row = rows.rows[index]!;
    for (const column of checked) {
      const value = row.fields[column];
      if (value === undefined || !NON_ASCII.test(value)) continue;
      const bad = [...new Set([...value.normalize("NFC")].filter((char) => unprintable.has(char)))];
      if (bad.length === 0) continue;
      rows.invalidate(index, {
        column,
        code: "character_unsupported",
        message: `${column} holds characters the letter font cannot print: ${bad.slice(0, 5).map(describeChar).join(", ")}${bad.length > 5 ? ` and ${bad.length - 5} more` : ""}. Remove or replace them.`,
      });
    }
  }
}

function describeChar(char: string): string {
  return `"${char}" (U+${char.codePointAt(0)!.toString(16).toUpperCase().padStart(4, "0")})`;
}

/** The characters of `chars` the typesetter refuses, found by typesetting them together and halving on refusal. */
async function unprintableOf(chars: readonly string[], work: PdfWork): Promise<string[]> {
  if (chars.length === 0) return [];
  try {
    await work.typesetLetter({ body: chars.join(" "), format: "text", render: { ...DEFAULT_RENDER } });
    return [];
  } catch (error) {
    if (!TypesetterError.isInstance(error) || error.code !== "character_unsupported") throw error;
  }
  if (chars.length === 1) return [...chars];
  const half = Math.ceil(chars.length / 2);
  return [
    ...(await unprintableOf(chars.slice(0, half), work)),
    ...(await unprintableOf(chars.slice(half), work)),
  ];
}

type DocumentOutcome =
  | { ok: true; document: { page_count: number; page_count_basis: string } }
  | { ok: false; issues: Issue[] };

/** The longest value of a column among the valid rows, and the value with the most line breaks if another. */
interface Longest {
  value: string;
  chars: number;
  row: number;
  breaks: number;
  breaksValue: string;
  breaksRow: number;
}

/**
 * The pages of the letter: the template typeset once with each placeholder replaced by the longest value of its
 * column among the valid rows (in text, followed on a new line by the value with the most line breaks when that is
 * another one), so no row's letter is longer. The sender is set as on every piece; the space of the recipient's
 * address is kept whether or not it is given, so it does not change the count.
 */
async function letterPages(
  order: NormalizedOrder,
  rows: RowStates,
  template: CampaignTemplate,
  contentField: "template_text" | "template_html",
  work: PdfWork,
  date: string,
): Promise<DocumentOutcome> {
  const longest = new Map<string, Longest>();
  for (const index of rows.validIndexes()) {
    const row = rows.rows[index]!;
    for (const column of template.columns) {
      const value = row.fields[column] ?? "";
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
  try {
    const { page_count } = await work.typesetLetter({
      body: fillTemplate(template, Object.fromEntries(standIns)),
      format: template.html ? "html" : "text",
      render: { ...DEFAULT_RENDER },
      date,
      sender: { lines: formatAddressLines(order.sender) },
    });
    const basis =
      sources.length === 0
        ? `${contentField} has no placeholders, so every row's letter is the same; it was typeset once.`
        : `${contentField} was typeset once with each placeholder replaced by the longest value of its column among the valid rows (${sources.join("; ")}); no row's letter is longer, so none takes more pages.`;
    return { ok: true, document: { page_count, page_count_basis: basis } };
  } catch (error) {
    const issue = documentWorkIssue(error, `bulk.${contentField}`);
    if (issue) return { ok: false, issues: [issue] };
    if (!TypesetterError.isInstance(error)) throw error;
    const path =
      error.field === "sender"
        ? partyPath("sender", order.sender)
        : error.field === "body"
          ? `bulk.${contentField}`
          : "bulk";
    return { ok: false, issues: [{ path, code: error.code, message: error.message }] };
  }
}

function lineBreaks(text: string): number {
  let count = 0;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    if (unit === 10 || (unit === 13 && text.charCodeAt(i + 1) !== 10)) count++;
  }
  return count;
}

/** The pages of the campaign's PDF, checked as a single order's PDF is (page size, postcard template, limits). */
async function pdfPages(order: NormalizedOrder, ctx: CampaignContext): Promise<DocumentOutcome> {
  const source = order.bulk?.pdf;
  if (source === undefined)
    return refuse("bulk.pdf", "bulk_content_required", "content_mode pdf needs bulk.pdf.");
  const { store, blobs, clock } = ctx;
  let documentContext: DocumentContext;
  if (store !== undefined && blobs !== undefined && clock !== undefined) {
    documentContext = { ...ctx, store, blobs, clock };
  } else if (source.type === "data_url") {
    // A data URL is read from the request itself: no stored upload and no download is involved.
    documentContext = { ...ctx, store: NO_STORE, blobs: NO_BLOBS, clock: systemClock };
  } else {
    return refuse(
      "bulk.pdf",
      "campaign_pdf_source_unavailable",
      "Campaign PDFs are read from a data URL here; send bulk.pdf as data:application/pdf;base64,... instead of an upload token or a URL.",
    );
  }
  const { bulk: _, ...single } = order;
  const resolved = await resolveDocument({ ...single, document: { kind: "pdf", source } }, documentContext);
  if (!resolved.ok) {
    return {
      ok: false,
      issues: resolved.issues.map((issue) => ({
        ...issue,
        path: `bulk.${issue.path === "" ? "pdf" : issue.path}`,
      })),
    };
  }
  const pages = resolved.document.page_count;
  return {
    ok: true,
    document: {
      page_count: pages,
      page_count_basis: `bulk.pdf has ${pages} page${pages === 1 ? "" : "s"}; every row is mailed the same PDF.`,
    },
  };
}

const unavailable = () =>
  Promise.reject(new Error("No storage is available while validating this campaign."));

/** Ports for a campaign validated from the config alone: a data URL never reaches them. */
const NO_STORE: Store = {
  name: "none",
  capabilities: { durable: false, shared: false },
  get: unavailable,
  create: unavailable,
  put: unavailable,
  delete: unavailable,
  list: unavailable,
  close: async () => {},
};
const NO_BLOBS: BlobStore = {
  name: "none",
  capabilities: { durable: false, shared: false },
  put: unavailable,
  get: unavailable,
  head: unavailable,
  delete: unavailable,
  close: async () => {},
};

/** Errors of a quote that depend on where the piece goes: they make that row invalid, not the campaign. */
function isRouteError(error: PricingError): boolean {
  if (error.code === "route_unavailable") return error.field === "destination_country";
  return error.code === "option_unavailable" || error.code === "quote_above_ceiling";
}

/** Prices every valid row, once per destination; a row whose destination cannot be priced becomes invalid. */
function priceRows(
  order: NormalizedOrder,
  rows: RowStates,
  pageCount: number,
  ctx: CampaignContext,
  countryColumn: string | undefined,
): { ok: true; quotes: Map<string, Quote> } | { ok: false; issues: Issue[] } {
  const quotes = new Map<string, Quote>();
  const refusals = new Map<string, PricingError>();
  for (const index of rows.validIndexes()) {
    const recipient = rows.rows[index]!.recipient!;
    const country = recipient.country;
    if (!quotes.has(country) && !refusals.has(country)) {
      try {
        const input = quoteInputFor(order, recipient, pageCount);
        quotes.set(country, quote(input, { book: ctx.config.priceBook, bounds: ctx.config.bounds }));
      } catch (error) {
        if (!PricingError.isInstance(error)) throw error;
        if (!isRouteError(error)) return refuse(pricingPath(order, error.field), error.code, error.message);
        refusals.set(country, error);
      }
    }
    const refusal = refusals.get(country);
    if (refusal !== undefined) {
      rows.invalidate(index, {
        column: countryColumn ?? "country",
        code: refusal.code,
        message: refusal.message,
      });
    }
  }
  return { ok: true, quotes };
}

/** The request field a campaign-wide pricing error is about, as quoteOrder names it for single orders. */
function pricingPath(order: NormalizedOrder, field: string | undefined): string {
  switch (field) {
    case undefined:
      return "";
    case "origin_country":
      return partyPath("sender", order.sender);
    case "page_count":
      return order.bulk?.content_mode === "pdf" ? "bulk.pdf" : `bulk.template_${order.bulk?.content_mode}`;
    default:
      return field;
  }
}

/**
 * One machine order, a campaign included, is paid with one payment within the published bounds. A campaign above
 * the ceiling is refused with how many of its rows fit in one order, so the client can split it; mailings larger
 * than one payment belong to the Projects API, paid from prepaid credits.
 */
function aboveCeiling(
  pieces: readonly CampaignPiece[],
  total: number,
  ceiling: number,
): { ok: false; issues: Issue[] } {
  let fit = 0;
  let sum = 0;
  for (const piece of pieces) {
    if (sum + piece.price_cents > ceiling) break;
    sum += piece.price_cents;
    fit++;
  }
  const lastRow = fit > 0 ? pieces[fit - 1]!.row_number : undefined;
  return refuse(
    "bulk.csv_content",
    "campaign_above_ceiling",
    `This campaign costs $${formatUsd(total)} for ${pieces.length} mailpieces; one machine order is paid with one payment of at most $${formatUsd(ceiling)}. ` +
      (fit > 0
        ? `The first ${fit} valid rows (through CSV row ${lastRow}) fit in one order ($${formatUsd(sum)}): split the CSV into campaigns that each cost at most $${formatUsd(ceiling)}, each under its own request_id. `
        : "") +
      "Larger mailings go through the Projects API (/api/v1), paid from prepaid credits.",
  );
}

function refuse(path: string, code: string, message: string): { ok: false; issues: Issue[] } {
  return { ok: false, issues: [{ path, code, message }] };
}
