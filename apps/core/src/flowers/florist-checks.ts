import type { Issue } from "@mailpiece/errors";
import type { FlowerLetter, FlowerRecipientValue } from "@mailpiece/flowers";
import { centsToUsd, checkFlowerQuote, FLOWER_LETTER_BOUNDS } from "@mailpiece/flowers";
import type { FloristProduct, FloristQuote, FloristQuoteLine } from "@mailpiece/ports";
import { FloristError } from "@mailpiece/ports";
import type { FlowerContext } from "./record.ts";

export interface FlowerQuoteBreakdown {
  total_cents: number;
  price_usd: string;
  currency: "usd";
  product_cents: number;
  delivery_cents: number;
  service_fee_cents: number;
  tax_cents: number;
  lines: FloristQuoteLine[];
  bounds: { min_cents: number; max_cents: number };
}

/** The answer of validate: what would be ordered, delivered where and when, for how much. */
export interface FlowerQuoteView {
  object: "flower_letter_quote";
  request_id: string;
  product: FloristProduct;
  delivery_date: string;
  zipcode: string;
  note: string;
  allow_substitutions: boolean;
  recipient: FlowerRecipientValue;
  quote: FlowerQuoteBreakdown;
}

export type Checked<T> = ({ ok: true } & T) | { ok: false; issues: Issue[] };

/** Where a refusal of the florist points in the request. */
const FLORIST_PATHS: Partial<Record<string, string>> = {
  product_unknown: "product_code",
  zip_not_covered: "zipcode",
  delivery_date_unavailable: "delivery_date",
};

/** Runs a check with the florist; a refusal it makes while answering (its rules changed) is still an issue. */
async function withFlorist<T>(check: () => Promise<Checked<T>>): Promise<Checked<T>> {
  try {
    return await check();
  } catch (error) {
    const path = FloristError.isInstance(error) ? FLORIST_PATHS[error.code] : undefined;
    if (!FloristError.isInstance(error) || path === undefined) throw error;
    return { ok: false, issues: [{ path, code: error.code, message: `${error.message}.` }] };
  }
}

/** The product, the ZIP coverage and the delivery date, with the florist. */
export function checkAvailability(
  ctx: FlowerContext,
  request: FlowerLetter,
): Promise<Checked<{ product: FloristProduct }>> {
  const country = request.recipient.country;
  return withFlorist<{ product: FloristProduct }>(async () => {
    const products = await ctx.florist.catalogue();
    const product = products.find((p) => p.code === request.product_code);
    const issues: Issue[] = [];
    if (!product) {
      issues.push({
        path: "product_code",
        code: "product_unknown",
        message: `No florist product has the code ${request.product_code}. Products: ${products.map((p) => p.code).join(", ")}.`,
      });
    }
    const coverage = await ctx.florist.coverage(request.zipcode, country);
    if (!coverage.covered) {
      issues.push({
        path: "zipcode",
        code: "zip_not_covered",
        message: `The florist does not deliver to ${request.zipcode} (${country}): ${coverage.reason}.`,
      });
    }
    if (!product || issues.length > 0) return { ok: false, issues };

    const dates = await ctx.florist.deliveryDates(product.code, request.zipcode, { country });
    if (dates.includes(request.delivery_date)) return { ok: true, product };
    const later = dates.filter((d) => d > request.delivery_date).slice(0, 5);
    const next = later.length > 0 ? later : dates.slice(0, 5);
    const message =
      next.length > 0
        ? `${product.name} cannot be delivered to ${request.zipcode} on ${request.delivery_date}. Available dates include ${next.join(", ")}.`
        : `${product.name} cannot be delivered to ${request.zipcode} on any date at the moment.`;
    return { ok: false, issues: [{ path: "delivery_date", code: "delivery_date_unavailable", message }] };
  });
}

/** The florist's final quote, which must fall within the bounds. */
export function priceWithFlorist(
  ctx: FlowerContext,
  request: FlowerLetter,
  product: FloristProduct,
): Promise<Checked<{ quote: FloristQuote }>> {
  return withFlorist<{ quote: FloristQuote }>(async () => {
    const quote = await ctx.florist.quote({
      product_code: product.code,
      zip: request.zipcode,
      delivery_date: request.delivery_date,
      country: request.recipient.country,
    });
    const outOfBounds = checkFlowerQuote(quote.total_cents, ctx.bounds ?? FLOWER_LETTER_BOUNDS);
    return outOfBounds ? { ok: false, issues: [outOfBounds] } : { ok: true, quote };
  });
}

export function breakdown(ctx: Pick<FlowerContext, "bounds">, quote: FloristQuote): FlowerQuoteBreakdown {
  const bounds = ctx.bounds ?? FLOWER_LETTER_BOUNDS;
  return {
    total_cents: quote.total_cents,
    price_usd: centsToUsd(quote.total_cents),
    currency: "usd",
    product_cents: quote.product_cents,
    delivery_cents: quote.delivery_cents,
    service_fee_cents: quote.service_fee_cents,
    tax_cents: quote.tax_cents,
    lines: quote.lines.map((line) => ({ ...line })),
    bounds: { min_cents: bounds.min_cents, max_cents: bounds.max_cents },
  };
}

export function quoteView(
  ctx: FlowerContext,
  request: FlowerLetter,
  product: FloristProduct,
  quote: FloristQuote,
): FlowerQuoteView {
  return {
    object: "flower_letter_quote",
    request_id: request.request_id,
    product: { ...product },
    delivery_date: request.delivery_date,
    zipcode: request.zipcode,
    note: request.note,
    allow_substitutions: request.allow_substitutions,
    recipient: { ...request.recipient },
    quote: breakdown(ctx, quote),
  };
}
