import { addDays, dateOfDay, dayNumber, localTime, nthWeekday, weekday } from "./calendar.ts";
import type { FloristRules } from "./rules.ts";

/** Days the florist never delivers, whatever the rules add: New Year's Day, 4 July, Thanksgiving, Christmas Day. */
export function isFixedClosure(date: string): boolean {
  const monthDay = date.slice(5);
  if (monthDay === "01-01" || monthDay === "07-04" || monthDay === "12-25") return true;
  const year = Number(date.slice(0, 4));
  return date === nthWeekday(year, 11, 4, 4);
}

/**
 * Peak days, which cost the holiday surcharge: 13 and 14 February, the Friday and Saturday before Mother's Day
 * (the second Sunday of May), and 23 and 24 December.
 */
export function isPeakDay(date: string): boolean {
  const monthDay = date.slice(5);
  if (["02-13", "02-14", "12-23", "12-24"].includes(monthDay)) return true;
  const mothersDay = nthWeekday(Number(date.slice(0, 4)), 5, 0, 2);
  return date === addDays(mothersDay, -2) || date === addDays(mothersDay, -1);
}

/** The florist's today at `now`, and whether it is past the same-day cutoff. */
export function todayAt(now: number, rules: Pick<FloristRules, "timeZone" | "sameDayCutoffHour">) {
  const local = localTime(now, rules.timeZone);
  return { today: local.date, pastCutoff: local.hour >= rules.sameDayCutoffHour };
}

/**
 * The dates a product with `leadDays` of notice can be delivered at `now`: from today plus the lead time (one day
 * more once the day's cutoff has passed), at most `maxDaysAhead` after today, never on a closed weekday, a
 * blackout date or a fixed closure. Only dates on or after `from` are returned.
 */
export function deliveryDatesAt(now: number, leadDays: number, rules: FloristRules, from?: string): string[] {
  const { today, pastCutoff } = todayAt(now, rules);
  const first = dayNumber(today) + leadDays + (pastCutoff ? 1 : 0);
  const last = dayNumber(today) + rules.maxDaysAhead;
  const start = from === undefined ? first : Math.max(first, dayNumber(from));
  const blackout = new Set(rules.blackoutDates);
  const dates: string[] = [];
  for (let day = start; day <= last; day++) {
    const date = dateOfDay(day);
    if (rules.closedWeekdays.includes(weekday(date)) || blackout.has(date) || isFixedClosure(date)) continue;
    dates.push(date);
  }
  return dates;
}
