import { TypesetterError } from "./errors.ts";

const MONTHS = [
  "January",
  "February",
  "March",
  "April",
  "May",
  "June",
  "July",
  "August",
  "September",
  "October",
  "November",
  "December",
] as const;

const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

/**
 * Reads the date of a letter: a calendar date written `YYYY-MM-DD` (as `Date.prototype.toISOString` writes the UTC
 * date: `new Date(ms).toISOString().slice(0, 10)`). A date that does not exist (2026-02-30) or any other value is
 * refused with `invalid_letter_input` on the field "date". Returns the date as it prints: "24 November 2026".
 */
export function letterDate(value: unknown): string {
  const match = typeof value === "string" ? ISO_DATE.exec(value) : null;
  if (match) {
    const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
    if (month >= 1 && month <= 12 && day >= 1 && day <= daysIn(year, month)) {
      return `${day} ${MONTHS[month - 1]} ${year}`;
    }
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

/** Days of a month of the Gregorian calendar. */
function daysIn(year: number, month: number): number {
  if (month === 2) return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0 ? 29 : 28;
  return month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31;
}
