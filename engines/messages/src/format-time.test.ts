import { describe, expect, it } from "vitest";
import { formatTime, parseIsoTime } from "./format-time.ts";

describe("parseIsoTime and formatTime", () => {
  it("reads ISO 8601 date-times with a zone and shows them in UTC", () => {
    expect(formatTime(parseIsoTime("2026-01-05T14:03:27Z")!)).toBe("January 5, 2026, 14:03 UTC");
    expect(formatTime(parseIsoTime("2026-01-05T14:03:27.512Z")!)).toBe("January 5, 2026, 14:03 UTC");
    expect(formatTime(parseIsoTime("2026-01-05T00:30+02:00")!)).toBe("January 4, 2026, 22:30 UTC");
    expect(formatTime(parseIsoTime("2025-12-31T23:59:59-05:00")!)).toBe("January 1, 2026, 04:59 UTC");
    expect(parseIsoTime("2028-02-29T12:00:00Z")).toBe(Date.UTC(2028, 1, 29, 12));
  });

  it("refuses times without a zone, days and hours that do not exist, and text", () => {
    for (const bad of [
      "2026-01-05T14:03:27",
      "2026-01-05",
      "2026-02-30T00:00:00Z",
      "2027-02-29T00:00:00Z",
      "2026-13-01T00:00:00Z",
      "2026-01-05T24:00:00Z",
      "2026-01-05T12:60:00Z",
      "2026-01-05T12:00:00+24:00",
      "yesterday",
      "",
      " 2026-01-05T14:03:27Z",
    ]) {
      expect(parseIsoTime(bad), bad).toBeUndefined();
    }
  });
});
