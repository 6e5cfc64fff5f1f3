/**
 * Calendar dates (`YYYY-MM-DD`) and local wall-clock time in an IANA time zone, without a date library: dates are
 * counted as UTC days, and a time zone's offset is read from `Intl.DateTimeFormat`.
 */

const DAY_MS = 86_400_000;

/** The days since 1970-01-01 of a `YYYY-MM-DD` date (assumed valid). */
export function dayNumber(date: string): number {
  const [year, month, day] = date.split("-").map(Number) as [number, number, number];
  return Math.floor(Date.UTC(year, month - 1, day) / DAY_MS);
}

/** The `YYYY-MM-DD` date `days` after 1970-01-01. */
export function dateOfDay(days: number): string {
  return new Date(days * DAY_MS).toISOString().slice(0, 10);
}

export function addDays(date: string, days: number): string {
  return dateOfDay(dayNumber(date) + days);
}

/** 0 for Sunday to 6 for Saturday. */
export function weekday(date: string): number {
  return new Date(dayNumber(date) * DAY_MS).getUTCDay();
}

/** The `n`th (1-based) given weekday of a month, e.g. the fourth Thursday of November. */
export function nthWeekday(year: number, month: number, day: number, n: number): string {
  const first = `${year}-${String(month).padStart(2, "0")}-01`;
  const shift = (day - weekday(first) + 7) % 7;
  return addDays(first, shift + 7 * (n - 1));
}

/** Wall-clock time in a time zone: the date, the hour (0-23) and the minute. */
export interface LocalTime {
  date: string;
  hour: number;
  minute: number;
}

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatterFor(timeZone: string): Intl.DateTimeFormat {
  let formatter = formatters.get(timeZone);
  if (!formatter) {
    formatter = new Intl.DateTimeFormat("en-US", {
      timeZone,
      year: "numeric",
      month: "2-digit",
      day: "2-digit",
      hour: "2-digit",
      minute: "2-digit",
      second: "2-digit",
      hourCycle: "h23",
    });
    formatters.set(timeZone, formatter);
  }
  return formatter;
}

/** Throws RangeError unless `timeZone` is an IANA time zone this runtime knows. */
export function assertTimeZone(timeZone: string): void {
  formatterFor(timeZone);
}

function parts(ms: number, timeZone: string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const part of formatterFor(timeZone).formatToParts(new Date(ms))) {
    if (part.type !== "literal") out[part.type] = Number(part.value);
  }
  return out;
}

/** The wall-clock time at `ms` (milliseconds since the epoch) in `timeZone`. */
export function localTime(ms: number, timeZone: string): LocalTime {
  const p = parts(ms, timeZone);
  const date = `${String(p.year).padStart(4, "0")}-${String(p.month).padStart(2, "0")}-${String(p.day).padStart(2, "0")}`;
  return { date, hour: p.hour ?? 0, minute: p.minute ?? 0 };
}

/** How far `timeZone` is ahead of UTC at `ms`, in milliseconds. */
function offsetAt(ms: number, timeZone: string): number {
  const p = parts(ms, timeZone);
  const wall = Date.UTC(
    p.year ?? 1970,
    (p.month ?? 1) - 1,
    p.day ?? 1,
    p.hour ?? 0,
    p.minute ?? 0,
    p.second ?? 0,
  );
  return wall - Math.floor(ms / 1000) * 1000;
}

/** The moment a wall clock in `timeZone` shows `hour`:00 on `date` (the later reading when a change skips it). */
export function instantOf(date: string, hour: number, timeZone: string): number {
  const wall = dayNumber(date) * DAY_MS + hour * 3_600_000;
  const first = wall - offsetAt(wall, timeZone);
  return wall - offsetAt(first, timeZone);
}
