import { describe, expect, it } from "vitest";
import {
  formatAddressBlock,
  formatAddressLines,
  isInternationalPiece,
  pieceAddressLines,
} from "./address-lines.ts";
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

  it("a US party names its country only on an international piece", () => {
    const us = manual({
      line1: "1 Main St",
      city: "Springfield",
      state: "IL",
      zip: "62701",
      countryCode: "US",
    });
    expect(formatAddressLines(us)).toEqual(["Grace Hopper", "1 Main St", "Springfield, IL 62701"]);
    expect(formatAddressLines(us, { international: true }).at(-1)).toBe("UNITED STATES");
    expect(formatAddressLines(us, { international: false })).toHaveLength(3);
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

const byId = (id: string, text: string, name = "Grace Hopper"): Party => ({
  name,
  country: id.slice(0, 2),
  address: { type: "Address", id, text },
});

describe("the country line of international pieces", () => {
  it("Address mode prints the country of the id, in capitals, as the last line", () => {
    expect(formatAddressLines(byId("GB|1", "10 Downing St, London SW1A 2AA"))).toEqual([
      "Grace Hopper",
      "10 Downing St",
      "London SW1A 2AA",
      "UNITED KINGDOM",
    ]);
  });

  it("does not print the country twice when the text ends with its name or code", () => {
    for (const ending of ["United Kingdom", "UK", "gb", "GBR", "Great Britain", "U.K."]) {
      expect(formatAddressLines(byId("GB|1", `10 Downing St, London SW1A 2AA, ${ending}`))).toEqual([
        "Grace Hopper",
        "10 Downing St",
        "London SW1A 2AA",
        "UNITED KINGDOM",
      ]);
    }
    expect(
      formatAddressLines(byId("DE|1", "Unter den Linden 77\n10117 Berlin Deutschland")).slice(1),
    ).toEqual(["Unter den Linden 77", "10117 Berlin", "GERMANY"]);
  });

  it("keeps a town that bears the country's name and still adds the country line", () => {
    expect(formatAddressLines(byId("LU|1", "2 Rue du Fort, L-1111 Luxembourg")).slice(1)).toEqual([
      "2 Rue du Fort",
      "L-1111 Luxembourg",
      "LUXEMBOURG",
    ]);
  });

  it("a country word inside the address is not taken for the country", () => {
    expect(formatAddressLines(byId("FR|1", "1 Rue de France, 75001 Paris")).slice(1)).toEqual([
      "1 Rue de France",
      "75001 Paris",
      "FRANCE",
    ]);
  });

  it("both parties of a piece that crosses a border end with their country, in both modes", () => {
    const sender = manual({
      line1: "350 Fifth Avenue",
      city: "New York",
      state: "NY",
      zip: "10118",
      countryCode: "US",
    });
    const recipient = byId("DE|1", "Unter den Linden 77, 10117 Berlin");
    expect(isInternationalPiece(sender, recipient)).toBe(true);
    const lines = pieceAddressLines(sender, recipient);
    expect(lines.sender.at(-1)).toBe("UNITED STATES");
    expect(lines.recipient.at(-1)).toBe("GERMANY");
    const fromAbroad = pieceAddressLines(recipient, sender);
    expect(fromAbroad.sender.at(-1)).toBe("GERMANY");
    expect(fromAbroad.recipient.at(-1)).toBe("UNITED STATES");
  });

  it("a domestic piece prints no country line", () => {
    const a = byId("US|1", "1 Main St, Springfield IL 62701");
    const b = manual({
      line1: "1 Main St",
      city: "Springfield",
      state: "IL",
      zip: "62701",
      countryCode: "US",
    });
    expect(isInternationalPiece(a, b)).toBe(false);
    expect(pieceAddressLines(a, b)).toEqual({
      sender: ["Grace Hopper", "1 Main St", "Springfield IL 62701"],
      recipient: ["Grace Hopper", "1 Main St", "Springfield, IL 62701"],
    });
    // The text of a domestic address is printed as written, country or not.
    expect(pieceAddressLines(byId("US|1", "1 Main St, USA"), b).sender).toEqual([
      "Grace Hopper",
      "1 Main St",
      "USA",
    ]);
  });
});

describe("formatAddressBlock", () => {
  it("names the request field of every line", () => {
    const party = manual({ line1: "Unter den Linden 77", city: "Berlin", zip: "10117", countryCode: "DE" });
    expect(formatAddressBlock(party, "sender")).toEqual([
      { text: "Grace Hopper", path: "sender_name" },
      { text: "Unter den Linden 77", path: "sender_address_manual.line1" },
      { text: "10117 Berlin", path: "sender_address_manual.city" },
      { text: "GERMANY", path: "sender_address_manual.countryCode" },
    ]);
    expect(formatAddressBlock(byId("GB|1", "10 Downing St"), "recipient")).toEqual([
      { text: "Grace Hopper", path: "recipient_name" },
      { text: "10 Downing St", path: "recipient_address_text" },
      { text: "UNITED KINGDOM", path: "recipient_address_id" },
    ]);
  });
});

describe("Address mode resolved through the address provider", () => {
  const resolved = (
    id: string,
    text: string,
    address: NonNullable<Extract<Party["address"], { type: "Address" }>["resolved"]>,
  ): Party => ({
    name: "Grace Hopper",
    country: id.slice(0, 2),
    address: { type: "Address", id, text, resolved: address },
  });

  it("prints the structured address exactly as a manual address of the same country, not the text", () => {
    const structured = {
      line1: "350 Fifth Avenue",
      line2: "Suite 3100",
      city: "New York",
      state: "NY",
      zip: "10118",
      countryCode: "US",
    };
    const party = resolved("US|f00bef0ac591a24c", "anything the client typed, Nowhere", structured);
    expect(formatAddressLines(party)).toEqual(formatAddressLines(manual(structured)));
    expect(formatAddressLines(party)).toEqual([
      "Grace Hopper",
      "350 Fifth Avenue",
      "Suite 3100",
      "New York, NY 10118",
    ]);
  });

  it("keeps each country's line formats and ends an international piece with the country", () => {
    const ottawa = {
      line1: "111 Wellington St",
      city: "Ottawa",
      state: "ON",
      zip: "K1A 0A9",
      countryCode: "CA",
    };
    expect(formatAddressLines(resolved("CA|1", "111 Wellington St, Ottawa ON, Canada", ottawa))).toEqual([
      "Grace Hopper",
      "111 Wellington St",
      "Ottawa, ON K1A 0A9",
      "CANADA",
    ]);
    const london = { line1: "10 Downing St", city: "London", zip: "SW1A 2AA", countryCode: "GB" };
    expect(formatAddressLines(resolved("GB|1", "10 Downing St", london))).toEqual(
      formatAddressLines(manual(london)),
    );
    const berlin = { line1: "Unter den Linden 77", city: "Berlin", zip: "10117", countryCode: "DE" };
    expect(formatAddressLines(resolved("DE|1", "x", berlin))).toEqual([
      "Grace Hopper",
      "Unter den Linden 77",
      "10117 Berlin",
      "GERMANY",
    ]);
    const us = { line1: "1 Main St", city: "Springfield", state: "IL", zip: "62701", countryCode: "US" };
    const domestic = manual({
      line1: "2 Oak Ave",
      city: "Austin",
      state: "TX",
      zip: "78701",
      countryCode: "US",
    });
    expect(pieceAddressLines(resolved("US|1", "1 Main St, USA", us), domestic).sender).toEqual([
      "Grace Hopper",
      "1 Main St",
      "Springfield, IL 62701",
    ]);
  });

  it("names the id as the request field of every address line", () => {
    const ottawa = {
      line1: "111 Wellington St",
      city: "Ottawa",
      state: "ON",
      zip: "K1A 0A9",
      countryCode: "CA",
    };
    expect(formatAddressBlock(resolved("CA|1", "111 Wellington St", ottawa), "recipient")).toEqual([
      { text: "Grace Hopper", path: "recipient_name" },
      { text: "111 Wellington St", path: "recipient_address_id" },
      { text: "Ottawa, ON K1A 0A9", path: "recipient_address_id" },
      { text: "CANADA", path: "recipient_address_id" },
    ]);
  });
});
