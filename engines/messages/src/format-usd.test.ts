import { describe, expect, it } from "vitest";
import { formatUsd } from "./format-usd.ts";
import { issuesOf } from "./messages.fixture.ts";

describe("formatUsd", () => {
  it("writes integer cents as dollars with a sign, two decimals and commas between thousands", () => {
    expect(formatUsd(1234)).toBe("$12.34");
    expect(formatUsd(5)).toBe("$0.05");
    expect(formatUsd(0)).toBe("$0.00");
    expect(formatUsd(100)).toBe("$1.00");
    expect(formatUsd(123456789)).toBe("$1,234,567.89");
    expect(formatUsd(100000)).toBe("$1,000.00");
    expect(formatUsd(-125)).toBe("-$1.25");
    expect(formatUsd(Number.MAX_SAFE_INTEGER)).toBe("$90,071,992,547,409.91");
  });

  it("refuses anything but a safe integer with invalid_input", () => {
    for (const bad of [1.5, Number.NaN, Number.POSITIVE_INFINITY, 2 ** 53]) {
      expect(issuesOf(() => formatUsd(bad))).toEqual({
        code: "invalid_input",
        issues: [{ path: "", code: "invalid_amount" }],
      });
    }
  });
});
