import { describe, expect, it } from "vitest";
import { letterDate, todayUtc } from "./letter-date.ts";

describe("letterDate", () => {
  it.each([
    ["2026-11-24", "24 November 2026"],
    ["2026-01-01", "1 January 2026"],
    ["2024-02-29", "29 February 2024"],
    ["2000-02-29", "29 February 2000"],
    ["1999-12-31", "31 December 1999"],
  ])("prints %s as %s", (iso, printed) => {
    expect(letterDate(iso)).toBe(printed);
  });

  it.each([
    "2026-02-29",
    "1900-02-29",
    "2026-04-31",
    "2026-13-01",
    "2026-00-10",
    "2026-11-00",
    "24/11/2026",
    "2026-11-24T10:00:00Z",
    " 2026-11-24",
    "",
    20261124,
    null,
  ])("refuses %j with invalid_letter_input on the date", (value) => {
    expect(() => letterDate(value)).toThrow(
      expect.objectContaining({ code: "invalid_letter_input", field: "date" }),
    );
  });
});

describe("todayUtc", () => {
  it("is the UTC calendar date of the moment", () => {
    expect(todayUtc(new Date("2026-11-24T23:59:59-05:00"))).toBe("2026-11-25");
    expect(todayUtc(new Date("2026-11-24T00:00:00Z"))).toBe("2026-11-24");
  });
});
