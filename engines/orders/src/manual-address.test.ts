import { describe, expect, it } from "vitest";
import { checkManualAddress } from "./manual-address.ts";

const strict = { lenientCountry: false };
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
    // U+1D400 takes two UTF-16 units.
    expect(codes({ ...US, line1: "𝐀".repeat(256) })).toEqual([]);
    expect(codes({ ...US, line1: "𝐀".repeat(257) })).toEqual(["line1:too_long"]);
  });
  it("strict countries are exact alpha-2 codes; lenient ones also alpha-3 in any case", () => {
    expect(codes({ ...US, countryCode: "usa" })).toEqual(["countryCode:invalid_enum"]);
    expect(
      checkManualAddress({ ...US, countryCode: "usa" }, { ...strict, lenientCountry: true }).address
        ?.countryCode,
    ).toBe("US");
  });
  it("an address without a country is a US address and meets the US rules", () => {
    expect(
      checkManualAddress({ line1: "1 St", city: "X", state: "IL", zip: "62701" }, strict).address,
    ).toMatchObject({
      countryCode: "US",
    });
    const { problems } = checkManualAddress({ line1: "1 St", city: "X", zip: "abc" }, strict);
    expect(problems.map((p) => `${p.field}:${p.code}`)).toEqual([
      "state:state_required",
      "zip:invalid_postal_code",
    ]);
    expect(problems[1]?.message).toContain("add countryCode for an address abroad");
  });
  it("an address without a country that names a Canadian province or postal code must state CA", () => {
    expect(codes({ line1: "1 St", city: "Ottawa", state: "Ontario", zip: "K1A 0A9" })).toEqual([
      "countryCode:country_code_required",
    ]);
    expect(codes({ line1: "1 St", city: "Ottawa", zip: "K1A 0A9" })).toEqual([
      "countryCode:country_code_required",
    ]);
    expect(codes({ line1: "1 St", city: "Ottawa", state: "ON", zip: "K1A 0A9", countryCode: "CA" })).toEqual(
      [],
    );
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

describe("states and provinces", () => {
  it("accepts USPS codes and full names in any case, normalised to the code", () => {
    for (const [state, code] of [
      ["IL", "IL"],
      ["il", "IL"],
      ["Illinois", "IL"],
      ["  new   york ", "NY"],
      ["District of Columbia", "DC"],
      ["D.C.", "DC"],
      ["PR", "PR"],
      ["Virgin Islands", "VI"],
      ["AE", "AE"],
      ["armed forces pacific", "AP"],
    ]) {
      expect(checkManualAddress({ ...US, state }, strict).address?.state, state).toBe(code);
    }
  });
  it("accepts Canada Post codes and names, accents ignored", () => {
    const ca = { line1: "1 St", city: "X", zip: "K1A 0A9", countryCode: "CA" };
    for (const [state, code] of [
      ["ON", "ON"],
      ["british columbia", "BC"],
      ["Québec", "QC"],
      ["QUEBEC", "QC"],
      ["Yukon", "YT"],
    ]) {
      expect(checkManualAddress({ ...ca, state }, strict).address?.state, state).toBe(code);
    }
  });
  it("refuses other values with invalid_state", () => {
    expect(codes({ ...US, state: "ZZ" })).toEqual(["state:invalid_state"]);
    expect(codes({ ...US, state: "Ill" })).toEqual(["state:invalid_state"]);
    expect(codes({ ...US, state: "ON", countryCode: "US" })).toEqual(["state:invalid_state"]);
    expect(codes({ line1: "1 St", city: "X", zip: "K1A 0A9", state: "IL", countryCode: "CA" })).toEqual([
      "state:invalid_state",
    ]);
    const { problems } = checkManualAddress({ ...US, state: "ON", countryCode: "US" }, strict);
    expect(problems[0]?.message).toContain("is a Canadian province; is the country CA?");
  });
  it("leaves the state of other countries as written", () => {
    const de = { line1: "1 St", city: "Berlin", zip: "10117", countryCode: "DE", state: "ZZ" };
    expect(checkManualAddress(de, strict).address?.state).toBe("ZZ");
  });
});

describe("printable characters", () => {
  it("refuses emoji and control characters in any field, naming the character", () => {
    expect(codes({ ...US, city: "Springfield 🌻" })).toEqual(["city:character_unsupported"]);
    expect(codes({ ...US, line2: "Apt\u00002" })).toEqual(["line2:character_unsupported"]);
    const { problems } = checkManualAddress({ ...US, line1: "1 Main St 🏠" }, strict);
    expect(problems[0]?.message).toContain("U+1F3E0");
  });
  it("accepts accents, other scripts and line breaks", () => {
    expect(codes({ ...US, line1: "Straße 1\nHof", city: "Zürich Ø Łódź" })).toEqual([]);
  });
});
