export { DEFAULT_PRICE_BOOK } from "./default-price-book.ts";
export type { PricingErrorCode, PricingErrorOptions } from "./errors.ts";
export { PricingError } from "./errors.ts";
export { formatUsd } from "./format-usd.ts";
export type { DestinationPrices, PostcardSize, PriceBook, ProofKind } from "./price-book.ts";
export { POSTCARD_SIZES, validatePriceBook } from "./price-book.ts";
export type { LineItem, MailClass, Quote, QuoteBounds, QuoteInput, Quoter } from "./quote.ts";
export { createQuoter, MACHINE_ORDER_BOUNDS, PROJECT_ORDER_BOUNDS, quote } from "./quote.ts";
