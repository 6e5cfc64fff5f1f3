import { describe, expect, it } from "vitest";
import { coverageOf, isRural } from "./coverage.ts";
import { DEFAULT_RULES } from "./rules.ts";

describe("coverageOf", () => {
  it("covers ordinary US ZIP codes and reduces ZIP+4 to five digits", () => {
    expect(coverageOf("10001", "US", DEFAULT_RULES)).toEqual({ covered: true, zip: "10001", country: "US" });
    expect(coverageOf(" 94103-1234 ", "us", DEFAULT_RULES)).toEqual({
      covered: true,
      zip: "94103",
      country: "US",
    });
  });

  it("does not cover Alaska, Hawaii, military post or Puerto Rico", () => {
    for (const zip of ["99501", "96813", "09021", "34002", "96201", "00901"]) {
      expect(coverageOf(zip, "US", DEFAULT_RULES)).toMatchObject({ covered: false, zip });
    }
  });

  it("answers not covered, with a reason, outside the US and for what is not a ZIP code", () => {
    expect(coverageOf("10115", "DE", DEFAULT_RULES)).toMatchObject({
      covered: false,
      reason: expect.stringMatching(/US only/),
    });
    expect(coverageOf("1000", "US", DEFAULT_RULES)).toMatchObject({
      covered: false,
      reason: expect.stringMatching(/not a US ZIP/),
    });
    expect(coverageOf("", "US", DEFAULT_RULES).covered).toBe(false);
  });

  it("follows configured prefixes", () => {
    expect(coverageOf("10001", "US", { uncoveredZipPrefixes: ["100"] }).covered).toBe(false);
    expect(coverageOf("99501", "US", { uncoveredZipPrefixes: [] }).covered).toBe(true);
  });
});

describe("isRural", () => {
  it("marks Montana, Wyoming and North Dakota ZIPs as rural, cities elsewhere not", () => {
    for (const zip of ["59801", "82001", "58102", "57701", "69301"])
      expect(isRural(zip, DEFAULT_RULES)).toBe(true);
    for (const zip of ["10001", "60601", "94103"]) expect(isRural(zip, DEFAULT_RULES)).toBe(false);
  });
});
