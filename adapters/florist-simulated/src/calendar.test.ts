import { describe, expect, it } from "vitest";
import { addDays, assertTimeZone, instantOf, localTime, nthWeekday, weekday } from "./calendar.ts";

describe("calendar dates", () => {
  it("counts weekdays and adds days across months, years and leap days", () => {
    expect(weekday("2026-05-03")).toBe(0);
    expect(weekday("2026-05-09")).toBe(6);
    expect(addDays("2026-12-31", 1)).toBe("2027-01-01");
    expect(addDays("2028-02-28", 1)).toBe("2028-02-29");
    expect(addDays("2026-03-01", -1)).toBe("2026-02-28");
  });

  it("finds the nth weekday of a month: Thanksgiving and Mother's Day", () => {
    expect(nthWeekday(2026, 11, 4, 4)).toBe("2026-11-26");
    expect(nthWeekday(2027, 11, 4, 4)).toBe("2027-11-25");
    expect(nthWeekday(2026, 5, 0, 2)).toBe("2026-05-10");
    expect(nthWeekday(2027, 5, 0, 2)).toBe("2027-05-09");
  });
});

describe("local time in a time zone", () => {
  it("reads the wall clock of New York, a day behind UTC late in the evening", () => {
    expect(localTime(Date.parse("2026-05-04T03:30:00Z"), "America/New_York")).toEqual({
      date: "2026-05-03",
      hour: 23,
      minute: 30,
    });
    expect(localTime(Date.parse("2026-05-04T03:30:00Z"), "UTC")).toEqual({
      date: "2026-05-04",
      hour: 3,
      minute: 30,
    });
  });

  it("finds the instant of a local hour on both sides of a daylight-saving change", () => {
    expect(new Date(instantOf("2026-03-07", 9, "America/New_York")).toISOString()).toBe(
      "2026-03-07T14:00:00.000Z",
    );
    expect(new Date(instantOf("2026-03-09", 9, "America/New_York")).toISOString()).toBe(
      "2026-03-09T13:00:00.000Z",
    );
    expect(new Date(instantOf("2026-07-01", 14, "America/Los_Angeles")).toISOString()).toBe(
      "2026-07-01T21:00:00.000Z",
    );
  });

  it("refuses a time zone the runtime does not know", () => {
    expect(() => assertTimeZone("Mars/Olympus_Mons")).toThrow(RangeError);
    expect(() => assertTimeZone("Europe/Paris")).not.toThrow();
  });
});
