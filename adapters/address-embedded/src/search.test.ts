import type { AddressProvider, AddressSuggestion } from "@mailpiece/ports";
import { beforeAll, describe, expect, it } from "vitest";
import { createEmbeddedAddressProvider } from "./provider.ts";
import { loadSample } from "./sample.ts";

let provider: AddressProvider;
beforeAll(async () => {
  provider = createEmbeddedAddressProvider(await loadSample());
});

const search = (query: string, more: { container?: string; limit?: number } = {}) =>
  provider.search({ query, country_code: "US", ...more });
const texts = (answer: AddressSuggestion[]) => answer.map((s) => s.text);

describe("embedded search on the sample", () => {
  it("matches the last token by prefix: 350 fif finds 350 Fifth Avenue", async () => {
    const [first] = await search("350 fif");
    expect(first).toMatchObject({ text: "350 Fifth Avenue, New York, NY 10118", type: "Container" });
    expect(texts(await search("1437 bann"))).toEqual(["1437 Bannock Street, Denver, CO 80202"]);
  });

  it("forgives one typo in a token of five characters or more, ranked after exact matches", async () => {
    expect(texts(await search("Fitfh Avenue New York"))).toEqual(["Fifth Avenue, New York, NY"]);
    expect(texts(await search("1437 Banock"))).toEqual(["1437 Bannock Street, Denver, CO 80202"]);
    expect(await search("1437 Bnck")).toEqual([]);
  });

  it("treats street abbreviations and directions as their full words", async () => {
    const full = await search("North Michigan Avenue Chicago");
    expect(texts(full)).toEqual(["N Michigan Ave, Chicago, IL"]);
    expect(await search("n michigan ave chicago")).toEqual(full);
    expect(texts(await search("1 market st san francisco"))).toEqual([
      "1 Market Street, San Francisco, CA 94105",
    ]);
  });

  it("ignores case, accents and spaces", async () => {
    const answer = await search("3000 canada road");
    expect(texts(answer)).toEqual(["3000 Cañada Road, Woodside, CA 94062"]);
    expect(await search("  3000   CAÑADA ROAD ")).toEqual(answer);
  });

  it("answers a street of several numbers as a Container and lists its addresses in number order", async () => {
    const [street] = await search("fifth avenue new york");
    expect(street).toMatchObject({ type: "Container", description: "78 addresses" });
    expect(street?.id).toMatch(/^US\|c:[0-9a-f]{14}$/);
    const inside = await search("fifth avenue new york", { container: street!.id, limit: 50 });
    expect(inside).toHaveLength(50);
    expect(texts(inside).slice(0, 3)).toEqual([
      "2 Fifth Avenue, New York, NY 10011",
      "8 Fifth Avenue, New York, NY 10011",
      "14 Fifth Avenue, New York, NY 10011",
    ]);
    const [building] = await search("fifth avenue 350", { container: street!.id });
    expect(building).toMatchObject({ type: "Container", text: "350 Fifth Avenue, New York, NY 10118" });
    expect(building).toMatchObject({ description: "9 addresses" });
    const filtered = await search("fifth avenue 41", { container: street!.id });
    expect(texts(filtered)).toEqual([
      "410 Fifth Avenue, New York, NY 10018",
      "416 Fifth Avenue, New York, NY 10018",
    ]);
  });

  it("answers a building with units as a Container of its units, and a unit named in the query as an Address", async () => {
    const [building] = await search("245 E 93rd St");
    expect(building).toMatchObject({ type: "Container", text: "245 E 93rd St, New York, NY 10128" });
    const units = await search("245 E 93rd St", { container: building!.id, limit: 50 });
    expect(units).toHaveLength(17);
    expect(units.every((s) => s.type === "Address")).toBe(true);
    expect(texts(units).slice(0, 3)).toEqual([
      "245 E 93rd St, New York, NY 10128",
      "245 E 93rd St, Apt 1A, New York, NY 10128",
      "245 E 93rd St, Apt 1B, New York, NY 10128",
    ]);
    expect(texts(await search("245 e 93rd apt 4b"))).toEqual(["245 E 93rd St, Apt 4B, New York, NY 10128"]);
    const [suite] = await search("350 fifth suite 3100");
    expect(await provider.retrieve(suite!.id)).toMatchObject({
      line1: "350 Fifth Avenue",
      line2: "Suite 3100",
      city: "New York",
      state: "NY",
      zip: "10118",
      countryCode: "US",
    });
  });

  it("ranks exact matches before prefix matches, and an exactly matching house number first", async () => {
    const answer = texts(await search("Pine Street 14"));
    expect(answer[0]).toBe("1400 Pine Street, Seattle, WA 98101");
    expect(answer).toContain("1475 Pine Street, Seattle, WA 98101");
    const exact = texts(await search("1 Market Street"));
    expect(exact[0]).toBe("1 Market Street, San Francisco, CA 94105");
  });

  it("answers nothing for another country, and refuses a container of another country", async () => {
    expect(await provider.search({ query: "fifth avenue", country_code: "CA" })).toEqual([]);
    const [street] = await search("fifth avenue");
    await expect(
      provider.search({ query: "fifth avenue", country_code: "CA", container: street!.id }),
    ).rejects.toMatchObject({ code: "unknown_container", field: "container" });
  });

  it("refuses a limit below 1 or not whole, and answers at most 50 for a larger one", async () => {
    for (const limit of [0, -1, 1.5, Number.NaN]) {
      await expect(search("fifth avenue", { limit })).rejects.toMatchObject({
        code: "invalid_query",
        field: "limit",
      });
    }
    const [street] = await search("fifth avenue");
    expect(await search("fifth avenue", { container: street!.id, limit: 500 })).toHaveLength(50);
  });
});
