import { describe, expect, it } from "vitest";
import { checkAddress, formatAddressLine } from "./address.ts";
import { keys } from "./test-support.ts";

const check = (raw: unknown) => checkAddress(raw, "form.fields.a");

describe("checkAddress", () => {
  it("accepts a US address, defaulting the country and trimming", () => {
    expect(check({ line1: " 1 Main St ", city: "Springfield", state: "IL", zip: "62701-1234" })).toEqual({
      status: "valid",
      value: { line1: "1 Main St", city: "Springfield", state: "IL", zip: "62701-1234", countryCode: "US" },
    });
  });

  it("canonicalises a Canadian postal code and needs a province", () => {
    const ok = check({ line1: "1 Rue", city: "Ottawa", state: "ON", zip: "k1a0a9", countryCode: "CA" });
    expect(ok.status === "valid" && ok.value.zip).toBe("K1A 0A9");
    const noState = check({ line1: "1 Rue", city: "Ottawa", zip: "K1A 0A9", countryCode: "CA" });
    expect(noState.status === "invalid" && keys(noState.issues)).toEqual([
      "form.fields.a.state state_required",
    ]);
  });

  it("takes other allowed countries without a state and with any postal code", () => {
    expect(check({ line1: "Hauptstr. 5", city: "Berlin", zip: "10115", countryCode: "DE" }).status).toBe(
      "valid",
    );
  });

  it.each([
    [{ city: "X", state: "IL", zip: "62701" }, "form.fields.a.line1 required"],
    [{ line1: "1", state: "IL", zip: "62701" }, "form.fields.a.city required"],
    [{ line1: "1", city: "X", state: "IL" }, "form.fields.a.zip required"],
    [{ line1: "x".repeat(257), city: "X", state: "IL", zip: "62701" }, "form.fields.a.line1 too_long"],
    [
      { line1: "1", line2: "x".repeat(257), city: "X", state: "IL", zip: "62701" },
      "form.fields.a.line2 too_long",
    ],
    [{ line1: "1", city: "x".repeat(129), state: "IL", zip: "62701" }, "form.fields.a.city too_long"],
    [{ line1: "1", city: "X", state: "x".repeat(61), zip: "62701" }, "form.fields.a.state too_long"],
    [{ line1: "1", city: "X", zip: "1".repeat(21), countryCode: "DE" }, "form.fields.a.zip too_long"],
    [{ line1: "1", city: "X", state: "IL", zip: "ABCDE" }, "form.fields.a.zip invalid_postal_code"],
    [{ line1: "1", city: "X", zip: "1", countryCode: "us" }, "form.fields.a.countryCode invalid_country"],
    [{ line1: 1, city: "X", state: "IL", zip: "62701" }, "form.fields.a.line1 invalid_type"],
  ])("%j: %s", (raw, issue) => {
    const result = check(raw);
    expect(result.status === "invalid" && keys(result.issues)).toEqual([issue]);
  });

  it("an address with every part blank is not an answer; a string is not an address", () => {
    expect(check({}).status).toBe("absent");
    expect(check({ line1: " ", zip: "" }).status).toBe("absent");
    const text = check("1 Main St, Springfield");
    expect(text.status === "invalid" && keys(text.issues)).toEqual(["form.fields.a invalid_type"]);
  });

  it("prints on one line, naming a foreign country", () => {
    expect(
      formatAddressLine({
        line1: "1 Main",
        line2: "Apt 2",
        city: "Springfield",
        state: "IL",
        zip: "62701",
        countryCode: "US",
      }),
    ).toBe("1 Main, Apt 2, Springfield, IL 62701");
    expect(formatAddressLine({ line1: "Hauptstr. 5", city: "Berlin", zip: "10115", countryCode: "DE" })).toBe(
      "Hauptstr. 5, Berlin, 10115, Germany",
    );
  });
});
