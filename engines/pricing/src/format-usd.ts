import { PricingError } from "./errors.ts";

/** Formats integer cents as a US dollar amount without symbol: 340 -> "3.40", 5 -> "0.05", -125 -> "-1.25". */
export function formatUsd(cents: number): string {
  if (!Number.isSafeInteger(cents)) {
    throw new PricingError("invalid_amount", `An amount must be an integer number of cents; got ${cents}.`);
  }
  const sign = cents < 0 ? "-" : "";
  const abs = Math.abs(cents);
  return `${sign}${Math.floor(abs / 100)}.${String(abs % 100).padStart(2, "0")}`;
}
