import { MessagesError } from "./errors.ts";
import { groupDigits } from "./format-number.ts";

/**
 * Integer cents as US dollars for people: 1234 -> "$12.34", 5 -> "$0.05", 123456789 -> "$1,234,567.89",
 * -125 -> "-$1.25". Throws MessagesError `invalid_input` for anything but a safe integer.
 */
export function formatUsd(cents: number): string {
  if (!Number.isSafeInteger(cents)) {
    throw new MessagesError("invalid_input", "An amount must be a whole number of cents.", {
      issues: [{ path: "", code: "invalid_amount", message: "An amount must be a whole number of cents." }],
    });
  }
  const sign = cents < 0 ? "-" : "";
  const abs = Math.abs(cents);
  const dollars = groupDigits(Math.floor(abs / 100));
  return `${sign}$${dollars}.${String(abs % 100).padStart(2, "0")}`;
}
