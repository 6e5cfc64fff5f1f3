import type { Issue } from "@mailpiece/errors";
import { FlowersError } from "./errors.ts";

/** The lowest and highest total of one order, in integer US cents. */
export interface FlowerQuoteBounds {
  min_cents: number;
  max_cents: number;
}

/** Flower letters cost 1.00 to 250.00 (spec 1: dynamic pricing). */
export const FLOWER_LETTER_BOUNDS: Readonly<FlowerQuoteBounds> = Object.freeze({
  min_cents: 100,
  max_cents: 25_000,
});

/** Integer cents as a plain decimal string: 26673 -> "266.73". */
export function centsToUsd(cents: number): string {
  if (!Number.isSafeInteger(cents)) {
    throw new FlowersError("invalid_amount", `An amount must be an integer number of cents; got ${cents}.`);
  }
  const abs = Math.abs(cents);
  return `${cents < 0 ? "-" : ""}${Math.floor(abs / 100)}.${String(abs % 100).padStart(2, "0")}`;
}

/**
 * The issue for a final quote outside the bounds (code `quote_out_of_bounds`, on `product_code`, the field that
 * moves the price most), or undefined when the total is within them, both ends included. Throws FlowersError
 * `invalid_bounds` for malformed bounds and `invalid_amount` for a total that is not an integer.
 */
export function checkFlowerQuote(
  totalCents: number,
  bounds: FlowerQuoteBounds = FLOWER_LETTER_BOUNDS,
): Issue | undefined {
  const { min_cents: min, max_cents: max } = bounds;
  if (!Number.isSafeInteger(min) || !Number.isSafeInteger(max) || min < 0 || min > max) {
    throw new FlowersError(
      "invalid_bounds",
      `Quote bounds need integer cents with 0 <= min <= max; got ${min}, ${max}.`,
    );
  }
  const total = centsToUsd(totalCents);
  if (totalCents >= min && totalCents <= max) return undefined;
  return {
    path: "product_code",
    code: "quote_out_of_bounds",
    message: `This flower letter totals ${total} USD; a flower letter costs ${centsToUsd(min)} to ${centsToUsd(max)} USD. Choose another product, delivery date or ZIP.`,
  };
}
