import { describe, expect, it } from "vitest";
import { centsToDecimal } from "./method-config.ts";

describe("centsToDecimal", () => {
  it("writes cents as whole units with two decimals", () => {
    expect(centsToDecimal(0)).toBe("0.00");
    expect(centsToDecimal(5)).toBe("0.05");
    expect(centsToDecimal(1234)).toBe("12.34");
    expect(centsToDecimal(100000)).toBe("1000.00");
  });

  it("refuses negative and fractional amounts", () => {
    expect(() => centsToDecimal(-1)).toThrow(RangeError);
    expect(() => centsToDecimal(1.5)).toThrow(RangeError);
  });
});
