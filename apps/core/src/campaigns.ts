import type { CampaignPiece as PlannedPiece } from "@mailpiece/campaigns";
import { planCampaign, rowLimitIssue } from "@mailpiece/campaigns";
import type { Issue, NormalizedOrder } from "@mailpiece/orders";
import { DEFAULT_RENDER, formatAddressLines } from "@mailpiece/orders";
import type { PdfWork } from "@mailpiece/pdf-work";
import type { BlobStore, Store } from "@mailpiece/ports";
import { systemClock } from "@mailpiece/ports";
import { formatUsd } from "@mailpiece/pricing";
import { TypesetterError, todayUtc } from "@mailpiece/typesetter/light";
import type { DocumentContext, ResolvedDocument } from "./documents.ts";
import { partyPath, resolveDocument } from "./documents.ts";
import { CoreError } from "./errors.ts";
import { documentWorkIssue, pdfWorkOf } from "./pdf-work.ts";

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

/** What a paid campaign mails to one valid row: its recipient, its cells, its route and its price. */
export type CampaignPiece = PlannedPiece;

export type CampaignValidationOutcome =
  /** `pdf`: for content_mode pdf, the PDF every piece prints, read and checked. */
  | { ok: true; view: CampaignValidationView; pieces: CampaignPiece[]; pdf?: ResolvedDocument }
  | { ok: false; issues: Issue[] };

/**
 * What validating a campaign may use. The config is enough for text, html and a PDF sent as a data URL; a PDF given
 * by upload token or URL is read through the same ports as a single order's, and refused
 * (`campaign_pdf_source_unavailable`) when they are not given.
 */
export type CampaignContext = Pick<DocumentContext, "config"> & Partial<Omit<DocumentContext, "config">>;

/**
 * Validates and prices a bulk campaign whose order passed validateOrderRequest, with the campaigns engine's plan:
 * every row checked as a recipient, held to the length of a single letter, checked for characters the letter font
 * cannot print, and priced for its own route (domestic or international) and destination. The typesetter counts the
 * letter's pages (once, with each placeholder replaced by the longest value of its column) and tells which
 * characters print; a PDF campaign counts its PDF's pages, read as a single order's PDF is.
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
  const tooMany = rowLimitIssue(bulk.rows.length);
  if (tooMany) return { ok: false, issues: [tooMany] };
  let pdf: ResolvedDocument | undefined;
  if (bulk.content_mode === "pdf") {
    const read = await campaignPdf(order, ctx);
    if (!read.ok) return read;
    pdf = read.document;
  }
  const work = pdfWorkOf(ctx);
  const date = todayUtc(new Date((ctx.clock ?? systemClock).now()));
  const contentField = bulk.content_mode === "html" ? "template_html" : "template_text";
  let planned: Awaited<ReturnType<typeof planCampaign>>;
  try {
    planned = await planCampaign(order, {
      book: ctx.config.priceBook,
      bounds: ctx.config.bounds,
      ...(pdf === undefined ? {} : { pdfPages: pdf.page_count }),
      pageCount: async (body, { format }) =>
        (
          await work.typesetLetter({
            body,
            format,
            render: { ...DEFAULT_RENDER },
            date,
            sender: { lines: formatAddressLines(order.sender) },
          })
        ).page_count,
      canPrint: (text) => printable(text, work),
    });
  } catch (error) {
    const issue = documentWorkIssue(error, `bulk.${contentField}`);
    if (issue) return { ok: false, issues: [issue] };
    if (!TypesetterError.isInstance(error)) throw error;
    const field = error.field;
    const path =
      field === "sender"
        ? partyPath("sender", order.sender)
        : field === "body"
          ? `bulk.${contentField}`
          : "bulk";
    return { ok: false, issues: [{ path, code: error.code, message: error.message }] };
  }
  if (!planned.ok) return { ok: false, issues: planned.issues };
  const plan = planned.plan;
  const warnings = [...orderWarnings.filter((w) => w.code !== "campaign_rows_invalid"), ...plan.warnings];
  const view: CampaignValidationView = {
    object: "campaign_validation",
    valid: true,
    request_id: order.request_id,
    bulk: {
      recipient_count: plan.pieces.length,
      row_count: plan.rows.length,
      content_mode: bulk.content_mode,
      campaign_name: bulk.campaign_name ?? null,
    },
    rows: plan.rows,
    document: plan.document,
    quote: {
      price_cents: plan.total_cents,
      price_usd: formatUsd(plan.total_cents),
      currency: "usd",
      pricing_version: plan.pricing_version,
      pieces: plan.pieces.length,
      by_route: plan.by_destination.map((d) => ({
        destination_country: d.destination_country,
        pieces: d.pieces,
        unit_cents: d.unit_cents,
        amount_cents: d.amount_cents,
      })),
    },
    options: order.options,
    warnings,
  };
  return { ok: true, view, pieces: plan.pieces, ...(pdf === undefined ? {} : { pdf }) };
}

/** True when the letter font prints every character of `text`; other typesetting failures are thrown. */
async function printable(text: string, work: PdfWork): Promise<boolean> {
  try {
    await work.typesetLetter({ body: text, format: "text", render: { ...DEFAULT_RENDER } });
    return true;
  } catch (error) {
    if (TypesetterError.isInstance(error) && error.code === "character_unsupported") return false;
    throw error;
  }
}

/** The campaign's PDF, read and checked as a single order's PDF is (page size, postcard template, limits). */
async function campaignPdf(
  order: NormalizedOrder,
  ctx: CampaignContext,
): Promise<{ ok: true; document: ResolvedDocument } | { ok: false; issues: Issue[] }> {
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
  return { ok: true, document: resolved.document };
}

const unavailable = () =>
  Promise.reject(new CoreError("internal_error", "No storage is available while validating this campaign."));

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

function refuse(path: string, code: string, message: string): { ok: false; issues: Issue[] } {
  return { ok: false, issues: [{ path, code, message }] };
}
