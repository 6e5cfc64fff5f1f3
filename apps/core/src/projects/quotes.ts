import {
  type LetterQuoteRequest,
  type MailOptions,
  type PostcardQuoteRequest,
  parseLetterQuoteRequest,
  parsePostcardQuoteRequest,
} from "@mailpiece/orders";
import { PricingError, type QuoteInput } from "@mailpiece/pricing";
import type { CoreConfig } from "../config.ts";
import { keepDocumentFor } from "../document-retention.ts";
import { inspect } from "../documents.ts";
import { CoreError } from "../errors.ts";
import { documentBlobKey } from "../open-mailing.ts";
import { priceProjectPiece, pricingInput, type QuoteView, toView } from "../quote-order.ts";
import { updateRecord } from "../records.ts";
import type { Principal } from "../workspaces/workspaces.ts";
import { loadDocument, type ProjectDocumentContext, requestProblems } from "./documents.ts";

/** A quote of the Projects API, as stored under `projects_quotes:<id>`: the price is final until expires_at. */
export interface ProjectQuoteRecord {
  id: string;
  workspace_id: string;
  mode: Principal["mode"];
  document_id: string;
  document_sha256: string;
  mailpiece_type: "letter" | "postcard";
  postcard_size: "4x6" | "6x9" | "11x6" | null;
  page_count: number;
  options: MailOptions;
  proof_mail: LetterQuoteRequest["proof_mail"];
  standalone_address_page: boolean;
  destination_country_code: string;
  origin_country_code: string;
  /** The price (price_cents, pricing_version, line items) as an order stores it. */
  view: QuoteView;
  /** The order that used the quote: a quote backs one order. */
  used_by?: string;
  created_at: number;
  updated_at: number;
  expires_at: number;
}

/** The quote response of spec 3, with what it quotes. */
export interface ProjectQuoteView {
  object: "quote";
  quote_id: string;
  mailpiece_type: "letter" | "postcard";
  postcard_size: "4x6" | "6x9" | "11x6" | null;
  document_id: string;
  page_count: number;
  price_cents: number;
  currency: "usd";
  pricing_version: string;
  line_items: { code: string; description: string; amount_cents: number }[];
  mail_class: MailOptions["mail_class"];
  color: boolean;
  double_sided: boolean;
  certified: boolean;
  certified_return_receipt: boolean;
  return_receipt_format: MailOptions["return_receipt_format"];
  restricted_delivery: boolean;
  err_delivery: MailOptions["err_delivery"];
  err_email: string | null;
  signature_required: boolean;
  standalone_address_page: boolean;
  destination_country_code: string;
  origin_country_code: string;
  expires_at: string;
}

export interface ProjectQuoteContext extends ProjectDocumentContext {
  /** How long a quote's price holds. */
  quoteTtlMs: number;
}

export const quoteKey = (id: string) => `projects_quotes:${id}`;
const QUOTE_ID = /^qt_[0-9a-f]{32}$/;

/**
 * Quotes a letter or a postcard of one of the workspace's ready documents, with every option rule of spec 3 (an
 * unavailable combination is a validation error, never a silent change), the document's preflight for the piece
 * (US letter pages; a postcard's template) and the one price book. Throws validation_failed with every issue.
 */
export async function createQuote(
  ctx: ProjectQuoteContext,
  principal: Principal,
  kind: "letter" | "postcard",
  body: unknown,
): Promise<ProjectQuoteView> {
  const parsed =
    kind === "letter"
      ? parseLetterQuoteRequest(body, { standaloneAddressPage: false })
      : parsePostcardQuoteRequest(body);
  if (!parsed.ok) throw requestProblems(parsed.issues);
  const request: LetterQuoteRequest | PostcardQuoteRequest = parsed.value;
  const document = await loadDocument(ctx, principal, request.document_id).catch((error: unknown) => {
    if (CoreError.isInstance(error) && error.code === "not_found") {
      throw requestProblems([
        {
          path: "document_id",
          code: "document_not_found",
          message: "No document of this workspace has this id.",
        },
      ]);
    }
    throw error;
  });
  if (document.state !== "ready") {
    throw requestProblems([
      {
        path: "document_id",
        code: "document_not_ready",
        message: "The document is not complete: PUT its bytes, then POST /documents/{id}/complete.",
      },
    ]);
  }
  const pageCount = document.page_count!;
  if (request.page_count !== undefined && request.page_count !== pageCount) {
    throw requestProblems([
      {
        path: "page_count",
        code: "page_count_mismatch",
        message: `The document has ${pageCount} pages, not ${request.page_count}.`,
      },
    ]);
  }
  const postcardSize = "postcard_size" in request ? request.postcard_size : null;
  const blob = await ctx.blobs.get(documentBlobKey(document.sha256!));
  if (!blob) throw new CoreError("storage_unavailable", "The document cannot be read; try again.");
  const preflight = await inspect(
    { mailpiece_type: kind, ...(postcardSize ? { postcard_size: postcardSize } : {}) },
    blob.bytes,
    "document_id",
    ctx,
  );
  if (!preflight.ok) throw requestProblems(preflight.issues);

  const price = priceRequest(
    pricingInput(
      {
        mailpiece_type: kind,
        ...(postcardSize ? { postcard_size: postcardSize } : {}),
        options: request.options,
      },
      pageCount,
      { destination: request.destination, origin: request.origin },
    ),
    ctx.config,
    QUOTE_PRICING_PATHS,
  );
  const now = ctx.clock.now();
  const record: ProjectQuoteRecord = {
    id: `qt_${ctx.ids.uuid().replaceAll("-", "")}`,
    workspace_id: principal.workspace_id,
    mode: principal.mode,
    document_id: document.id,
    document_sha256: document.sha256!,
    mailpiece_type: kind,
    postcard_size: postcardSize,
    page_count: pageCount,
    options: request.options,
    proof_mail: "proof_mail" in request ? request.proof_mail : "none",
    standalone_address_page: "standalone_address_page" in request ? request.standalone_address_page : false,
    destination_country_code: request.destination,
    origin_country_code: request.origin,
    view: price,
    created_at: now,
    updated_at: now,
    expires_at: now + ctx.quoteTtlMs,
  };
  // Kept a while after expiry, so that an order naming it hears "expired" rather than "unknown"; its document as long.
  const keptMs = ctx.quoteTtlMs + 7 * 24 * 60 * 60 * 1000;
  await keepDocumentFor(ctx, document.sha256!, now + keptMs);
  await ctx.store.create(quoteKey(record.id), record, { ttlMs: keptMs });
  return quoteView(record);
}

/** A quote of the caller's workspace and mode; not_found for anything else. */
export async function loadQuote(
  ctx: Pick<ProjectDocumentContext, "store">,
  principal: Principal,
  quoteId: string,
): Promise<ProjectQuoteRecord | undefined> {
  const record = QUOTE_ID.test(quoteId)
    ? (await ctx.store.get<ProjectQuoteRecord>(quoteKey(quoteId)))?.value
    : undefined;
  return record && record.workspace_id === principal.workspace_id && record.mode === principal.mode
    ? record
    : undefined;
}

export function quoteView(record: ProjectQuoteRecord): ProjectQuoteView {
  const o = record.options;
  return {
    object: "quote",
    quote_id: record.id,
    mailpiece_type: record.mailpiece_type,
    postcard_size: record.postcard_size,
    document_id: record.document_id,
    page_count: record.page_count,
    price_cents: record.view.price_cents,
    currency: "usd",
    pricing_version: record.view.pricing_version,
    line_items: record.view.line_items.map((line) => ({
      code: line.code,
      description: line.description,
      amount_cents: line.amount_cents,
    })),
    mail_class: o.mail_class,
    color: o.color,
    double_sided: o.double_sided,
    certified: o.certified,
    certified_return_receipt: o.certified_return_receipt,
    return_receipt_format: o.return_receipt_format,
    restricted_delivery: o.restricted_delivery,
    err_delivery: o.err_delivery,
    err_email: o.err_email ?? null,
    signature_required: o.signature_required,
    standalone_address_page: record.standalone_address_page,
    destination_country_code: record.destination_country_code,
    origin_country_code: record.origin_country_code,
    expires_at: new Date(record.expires_at).toISOString(),
  };
}

/** Where a quote request (and a template send, which takes the same options) gives each priced field. */
export const QUOTE_PRICING_PATHS: PricingPaths = {
  destination_country: "destination_country_code",
  origin_country: "origin_country_code",
};

/** The request field of each pricing input field, where the request names it otherwise. */
export type PricingPaths = Partial<Record<keyof QuoteInput, string>>;

/**
 * Prices one piece of a Projects API request with the deployment's price book. A price the book cannot give is
 * validation_failed with the pricing engine's code at the request's field (`paths`, else the pricing field's name).
 */
export function priceRequest(input: QuoteInput, config: CoreConfig, paths: PricingPaths): QuoteView {
  try {
    return toView(priceProjectPiece(input, config), config.projectBounds);
  } catch (error) {
    if (!PricingError.isInstance(error)) throw error;
    const field = error.field as keyof QuoteInput | undefined;
    const path = field === undefined ? "" : (paths[field] ?? field);
    throw requestProblems([{ path, code: error.code, message: error.message }]);
  }
}

/** Marks the quote used by this order, once; another order's use refuses. */
export async function useQuote(
  ctx: Pick<ProjectDocumentContext, "store" | "clock">,
  quoteId: string,
  orderId: string,
): Promise<ProjectQuoteRecord> {
  const used = await updateRecord<ProjectQuoteRecord>(ctx.store, quoteKey(quoteId), ctx.clock.now, (q) =>
    q.used_by === undefined ? { ...q, used_by: orderId } : undefined,
  );
  if (used.used_by !== orderId) {
    throw requestProblems([
      {
        path: "quote_id",
        code: "quote_used",
        message: "This quote was used by another order; request a new quote.",
      },
    ]);
  }
  return used;
}

/** Frees a quote this order had marked used (its request was refused or undone); anything else is left alone. */
export async function unuseQuote(
  ctx: Pick<ProjectDocumentContext, "store" | "clock">,
  quoteId: string,
  orderId: string,
): Promise<void> {
  const found = await ctx.store.get<ProjectQuoteRecord>(quoteKey(quoteId));
  if (!found || found.value.used_by !== orderId) return;
  await updateRecord<ProjectQuoteRecord>(ctx.store, quoteKey(quoteId), ctx.clock.now, (q) => {
    if (q.used_by !== orderId) return undefined;
    const { used_by: _used, ...rest } = q;
    return rest as ProjectQuoteRecord;
  });
}
