import { describe, expect, it } from "vitest";
import { checkManualAddress } from "./manual-address.ts";

const strict = { requireCountryCode: false, lenientCountry: false };
const codes = (input: Parameters<typeof checkManualAddress>[0], rules = strict) =>
  checkManualAddress(input, rules).problems.map((p) => `${p.field}:${p.code}`);
const US = { line1: "1 Main St", city: "Springfield", state: "IL", zip: "62701" };

describe("checkManualAddress", () => {
  it("returns the trimmed address with the US default", () => {
    expect(checkManualAddress({ ...US, line1: " 1 Main St " }, strict)).toEqual({
      address: { ...US, countryCode: "US" },
      problems: [],
    });
  });
  it("counts length in characters, not UTF-16 units", () => {
    expect(codes({ ...US, line1: "😀".repeat(256) })).toEqual([]);
    expect(codes({ ...US, line1: "😀".repeat(257) })).toEqual(["line1:too_long"]);
  });
  it("strict countries are exact alpha-2 codes; lenient ones also alpha-3 in any case", () => {
    expect(codes({ ...US, countryCode: "usa" })).toEqual(["countryCode:invalid_enum"]);
    expect(
      checkManualAddress({ ...US, countryCode: "usa" }, { ...strict, lenientCountry: true }).address
        ?.countryCode,
    ).toBe("US");
  });
  it("an address without country under requireCountryCode is not checked against US rules", () => {
    expect(codes({ line1: "1 St", city: "X", zip: "abc" }, { ...strict, requireCountryCode: true })).toEqual([
      "countryCode:country_code_required",
    ]);
  });
  it("uses the given labels in messages", () => {
    const { problems } = checkManualAddress(
      { line1: "1 St", city: "X" },
      { ...strict, labels: { zip: "Postcode" } },
    );
    expect(problems[0]?.message).toBe("Postcode is required.");
  });
  it("an overlong state is too_long, not state_required", () => {
    expect(codes({ ...US, state: "s".repeat(61) })).toEqual(["state:too_long"]);
  });
});
