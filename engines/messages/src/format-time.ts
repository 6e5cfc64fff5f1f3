/** ISO 8601 date-time with a zone: `2026-01-05T14:03:00Z`, `2026-01-05T15:03:00.5+01:00` (seconds optional). */
const ISO_DATE_TIME =
  /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(?:Z|z|([+-])(\d{2}):(\d{2}))$/;

/** Month names in English, whatever the locale of the process. */
const MONTH = new Intl.DateTimeFormat("en-US", { month: "long", timeZone: "UTC" });

/**
 * The instant of an ISO 8601 date-time with a zone, in milliseconds since the epoch; undefined when `value` is not
 * one or names a day, hour or minute that does not exist (February 30, 24:00, a zone beyond ±23:59).
 */
export function parseIsoTime(value: string): number | undefined {
  const match = ISO_DATE_TIME.exec(value);
  if (match === null) return undefined;
  const [year, month, day, hour, minute, second] = match.slice(1, 7).map((part) => Number(part ?? 0)) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  const calendar = new Date(Date.UTC(year, month - 1, day));
  if (
    month < 1 ||
    calendar.getUTCFullYear() !== year ||
    calendar.getUTCMonth() !== month - 1 ||
    calendar.getUTCDate() !== day ||
    hour > 23 ||
    minute > 59 ||
    second > 59 ||
    Number(match[8] ?? 0) > 23 ||
    Number(match[9] ?? 0) > 59
  ) {
    return undefined;
  }
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : at;
}

/** An instant for people, in UTC whatever zone it was given in: `January 5, 2026, 14:03 UTC`. */
export function formatTime(at: number): string {
  const date = new Date(at);
  const hh = String(date.getUTCHours()).padStart(2, "0");
  const mm = String(date.getUTCMinutes()).padStart(2, "0");
  return `${MONTH.format(date)} ${date.getUTCDate()}, ${date.getUTCFullYear()}, ${hh}:${mm} UTC`;
}
