import { DEFAULT_OPTIONS, isInternationalPiece, type Party } from "@mailpiece/orders";
import { PricingError, type QuoteInput } from "@mailpiece/pricing";
import type { CampaignOrderInput, PieceRoute, PricedOptions } from "./types.ts";

/**
 * The route of one piece, as for a single order: international when the sender or the recipient is outside the
 * country pieces are posted in (isInternationalPiece of the orders engine), domestic otherwise.
 */
export function pieceRoute(sender: Party, recipient: Party): PieceRoute {
  return isInternationalPiece(sender, recipient) ? "international" : "domestic";
}

/** The order's mail options that move the price, defaults of a single order for those left out. */
export function pricedOptions(options: Partial<PricedOptions> | undefined): PricedOptions {
  const o = { ...DEFAULT_OPTIONS, ...options };
  return {
    color: o.color,
    double_sided: o.double_sided,
    mail_class: o.mail_class,
    certified: o.certified,
    certified_return_receipt: o.certified_return_receipt,
    return_receipt_format: o.return_receipt_format,
    restricted_delivery: o.restricted_delivery,
    signature_required: o.signature_required,
  };
}

/**
 * The pricing input of one piece of a campaign, as for a single order: letters are posted from the sender's
 * country; postcards by their production route whatever the return address says, so their origin is the price
 * book's own (`bookOrigin`).
 */
export function pieceQuoteInput(
  order: Omit<CampaignOrderInput, "bulk">,
  recipient: Party,
  pageCount: number,
  bookOrigin: string,
): QuoteInput {
  const postcard = order.mailpiece_type === "postcard";
  return {
    mailpiece_type: order.mailpiece_type ?? "letter",
    ...(order.postcard_size === undefined ? {} : { postcard_size: order.postcard_size }),
    page_count: pageCount,
    ...pricedOptions(order.options),
    destination_country: recipient.country,
    origin_country: postcard ? bookOrigin : order.sender.country,
  };
}

/** The QuoteInput key a pricing error is about, where it names one. */
export function pricingErrorField(error: PricingError): string | undefined {
  const value = error as unknown as { field?: unknown; issues?: readonly { path?: unknown }[] };
  if (typeof value.field === "string") return value.field;
  const path = value.issues?.[0]?.path;
  return typeof path === "string" && path !== "" ? path : undefined;
}

/**
 * Errors of a quote that depend on where the piece goes: they make that row invalid, not the campaign. Others
 * (the sender's country, the page count, the book) are common to every row.
 */
export function isRowPricingError(error: unknown): error is PricingError {
  if (!PricingError.isInstance(error)) return false;
  if (error.code === "route_unavailable") return pricingErrorField(error) === "destination_country";
  return error.code === "option_unavailable" || error.code === "quote_above_ceiling";
}

/**
 * The request field a campaign-wide pricing error is about, as for single orders: the sender's address for its
 * country, the template or PDF for the page count, the QuoteInput key otherwise ("" when none is named).
 */
export function campaignPricingPath(
  order: Pick<CampaignOrderInput, "sender"> & { bulk: { content_mode: "text" | "html" | "pdf" } },
  field: string | undefined,
): string {
  switch (field) {
    case undefined:
      return "";
    case "origin_country":
      return order.sender.address.type === "Manual" ? "sender_address_manual" : "sender_address_text";
    case "page_count":
      return order.bulk.content_mode === "pdf" ? "bulk.pdf" : `bulk.template_${order.bulk.content_mode}`;
    default:
      return field;
  }
}
