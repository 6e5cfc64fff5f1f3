import { FormsError } from "./errors.ts";

/** The clock shape of the ports package: milliseconds since the epoch. */
export interface Clock {
  now(): number;
}

const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** True for a real calendar date written YYYY-MM-DD (2024-02-29 yes, 2023-02-29 and 2024-13-01 no). */
export function isCalendarDate(text: string): boolean {
  const match = ISO_DATE.exec(text);
  if (!match) return false;
  const year = Number(match[1]);
  const month = Number(match[2]);
  const day = Number(match[3]);
  if (year < 1 || month < 1 || month > 12 || day < 1) return false;
  return day <= daysInMonth(year, month);
}

function daysInMonth(year: number, month: number): number {
  if (month === 2) return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

/**
 * Today's date for date checks: `today` when given (YYYY-MM-DD), else the clock's date in UTC, else undefined.
 * Throws FormsError("invalid_options") for a `today` that is not a calendar date or a clock that gives no time.
 */
export function resolveToday(options: { today?: unknown; clock?: unknown }): string | undefined {
  if (options.today !== undefined) {
    if (typeof options.today !== "string" || !isCalendarDate(options.today)) {
      throw new FormsError("invalid_options", "options.today must be a calendar date written YYYY-MM-DD.");
    }
    return options.today;
  }
  if (options.clock !== undefined) {
    const clock = options.clock as Partial<Clock> | null;
    const now = typeof clock?.now === "function" ? clock.now() : Number.NaN;
    if (typeof now !== "number" || !Number.isFinite(now)) {
      throw new FormsError("invalid_options", "options.clock must be { now(): number } (milliseconds).");
    }
    return new Date(now).toISOString().slice(0, 10);
  }
  return undefined;
}

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

/** A calendar date as it reads in a US letter: "2026-03-05" is "March 5, 2026". */
export function formatLongDate(date: string): string {
  const match = ISO_DATE.exec(date);
  if (!match) return date;
  return `${MONTHS[Number(match[2]) - 1] ?? ""} ${Number(match[3])}, ${match[1]}`;
}
