import {
  type CampaignRow,
  campaignColumn,
  describeCampaignRows,
  type Issue,
  MAX_CAMPAIGN_ROWS,
  readCampaignCsv,
} from "@mailpiece/orders";
import {
  DEFAULT_PRICE_BOOK,
  MACHINE_ORDER_BOUNDS,
  type PriceBook,
  PricingError,
  type Quote,
  type QuoteBounds,
  quote,
} from "@mailpiece/pricing";
import { aboveCeilingIssue, ceilingFit } from "./ceiling.ts";
import { CampaignsError } from "./errors.ts";
import { campaignLetter, letterLengthIssue } from "./letter.ts";
import { type CampaignDocumentPages, letterPages, type PageCounter, pdfPages } from "./pages.ts";
import {
  type PrintCheck,
  printableOnAnyMailpiece,
  printedColumns,
  unprintableRowIssues,
} from "./printable.ts";
import {
  campaignPricingPath,
  isRowPricingError,
  pieceQuoteInput,
  pieceRoute,
  pricingErrorField,
} from "./route.ts";
import { RowStates } from "./row-states.ts";
import type {
  CampaignBulkInput,
  CampaignDestinationSubtotal,
  CampaignOrderInput,
  CampaignPiece,
  CampaignPlan,
  CampaignPlanOutcome,
  CampaignRouteSubtotal,
  PieceRoute,
} from "./types.ts";

/** What planning uses besides the order: the prices, and the page and print checks it cannot do itself. */
export interface CampaignPlanOptions {
  /** DEFAULT_PRICE_BOOK of the pricing engine by default. */
  book?: PriceBook;
  /** The bounds of one piece's price; MACHINE_ORDER_BOUNDS by default. */
  bounds?: QuoteBounds;
  /** The most one order (the whole campaign) may cost, in cents; `bounds.max_cents` by default. */
  ceilingCents?: number;
  /** Text and html campaigns: the pages of a letter (called once, see letterPages). Required in those modes. */
  pageCount?: PageCounter;
  /** Pdf campaigns: the pages of the PDF every row is mailed. Required in pdf mode. */
  pdfPages?: number;
  /** Text and html campaigns: whether the letter font prints some characters; printableOnAnyMailpiece by default. */
  canPrint?: PrintCheck;
}

/**
 * Plans a bulk campaign row by row. Each CSV row is a recipient checked with the orders engine's rules for a
 * recipient (rows already read are taken as they are); beyond those a row becomes invalid when its letter would be
 * longer than a single letter may be (`too_long`), when it prints characters the letter font cannot print
 * (`character_unsupported`, text and html), or when its destination cannot be priced (the pricing code, on the
 * country column). Every valid row is priced at the campaign's page count for its route and options, once per
 * destination.
 *
 * Refused, with issues: an order without `bulk` (`required`), a CSV whose file has problems, more than
 * MAX_CAMPAIGN_ROWS rows (`campaign_too_many_rows`), no row left valid (`campaign_no_valid_rows`), a pricing error
 * common to every row (its code, on the field at fault), and a total above the ceiling (`campaign_above_ceiling`,
 * with the plan, which says how many rows fit). Errors of `pageCount` and `canPrint` pass through; CampaignsError
 * for a missing page counter or PDF page count, or a bad page count or ceiling.
 */
export async function planCampaign(
  order: CampaignOrderInput,
  options: CampaignPlanOptions = {},
): Promise<CampaignPlanOutcome> {
  const bulk = order.bulk;
  if (bulk === undefined) return refuse("bulk", "required", "The order carries no bulk campaign.");
  if (bulk.content_mode === "pdf" ? options.pdfPages === undefined : options.pageCount === undefined) {
    throw new CampaignsError(
      "campaign_input_invalid",
      bulk.content_mode === "pdf"
        ? "A pdf campaign is planned with the page count of its PDF (pdfPages)."
        : `A ${bulk.content_mode} campaign is planned with a page counter for its letter (pageCount).`,
    );
  }
  const book = options.book ?? DEFAULT_PRICE_BOOK;
  const bounds = options.bounds ?? MACHINE_ORDER_BOUNDS;
  const ceilingCents = options.ceilingCents ?? bounds.max_cents;

  const read = campaignRows(bulk);
  if (!read.ok) return read;
  const { columns, rows } = read;
  const tooMany = rowLimitIssue(rows.length);
  if (tooMany !== undefined) return { ok: false, issues: [tooMany] };
  const states = new RowStates(rows);

  let document: CampaignDocumentPages;
  if (bulk.content_mode === "pdf") {
    document = pdfPages(options.pdfPages as number);
  } else {
    const letter = campaignLetter({ ...bulk, columns })!;
    for (const index of states.validIndexes()) {
      const issue = letterLengthIssue(letter, rows[index]!);
      if (issue !== undefined) states.invalidate(index, issue);
    }
    const checked = states.validIndexes();
    const unprintable = await unprintableRowIssues(
      checked.map((index) => rows[index]!),
      printedColumns(letter.template.columns, columns),
      options.canPrint ?? printableOnAnyMailpiece,
    );
    for (const [at, issues] of unprintable)
      for (const issue of issues) states.invalidate(checked[at]!, issue);
    if (states.validCount() === 0) return noValidRows(states);
    const valid = states.validIndexes().map((index) => rows[index]!);
    document = await letterPages(letter, valid, options.pageCount!);
  }

  const priced = priceRows(order, bulk, states, document.page_count, book, bounds, columns);
  if (!priced.ok) return priced;
  if (states.validCount() === 0) return noValidRows(states);

  const pieces: CampaignPiece[] = [];
  const byDestination = new Map<string, CampaignDestinationSubtotal>();
  const byRoute = new Map<PieceRoute, CampaignRouteSubtotal>();
  let total = 0;
  for (const index of states.validIndexes()) {
    const row = rows[index]!;
    const recipient = row.recipient!;
    const unit = priced.quotes.get(recipient.country)!.total_cents;
    const route = pieceRoute(order.sender, recipient);
    pieces.push({ row_number: row.row_number, recipient, fields: row.fields, route, price_cents: unit });
    total += unit;
    const destination = byDestination.get(recipient.country);
    if (destination === undefined) {
      byDestination.set(recipient.country, {
        destination_country: recipient.country,
        route,
        pieces: 1,
        unit_cents: unit,
        amount_cents: unit,
      });
    } else {
      destination.pieces += 1;
      destination.amount_cents += unit;
    }
    const subtotal = byRoute.get(route);
    if (subtotal === undefined) byRoute.set(route, { route, pieces: 1, amount_cents: unit });
    else {
      subtotal.pieces += 1;
      subtotal.amount_cents += unit;
    }
  }

  const reports = states.reports();
  const invalid = reports.filter((report) => report.status === "invalid");
  const warnings: Issue[] = [];
  if (invalid.length > 0) {
    warnings.push({
      path: "bulk.csv_content",
      code: "campaign_rows_invalid",
      message: `${invalid.length} of ${reports.length} rows will not be mailed: ${describeCampaignRows(invalid)}`,
    });
  }
  const ceiling = ceilingFit(pieces, ceilingCents);
  const plan: CampaignPlan = {
    columns: [...columns],
    rows: reports,
    pieces,
    invalid,
    document,
    pricing_version: book.pricing_version,
    total_cents: total,
    by_route: (["domestic", "international"] as const).flatMap((route) => {
      const subtotal = byRoute.get(route);
      return subtotal === undefined ? [] : [subtotal];
    }),
    by_destination: [...byDestination.values()].sort((a, b) =>
      a.destination_country.localeCompare(b.destination_country),
    ),
    ceiling,
    warnings,
  };
  if (!ceiling.within) return { ok: false, issues: [aboveCeilingIssue(ceiling, total, pieces.length)], plan };
  return { ok: true, plan };
}

/**
 * The refusal of a campaign with more recipient rows than one campaign may have (MAX_CAMPAIGN_ROWS), or undefined.
 * A caller that reads the content first (a PDF) may check this before.
 */
export function rowLimitIssue(rowCount: number): Issue | undefined {
  if (rowCount <= MAX_CAMPAIGN_ROWS) return undefined;
  return {
    path: "bulk.csv_content",
    code: "campaign_too_many_rows",
    message: `A campaign has at most ${MAX_CAMPAIGN_ROWS} recipient rows; this one has ${rowCount}.`,
  };
}

/** The rows of the campaign: as given, or read from its CSV, whose file problems refuse it on bulk.csv_content. */
function campaignRows(
  bulk: CampaignBulkInput,
): { ok: true; columns: readonly string[]; rows: readonly CampaignRow[] } | { ok: false; issues: Issue[] } {
  if (bulk.rows !== undefined) return { ok: true, columns: bulk.columns, rows: bulk.rows };
  const read = readCampaignCsv(bulk.csv_content);
  if (read.problems.length > 0) {
    return {
      ok: false,
      issues: read.problems.map(({ code, message }) => ({ path: "bulk.csv_content", code, message })),
    };
  }
  return { ok: true, columns: read.columns, rows: read.rows };
}

/** Prices every valid row, once per destination; a row whose destination cannot be priced becomes invalid. */
function priceRows(
  order: CampaignOrderInput,
  bulk: CampaignBulkInput,
  states: RowStates,
  pageCount: number,
  book: PriceBook,
  bounds: QuoteBounds,
  columns: readonly string[],
): { ok: true; quotes: Map<string, Quote> } | { ok: false; issues: Issue[] } {
  const countryColumn = campaignColumn(columns, "country") ?? "country";
  const quotes = new Map<string, Quote>();
  const refusals = new Map<string, { code: string; message: string }>();
  for (const index of states.validIndexes()) {
    const recipient = states.rows[index]!.recipient!;
    const country = recipient.country;
    if (!quotes.has(country) && !refusals.has(country)) {
      try {
        const input = pieceQuoteInput(order, recipient, pageCount, book.origin_country);
        quotes.set(country, quote(input, { book, bounds }));
      } catch (error) {
        if (isRowPricingError(error)) refusals.set(country, { code: error.code, message: error.message });
        else if (PricingError.isInstance(error)) {
          const path = campaignPricingPath({ sender: order.sender, bulk }, pricingErrorField(error));
          return refuse(path, error.code, error.message);
        } else throw error;
      }
    }
    const refusal = refusals.get(country);
    if (refusal !== undefined) states.invalidate(index, { column: countryColumn, ...refusal });
  }
  return { ok: true, quotes };
}

function noValidRows(states: RowStates): CampaignPlanOutcome {
  const reports = states.reports();
  return refuse(
    "bulk.csv_content",
    "campaign_no_valid_rows",
    reports.length === 0
      ? "The CSV has a header row but no recipient rows."
      : `None of the ${reports.length} rows can be mailed: ${describeCampaignRows(reports)}`,
  );
}

function refuse(path: string, code: string, message: string): { ok: false; issues: Issue[] } {
  return { ok: false, issues: [{ path, code, message }] };
}
