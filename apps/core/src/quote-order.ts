import type { Issue, NormalizedOrder, Party } from "@mailpiece/orders";
import type { Quote, QuoteBounds, QuoteInput, Quoter } from "@mailpiece/pricing";
import { createQuoter, formatUsd, PricingError } from "@mailpiece/pricing";
import type { CoreConfig } from "./config.ts";
import { partyPath } from "./documents.ts";

/** What a buyer sees of a price: the total, why, and under which price book. */
export interface QuoteView {
  price_cents: number;
  price_usd: string;
  currency: "usd";
  pricing_version: string;
  line_items: Quote["line_items"];
  subtotal_cents: number;
  route: Quote["route"];
  bounds: { min_cents: number; max_cents: number };
}

export type QuoteOutcome = { ok: true; quote: QuoteView } | { ok: false; issues: Issue[] };

/** The pricing input of a piece with its options, page count and route. */
export function pricingInput(
  piece: Pick<NormalizedOrder, "mailpiece_type" | "postcard_size" | "options">,
  pageCount: number,
  route: { destination: string; origin: string },
): QuoteInput {
  const o = piece.options;
  return {
    mailpiece_type: piece.mailpiece_type,
    ...(piece.postcard_size === undefined ? {} : { postcard_size: piece.postcard_size }),
    page_count: pageCount,
    color: o.color,
    double_sided: o.double_sided,
    mail_class: o.mail_class,
    certified: o.certified,
    certified_return_receipt: o.certified_return_receipt,
    return_receipt_format: o.return_receipt_format,
    restricted_delivery: o.restricted_delivery,
    signature_required: o.signature_required,
    destination_country: route.destination,
    origin_country: route.origin,
  };
}

/**
 * The pricing input of one machine order's mailpiece. Postcards are posted by their production route, whatever the
 * return address says: a card with a return address abroad goes to the second provider rather than being refused,
 * so the origin is the book's own.
 */
export function quoteInputFor(
  order: NormalizedOrder,
  recipient: Party,
  pageCount: number,
  originCountry?: string,
): QuoteInput {
  return pricingInput(order, pageCount, {
    destination: recipient.country,
    origin:
      order.mailpiece_type === "postcard" && originCountry !== undefined
        ? originCountry
        : order.sender.country,
  });
}

/** One quoter per configuration and bounds: the price book and bounds are checked once, not on every quote. */
const quoters = new WeakMap<CoreConfig, Map<QuoteBounds, Quoter>>();

function quoterFor(config: CoreConfig, bounds: QuoteBounds = config.bounds): Quoter {
  let byBounds = quoters.get(config);
  if (byBounds === undefined) {
    byBounds = new Map();
    quoters.set(config, byBounds);
  }
  let quoter = byBounds.get(bounds);
  if (quoter === undefined) {
    quoter = createQuoter({ book: config.priceBook, bounds });
    byBounds.set(bounds, quoter);
  }
  return quoter;
}

/**
 * Prices one Projects API piece with the deployment's price book and the Projects API's bounds; throws the pricing
 * engine's PricingError.
 */
export function priceProjectPiece(input: QuoteInput, config: CoreConfig): Quote {
  return quoterFor(config, config.projectBounds)(input);
}

/** Prices one mailpiece to one recipient; a price the book cannot give becomes an issue on the field at fault. */
export function quoteOrder(
  order: NormalizedOrder,
  recipient: Party,
  pageCount: number,
  config: CoreConfig,
  documentPath: string,
): QuoteOutcome {
  try {
    const q = quoterFor(config)(quoteInputFor(order, recipient, pageCount, config.priceBook.origin_country));
    return { ok: true, quote: toView(q, config.bounds) };
  } catch (error) {
    if (PricingError.isInstance(error)) {
      return {
        ok: false,
        issues: [
          {
            path: pricingPath(error.field, order, recipient, documentPath),
            code: error.code,
            message: error.message,
          },
        ],
      };
    }
    throw error;
  }
}

export function toView(q: Quote, bounds: QuoteBounds): QuoteView {
  return {
    price_cents: q.total_cents,
    price_usd: formatUsd(q.total_cents),
    currency: q.currency,
    pricing_version: q.pricing_version,
    line_items: q.line_items,
    subtotal_cents: q.subtotal_cents,
    route: q.route,
    bounds: { min_cents: bounds.min_cents, max_cents: bounds.max_cents },
  };
}

function pricingPath(
  field: string | undefined,
  order: NormalizedOrder,
  recipient: Party,
  documentPath: string,
): string {
  switch (field) {
    case undefined:
      return "";
    case "destination_country":
      return partyPath("recipient", recipient);
    case "origin_country":
      return partyPath("sender", order.sender);
    case "page_count":
      return documentPath;
    default:
      return field;
  }
}
