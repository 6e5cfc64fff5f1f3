import type { AddressSuggestion } from "@mailpiece/ports";
import { beforeAll, describe, expect, it } from "vitest";
import type { AddressIndex } from "./address-index.ts";
import { buildAddressIndex } from "./builder.ts";
import { createEmbeddedAddressProvider } from "./provider.ts";
import type { AddressRow } from "./row.ts";
import { generateSyntheticAddresses } from "./synthetic.fixture.ts";

const COUNT = 200_000;
let rows: AddressRow[];
let index: AddressIndex;
let provider: ReturnType<typeof createEmbeddedAddressProvider>;

// Building an index of 200 000 rows takes seconds on an idle machine and much longer on a busy one.
beforeAll(() => {
  rows = generateSyntheticAddresses(COUNT, 20_26);
  index = buildAddressIndex(rows, { country: "US" });
  provider = createEmbeddedAddressProvider(index);
}, 300_000);

/** Every 997th row: spread over the cities, streets and buildings. */
const sampled = () => rows.filter((_, i) => i % 997 === 0);
const search = (query: string, more: { container?: string; limit?: number } = {}) =>
  provider.search({ query, country_code: "US", limit: 50, ...more });
const swapped = (word: string) => `${word.slice(0, 2)}${word[3]}${word[2]}${word.slice(4)}`;

/** The Address of a row: found directly, or inside the building container the search answers for it. */
async function addressOf(
  row: AddressRow,
  answer: AddressSuggestion[],
): Promise<AddressSuggestion | undefined> {
  const text = (s: AddressSuggestion) => s.text.startsWith(`${row.number} ${row.street}, `);
  const line2 = row.unit ? `, ${row.unit}, ` : undefined;
  const direct = answer.find((s) => s.type === "Address" && text(s) && (!line2 || s.text.includes(line2)));
  if (direct || !line2) return direct;
  const building = answer.find((s) => s.type === "Container" && text(s));
  if (!building) return undefined;
  const inside = await search(`${row.number} ${row.street}`, { container: building.id });
  return inside.find((s) => s.text.includes(line2));
}

describe("the embedded index on 200 000 synthetic addresses", () => {
  it("keeps every generated row", () => {
    expect(rows).toHaveLength(COUNT);
    expect(index.size).toBe(COUNT);
  });

  it("finds each sampled address by number, street and city, and retrieves it", async () => {
    for (const row of sampled()) {
      const query = `${row.number} ${row.street} ${row.city}`;
      const found = await addressOf(row, await search(query));
      expect(found, query).toBeDefined();
      const address = await provider.retrieve(found!.id);
      expect(address).toMatchObject({
        line1: `${row.number} ${row.street}`,
        city: row.city,
        state: row.region,
        zip: row.postcode,
        countryCode: "US",
      });
      expect(address?.line2).toBe(row.unit);
    }
  });

  it("finds each sampled street by a typo in its name, and by the prefix of a house number", async () => {
    for (const row of sampled()) {
      const name = row.street.split(" ").find((w) => w.length >= 5 && !/\d/.test(w));
      if (!name) continue;
      const typo = row.street.replace(name, swapped(name));
      const [first] = await search(`${typo} ${row.city}`);
      expect(first?.text, typo).toBe(`${row.street}, ${row.city}, ${row.region}`);
      const partial = `${row.city} ${row.street} ${row.number.slice(0, -1) || row.number}`;
      const answer = await search(partial);
      expect(answer.length, partial).toBeGreaterThan(0);
      for (const s of answer) expect(s.text, partial).toContain(row.street);
    }
  });

  it("answers the same as a plain scan: every address of a street and city, no other", async () => {
    for (const row of sampled().slice(0, 40)) {
      const [street] = await search(`${row.street} ${row.city}`);
      expect(street?.type).toBe("Container");
      const expected = rows.filter((r) => r.street === row.street && r.city === row.city);
      expect(street?.description).toBe(`${expected.length} addresses`);
      const numbers = new Set(expected.map((r) => r.number));
      const inside = await search(`${row.street} ${row.city}`, { container: street!.id });
      expect(inside).toHaveLength(Math.min(50, numbers.size));
      for (const s of inside) expect(numbers.has(s.text.split(" ")[0]!)).toBe(true);
    }
  });
});
