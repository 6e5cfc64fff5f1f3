import { assertTimeZone } from "./calendar.ts";

/**
 * The rules the simulated florist works by: its day and cutoff, the days it does not deliver, its fees and its
 * coverage. Every field has a default; `resolveRules` checks a partial set and fills in the rest.
 */
export interface FloristRules {
  /** IANA time zone the florist's day and cutoff are counted in. Default `America/New_York`. */
  timeZone: string;
  /** Same-day orders are taken until this local hour (1 to 24; 24: all day). Default 13. */
  sameDayCutoffHour: number;
  /** The furthest delivery date, in days after today. Default 60. */
  maxDaysAhead: number;
  /** Weekdays without deliveries, 0 = Sunday to 6 = Saturday. Default Sunday. */
  closedWeekdays: number[];
  /**
   * Extra dates without deliveries (`YYYY-MM-DD`), on top of the fixed closures: New Year's Day, Independence Day,
   * Thanksgiving and Christmas Day.
   */
  blackoutDates: string[];
  /** Every delivery. Default 14.99. */
  deliveryFeeCents: number;
  /** Added when the delivery date is today. Default 5.00. */
  sameDayFeeCents: number;
  /**
   * Added on peak days: 13 and 14 February, the Friday and Saturday before Mother's Day, 23 and 24 December.
   * Default 10.00.
   */
  holidaySurchargeCents: number;
  /** Added for a ZIP that starts with one of `ruralZipPrefixes`. Default 7.99. */
  ruralSurchargeCents: number;
  /** Per order. Default 3.99. */
  serviceFeeCents: number;
  /** Sales tax on product and delivery, in hundredths of a percent (725 = 7.25 %), rounded half up. */
  taxRateBasisPoints: number;
  /** US ZIP prefixes (1 to 5 digits) the florist does not deliver to. */
  uncoveredZipPrefixes: string[];
  /** US ZIP prefixes that cost a rural surcharge. */
  ruralZipPrefixes: string[];
}

const range = (from: number, to: number): string[] =>
  Array.from({ length: to - from + 1 }, (_, i) => String(from + i).padStart(3, "0"));

export const DEFAULT_RULES: Readonly<FloristRules> = Object.freeze({
  timeZone: "America/New_York",
  sameDayCutoffHour: 13,
  maxDaysAhead: 60,
  closedWeekdays: [0],
  blackoutDates: [],
  deliveryFeeCents: 1499,
  sameDayFeeCents: 500,
  holidaySurchargeCents: 1000,
  ruralSurchargeCents: 799,
  serviceFeeCents: 399,
  taxRateBasisPoints: 725,
  // Puerto Rico and the Virgin Islands, military post (AE, AA, AP), Hawaii, the Pacific islands, Alaska.
  uncoveredZipPrefixes: [...range(6, 9), ...range(90, 99), "340", ...range(962, 969), ...range(995, 999)],
  // Montana, Wyoming, North Dakota, western South Dakota, the Nebraska panhandle.
  ruralZipPrefixes: [...range(590, 599), ...range(820, 831), ...range(580, 588), "577", "693"],
});

/** The rules with defaults filled in; throws RangeError for a value out of range. */
export function resolveRules(rules: Partial<FloristRules> = {}): FloristRules {
  const defined = Object.fromEntries(Object.entries(rules).filter(([, v]) => v !== undefined));
  const resolved: FloristRules = structuredClone({ ...DEFAULT_RULES, ...defined }) as FloristRules;
  const integer = (key: keyof FloristRules, min: number, max: number) => {
    const value = resolved[key];
    if (typeof value !== "number" || !Number.isSafeInteger(value) || value < min || value > max) {
      throw new RangeError(`rules.${key} must be an integer from ${min} to ${max}, got ${String(value)}`);
    }
  };
  assertTimeZone(resolved.timeZone);
  integer("sameDayCutoffHour", 1, 24);
  integer("maxDaysAhead", 0, 366);
  for (const key of [
    "deliveryFeeCents",
    "sameDayFeeCents",
    "holidaySurchargeCents",
    "ruralSurchargeCents",
    "serviceFeeCents",
  ] as const) {
    integer(key, 0, 1_000_000);
  }
  integer("taxRateBasisPoints", 0, 10_000);
  if (!resolved.closedWeekdays.every((d) => Number.isInteger(d) && d >= 0 && d <= 6)) {
    throw new RangeError("rules.closedWeekdays must hold weekday numbers from 0 (Sunday) to 6 (Saturday)");
  }
  if (!resolved.blackoutDates.every((d) => /^\d{4}-\d{2}-\d{2}$/.test(d))) {
    throw new RangeError("rules.blackoutDates must hold YYYY-MM-DD dates");
  }
  for (const key of ["uncoveredZipPrefixes", "ruralZipPrefixes"] as const) {
    if (!resolved[key].every((p) => /^\d{1,5}$/.test(p))) {
      throw new RangeError(`rules.${key} must hold ZIP prefixes of 1 to 5 digits`);
    }
  }
  return resolved;
}
