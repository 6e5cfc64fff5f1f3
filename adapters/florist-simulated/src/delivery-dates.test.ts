import { describe, expect, it } from "vitest";
import { deliveryDatesAt, isFixedClosure, isPeakDay } from "./delivery-dates.ts";
import { DEFAULT_RULES, type FloristRules, resolveRules } from "./rules.ts";

/** Monday 4 May 2026 at the given New York wall-clock time (EDT, UTC-4). */
const mondayAt = (hhmm: string) => Date.parse(`2026-05-04T${hhmm}:00-04:00`);
const rules = (patch: Partial<FloristRules> = {}) => resolveRules(patch);

describe("deliveryDatesAt", () => {
  it("offers today before the same-day cutoff and starts tomorrow from the cutoff on", () => {
    expect(deliveryDatesAt(mondayAt("12:59"), 0, rules())[0]).toBe("2026-05-04");
    expect(deliveryDatesAt(mondayAt("13:00"), 0, rules())[0]).toBe("2026-05-05");
    expect(deliveryDatesAt(mondayAt("13:00"), 0, rules({ sameDayCutoffHour: 15 }))[0]).toBe("2026-05-04");
  });

  it("counts the cutoff in the florist's time zone", () => {
    // 12:00 in New York is 09:00 in Los Angeles: before the cutoff in both.
    expect(deliveryDatesAt(mondayAt("12:00"), 0, rules({ timeZone: "America/Los_Angeles" }))[0]).toBe(
      "2026-05-04",
    );
    // 10:00 in New York is 14:00 in UTC: the same moment is before the cutoff in one and after it in the other.
    expect(deliveryDatesAt(mondayAt("10:00"), 0, rules())[0]).toBe("2026-05-04");
    expect(deliveryDatesAt(mondayAt("10:00"), 0, rules({ timeZone: "UTC" }))[0]).toBe("2026-05-05");
    // 21:30 in New York is already Tuesday in UTC.
    expect(deliveryDatesAt(mondayAt("21:30"), 0, rules({ timeZone: "UTC", sameDayCutoffHour: 24 }))[0]).toBe(
      "2026-05-05",
    );
  });

  it("never delivers on Sundays, fixed closures or blackout dates", () => {
    const dates = deliveryDatesAt(mondayAt("09:00"), 0, rules({ blackoutDates: ["2026-05-06"] }));
    expect(dates).not.toContain("2026-05-10");
    expect(dates).not.toContain("2026-05-06");
    expect(dates).toContain("2026-05-09");
    expect(dates).not.toContain("2026-07-04");
    expect(dates.slice(0, 6)).toEqual([
      "2026-05-04",
      "2026-05-05",
      "2026-05-07",
      "2026-05-08",
      "2026-05-09",
      "2026-05-11",
    ]);
    expect(deliveryDatesAt(mondayAt("09:00"), 0, rules({ closedWeekdays: [] }))).toContain("2026-05-10");
  });

  it("honours a product's lead time, one day more past the cutoff", () => {
    expect(deliveryDatesAt(mondayAt("09:00"), 2, rules())[0]).toBe("2026-05-06");
    expect(deliveryDatesAt(mondayAt("14:00"), 2, rules())[0]).toBe("2026-05-07");
  });

  it("looks at most maxDaysAhead days ahead and starts at from", () => {
    const dates = deliveryDatesAt(mondayAt("09:00"), 0, rules({ maxDaysAhead: 10 }));
    expect(dates.at(-1)).toBe("2026-05-14");
    expect(deliveryDatesAt(mondayAt("09:00"), 0, rules(), "2026-05-20")[0]).toBe("2026-05-20");
    expect(deliveryDatesAt(mondayAt("09:00"), 0, rules(), "2026-04-01")[0]).toBe("2026-05-04");
    expect(deliveryDatesAt(mondayAt("09:00"), 0, rules({ maxDaysAhead: 10 }), "2026-06-01")).toEqual([]);
  });

  it("lists dates in ascending order without repeats", () => {
    const dates = deliveryDatesAt(mondayAt("09:00"), 0, DEFAULT_RULES as FloristRules);
    expect([...new Set(dates)].sort()).toEqual(dates);
    expect(dates.length).toBeGreaterThan(40);
  });
});

describe("fixed closures and peak days", () => {
  it("closes on New Year's Day, 4 July, Thanksgiving and Christmas Day", () => {
    for (const date of ["2027-01-01", "2026-07-04", "2026-11-26", "2026-12-25"])
      expect(isFixedClosure(date)).toBe(true);
    for (const date of ["2026-11-27", "2026-12-24", "2026-07-03"]) expect(isFixedClosure(date)).toBe(false);
  });

  it("marks Valentine's, the Friday and Saturday before Mother's Day and Christmas Eve as peak days", () => {
    for (const date of ["2027-02-13", "2027-02-14", "2026-05-08", "2026-05-09", "2026-12-23", "2026-12-24"]) {
      expect(isPeakDay(date)).toBe(true);
    }
    for (const date of ["2026-05-07", "2026-05-11", "2027-02-15", "2026-12-22"])
      expect(isPeakDay(date)).toBe(false);
  });
});
