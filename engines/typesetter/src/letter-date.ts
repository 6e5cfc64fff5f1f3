import { TypesetterError } from "./errors.ts";

/** Dates as a letter prints them: "24 November 2026". */
const PRINTED = new Intl.DateTimeFormat("en-GB", {
  day: "numeric",
  month: "long",
  year: "numeric",
  timeZone: "UTC",
});

const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

/**
 * Reads the date of a letter: a calendar date written `YYYY-MM-DD` (as `Date.prototype.toISOString` writes the UTC
 * date: `new Date(ms).toISOString().slice(0, 10)`). A date that does not exist (2026-02-30) or any other value is
 * refused with `invalid_letter_input` on the field "date". Returns the date as it prints: "24 November 2026".
 */
export function letterDate(value: unknown): string {
  const match = typeof value === "string" ? ISO_DATE.exec(value) : null;
  if (match) {
    const ms = Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3]));
    // A date that does not exist (2026-02-30) rolls over to another day: the round trip tells.
    if (todayUtc(new Date(ms)) === value) return PRINTED.format(ms);
  }
  throw new TypesetterError(
    "invalid_letter_input",
    `The date must be a calendar date written YYYY-MM-DD, such as "2026-11-24"; got ${JSON.stringify(value)}.`,
    { field: "date" },
  );
}

/** Today's date in UTC, written `YYYY-MM-DD`. */
export function todayUtc(now: Date = new Date()): string {
  return now.toISOString().slice(0, 10);
}
