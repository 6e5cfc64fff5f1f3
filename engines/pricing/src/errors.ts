import { defineError, type ErrorOptions } from "@mailpiece/errors";

/**
 * Stable error codes of the pricing engine. Apps map them to HTTP in one place.
 * - `invalid_quote_input`: the quote input is malformed or self-contradictory (a wrong type, a missing postcard size,
 *   a return receipt without certified mail).
 * - `route_unavailable`: the book does not carry mail from this origin or to this destination.
 * - `option_unavailable`: the route or mailpiece cannot take an option that was asked for.
 * - `quote_above_ceiling`: the total is above the highest price one order may have.
 * - `invalid_price_book`: a price book is incomplete or malformed (operator configuration).
 * - `invalid_bounds`: quote bounds are malformed (operator configuration).
 * - `invalid_amount`: an amount to format is not an integer number of cents.
 */
export type PricingErrorCode =
  | "invalid_quote_input"
  | "route_unavailable"
  | "option_unavailable"
  | "quote_above_ceiling"
  | "invalid_price_book"
  | "invalid_bounds"
  | "invalid_amount";

/** The options of a PricingError: those of every Mailpiece error, and the input at fault. */
export interface PricingErrorOptions extends ErrorOptions {
  field?: string;
}

const PricingErrorBase = defineError<PricingErrorCode>("PricingError");

/**
 * The one error class of the pricing package. `code` is a stable wire contract; `message` is for people.
 * `field` names the key at fault where one is: a `QuoteInput` key for quote errors, a dotted path into the book for
 * `invalid_price_book`, a `QuoteBounds` key for `invalid_bounds`.
 */
export class PricingError extends PricingErrorBase {
  readonly field: string | undefined;

  constructor(code: PricingErrorCode, message: string, options: PricingErrorOptions = {}) {
    super(code, message, options);
    this.field = options.field;
  }

  /** True for any PricingError, also one created by another copy of this package. */
  static override isInstance(value: unknown): value is PricingError {
    return PricingErrorBase.isInstance(value);
  }
}
