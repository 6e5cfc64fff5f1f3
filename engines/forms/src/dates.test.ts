import { describe, expect, it } from "vitest";
import { formatLongDate, isCalendarDate, resolveToday } from "./dates.ts";

describe("isCalendarDate", () => {
  it.each(["2026-03-09", "2024-02-29", "2000-02-29", "1999-12-31"])("accepts %s", (d) =>
    expect(isCalendarDate(d)).toBe(true),
  );
  it.each([
    "2023-02-29",
    "1900-02-29",
    "2026-04-31",
    "2026-13-01",
    "2026-00-10",
    "2026-3-9",
    "03/09/2026",
    "2026-03-09T00:00",
  ])("refuses %s", (d) => expect(isCalendarDate(d)).toBe(false));
});

describe("resolveToday", () => {
  it("prefers today, then the clock's UTC date, else undefined", () => {
    const clock = { now: () => Date.parse("2026-03-10T23:30:00-05:00") };
    expect(resolveToday({ today: "2026-01-02", clock })).toBe("2026-01-02");
    expect(resolveToday({ clock })).toBe("2026-03-11");
    expect(resolveToday({})).toBeUndefined();
  });
  it("refuses a malformed today or clock", () => {
    expect(() => resolveToday({ today: "tomorrow" })).toThrow(
      expect.objectContaining({ code: "invalid_options" }),
    );
    expect(() => resolveToday({ clock: { now: () => Number.NaN } })).toThrow(
      expect.objectContaining({ code: "invalid_options" }),
    );
  });
});

it("formatLongDate writes a US letter date", () => {
  expect(formatLongDate("2026-03-05")).toBe("March 5, 2026");
  expect(formatLongDate("2026-12-31")).toBe("December 31, 2026");
});
