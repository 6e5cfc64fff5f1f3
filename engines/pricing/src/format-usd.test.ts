import { defineError } from "@mailpiece/errors";
import { describe, expect, it } from "vitest";
import { PricingError } from "./errors.ts";
import { formatUsd } from "./format-usd.ts";

describe("formatUsd", () => {
  it.each([
    [340, "3.40"],
    [20000, "200.00"],
    [5, "0.05"],
    [0, "0.00"],
    [100, "1.00"],
    [123456789, "1234567.89"],
    [-125, "-1.25"],
  ])("formats %i cents as %s", (cents, text) => {
    expect(formatUsd(cents)).toBe(text);
  });

  it("refuses amounts that are not integer cents", () => {
    for (const value of [3.4, Number.NaN, Number.POSITIVE_INFINITY]) {
      let caught: unknown;
      try {
        formatUsd(value);
      } catch (error) {
        caught = error;
      }
      expect(PricingError.isInstance(caught) && caught.code).toBe("invalid_amount");
    }
  });
});

describe("PricingError", () => {
  it("is recognised across copies of the package by its marker", () => {
    const error = new PricingError("route_unavailable", "no", { field: "destination_country" });
    expect(PricingError.isInstance(error)).toBe(true);
    expect(error.field).toBe("destination_country");
    expect(error.name).toBe("PricingError");
    // A second install of the package makes its class with the same name.
    const Copied = defineError<"route_unavailable">("PricingError");
    expect(PricingError.isInstance(new Copied("route_unavailable", "no"))).toBe(true);
    expect(PricingError.isInstance(new (defineError("LifecycleError"))("route_unavailable", "no"))).toBe(
      false,
    );
    expect(PricingError.isInstance(new Error("no"))).toBe(false);
    expect(PricingError.isInstance("route_unavailable")).toBe(false);
  });
});
