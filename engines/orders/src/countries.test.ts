import { describe, expect, it } from "vitest";
import { ALLOWED_COUNTRIES, countryName, isAllowedCountry, resolveCountry } from "./countries.ts";

describe("countries", () => {
  it("allows the twelve countries, ES included", () => {
    expect(ALLOWED_COUNTRIES).toEqual([
      "US",
      "CA",
      "AT",
      "BE",
      "CH",
      "DE",
      "ES",
      "FR",
      "GB",
      "IN",
      "LU",
      "NL",
    ]);
    expect(Object.isFrozen(ALLOWED_COUNTRIES)).toBe(true);
  });
  it("isAllowedCountry takes exact alpha-2 codes", () => {
    expect(isAllowedCountry("DE")).toBe(true);
    expect(isAllowedCountry("de")).toBe(false);
    expect(isAllowedCountry("BR")).toBe(false);
  });
  it("resolveCountry takes alpha-2 and alpha-3 in any case", () => {
    expect(resolveCountry(" gbr ")).toBe("GB");
    expect(resolveCountry("che")).toBe("CH");
    expect(resolveCountry("nl")).toBe("NL");
    expect(resolveCountry("BRA")).toBeUndefined();
    expect(resolveCountry("")).toBeUndefined();
  });
  it("names each country", () => {
    expect(ALLOWED_COUNTRIES.map((c) => (isAllowedCountry(c) ? countryName(c) : ""))).not.toContain("");
    expect(countryName("CH")).toBe("Switzerland");
  });
});
