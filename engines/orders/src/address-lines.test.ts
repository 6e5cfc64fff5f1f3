import { describe, expect, it } from "vitest";
import { formatAddressLines } from "./address-lines.ts";
import type { Party } from "./party.ts";

const manual = (
  address: Omit<Extract<Party["address"], { type: "Manual" }>, "type">,
  name = "Grace Hopper",
): Party => ({
  name,
  country: address.countryCode,
  address: { type: "Manual", ...address },
});

describe("formatAddressLines", () => {
  it("US: name, lines, City, ST ZIP", () => {
    expect(
      formatAddressLines(
        manual({
          line1: "1600 Pennsylvania Ave NW",
          line2: "Suite 1",
          city: "Washington",
          state: "DC",
          zip: "20500",
          countryCode: "US",
        }),
      ),
    ).toEqual(["Grace Hopper", "1600 Pennsylvania Ave NW", "Suite 1", "Washington, DC 20500"]);
  });

  it("Canada from the US: City, PR A1A 1A1 and the country", () => {
    expect(
      formatAddressLines(
        manual({
          line1: "150 Wellington St",
          city: "Ottawa",
          state: "ON",
          zip: "K1A 0A9",
          countryCode: "CA",
        }),
      ),
    ).toEqual(["Grace Hopper", "150 Wellington St", "Ottawa, ON K1A 0A9", "CANADA"]);
  });

  it("Europe: ZIP City, then the country", () => {
    expect(
      formatAddressLines(
        manual({ line1: "Unter den Linden 77", city: "Berlin", zip: "10117", countryCode: "DE" }),
      ),
    ).toEqual(["Grace Hopper", "Unter den Linden 77", "10117 Berlin", "GERMANY"]);
    expect(
      formatAddressLines(
        manual({ line1: "Gran Via 1", city: "Madrid", state: "Madrid", zip: "28013", countryCode: "ES" }),
      ),
    ).toEqual(["Grace Hopper", "Gran Via 1", "28013 Madrid", "Madrid", "SPAIN"]);
  });

  it("United Kingdom: town and postcode on their own lines", () => {
    expect(
      formatAddressLines(
        manual({ line1: "10 Downing St", city: "London", zip: "SW1A 2AA", countryCode: "GB" }),
      ),
    ).toEqual(["Grace Hopper", "10 Downing St", "London", "SW1A 2AA", "UNITED KINGDOM"]);
  });

  it("India: City PIN, then the state", () => {
    expect(
      formatAddressLines(
        manual({
          line1: "1 MG Road",
          city: "Bengaluru",
          state: "Karnataka",
          zip: "560001",
          countryCode: "IN",
        }),
      ),
    ).toEqual(["Grace Hopper", "1 MG Road", "Bengaluru 560001", "Karnataka", "INDIA"]);
  });

  it("names the country only when it differs from the origin", () => {
    const de = manual({ line1: "Unter den Linden 77", city: "Berlin", zip: "10117", countryCode: "DE" });
    expect(formatAddressLines(de, { originCountry: "DE" })).toEqual([
      "Grace Hopper",
      "Unter den Linden 77",
      "10117 Berlin",
    ]);
    const us = manual({
      line1: "1 Main St",
      city: "Springfield",
      state: "IL",
      zip: "62701",
      countryCode: "US",
    });
    expect(formatAddressLines(us, { originCountry: "DE" }).at(-1)).toBe("UNITED STATES");
  });

  it("Address mode: the name, then the address text split on commas and line breaks", () => {
    const party: Party = {
      name: "Grace Hopper",
      country: "US",
      address: { type: "Address", id: "US|1", text: "1600 Pennsylvania Ave NW,\nWashington DC 20500, , USA" },
    };
    expect(formatAddressLines(party)).toEqual([
      "Grace Hopper",
      "1600 Pennsylvania Ave NW",
      "Washington DC 20500",
      "USA",
    ]);
  });
});
