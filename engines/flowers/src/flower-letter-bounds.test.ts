import { describe, expect, it } from "vitest";
import { FlowersError } from "./errors.ts";
import { centsToUsd, checkFlowerQuote, FLOWER_LETTER_BOUNDS } from "./flower-letter-bounds.ts";

describe("FLOWER_LETTER_BOUNDS", () => {
  it("is 1.00 to 250.00 and cannot be changed", () => {
    expect(FLOWER_LETTER_BOUNDS).toEqual({ min_cents: 100, max_cents: 25_000 });
    expect(Object.isFrozen(FLOWER_LETTER_BOUNDS)).toBe(true);
  });
});

describe("checkFlowerQuote", () => {
  it("accepts totals from 1.00 to 250.00, both ends included", () => {
    for (const total of [100, 8977, 25_000]) expect(checkFlowerQuote(total)).toBeUndefined();
  });

  it("refuses a total below 1.00 or above 250.00 with quote_out_of_bounds on product_code", () => {
    expect(checkFlowerQuote(99)).toEqual({
      path: "product_code",
      code: "quote_out_of_bounds",
      message:
        "This flower letter totals 0.99 USD; a flower letter costs 1.00 to 250.00 USD. Choose another product, delivery date or ZIP.",
    });
    expect(checkFlowerQuote(25_001)?.code).toBe("quote_out_of_bounds");
    expect(checkFlowerQuote(26_673)?.message).toContain("266.73 USD");
  });

  it("takes other bounds, and refuses malformed bounds and amounts", () => {
    expect(checkFlowerQuote(150, { min_cents: 200, max_cents: 300 })?.code).toBe("quote_out_of_bounds");
    const code = (action: () => unknown) => {
      try {
        action();
      } catch (error) {
        return FlowersError.isInstance(error) ? error.code : "other";
      }
      return undefined;
    };
    expect(code(() => checkFlowerQuote(100, { min_cents: 300, max_cents: 200 }))).toBe("invalid_bounds");
    expect(code(() => checkFlowerQuote(100, { min_cents: 1.5, max_cents: 200 }))).toBe("invalid_bounds");
    expect(code(() => checkFlowerQuote(100.5))).toBe("invalid_amount");
  });
});

describe("centsToUsd", () => {
  it("writes integer cents as dollars and cents", () => {
    expect(centsToUsd(0)).toBe("0.00");
    expect(centsToUsd(5)).toBe("0.05");
    expect(centsToUsd(26_673)).toBe("266.73");
    expect(centsToUsd(-150)).toBe("-1.50");
  });
});
