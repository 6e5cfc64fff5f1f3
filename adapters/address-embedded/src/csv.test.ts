import { Readable } from "node:stream";
import { describe, expect, it } from "vitest";
import { loadOpenAddressesCsv, readOpenAddressesCsv } from "./csv.ts";
import { AddressIndexError } from "./errors.ts";
import { createEmbeddedAddressProvider } from "./provider.ts";

const HEADER = "LON,LAT,NUMBER,STREET,UNIT,CITY,DISTRICT,REGION,POSTCODE,ID,HASH";

async function texts(csv: string, query: string): Promise<string[]> {
  const provider = createEmbeddedAddressProvider(readOpenAddressesCsv(csv, { country: "US" }).index);
  return (await provider.search({ query, country_code: "US", limit: 50 })).map((s) => s.text);
}

describe("readOpenAddressesCsv", () => {
  it("reads quoted fields with commas, quotes and line breaks", async () => {
    const csv = [
      HEADER,
      `-73.9,40.7,12,"Elm Street, North",,"New York",,NY,10001,,aaa1`,
      `-73.9,40.7,14,"The ""Long"" Road",,New York,,NY,10001,,aaa2`,
      `-73.9,40.7,16,"Birch\nLane",,New York,,NY,10001,,aaa3`,
    ].join("\n");
    const { stats } = readOpenAddressesCsv(csv, { country: "US" });
    expect(stats.records).toBe(3);
    expect(await texts(csv, "12 elm north")).toEqual(["12 Elm Street, North, New York, NY 10001"]);
    expect(await texts(csv, "14 long road")).toEqual([`14 The "Long" Road, New York, NY 10001`]);
    expect(await texts(csv, "16 birch lane")).toEqual(["16 Birch Lane, New York, NY 10001"]);
  });

  it("takes column positions from the header, in any order and case, ignoring extra columns", async () => {
    const csv = ["postcode,Street,EXTRA,number,city,region", "10001,Elm Street,x,12,New York,NY"].join(
      "\r\n",
    );
    expect(await texts(csv, "12 elm")).toEqual(["12 Elm Street, New York, NY 10001"]);
  });

  it("ignores a byte order mark", async () => {
    expect(await texts(`\uFEFF${HEADER}\n0,0,12,Elm Street,,New York,,NY,10001,,h1`, "12 elm")).toHaveLength(
      1,
    );
  });

  it("skips rows without a number, street, city, postcode or (in the US) region, and repeated addresses", () => {
    const csv = [
      HEADER,
      "0,0,,Elm Street,,New York,,NY,10001,,h1",
      "0,0,12,,,New York,,NY,10001,,h2",
      "0,0,12,Elm Street,,,,NY,10001,,h3",
      "0,0,12,Elm Street,,New York,,NY,,,h4",
      "0,0,12,Elm Street,,New York,,,10001,,h5",
      "0,0,12,Elm Street,,New York,,NY,10001,,h6",
      "0,0,12,ELM ST,,NEW YORK,,NY,10001,,h7",
      "0,0,12,Elm Street",
      "",
    ].join("\n");
    expect(readOpenAddressesCsv(csv, { country: "US" }).stats).toEqual({
      records: 1,
      incomplete: 6,
      duplicates: 1,
    });
  });

  it("reads rows whose optional columns are missing or cut short", async () => {
    const csv = ["NUMBER,STREET,CITY,REGION,POSTCODE,UNIT", "12,Elm Street,New York,NY,10001"].join("\n");
    expect(await texts(csv, "12 elm")).toEqual(["12 Elm Street, New York, NY 10001"]);
  });

  it("refuses a file without a needed column, or without a header", () => {
    const refused = (csv: string) => {
      try {
        readOpenAddressesCsv(csv, { country: "US" });
      } catch (error) {
        return AddressIndexError.isInstance(error) ? error.code : error;
      }
      return "read";
    };
    expect(refused("NUMBER,STREET,CITY\n1,Elm,X")).toBe("missing_column");
    expect(refused("")).toBe("missing_column");
  });

  it("keys an address by its HASH, else its ID, else by the address itself, the same on every load", async () => {
    const csv = [
      HEADER,
      "0,0,12,Elm Street,,New York,,NY,10001,id-12,hash12",
      "0,0,14,Elm Street,,New York,,NY,10001,id-14,",
      "0,0,16,Elm Street,,New York,,NY,10001,,",
      "0,0,18,Elm Street,,New York,,NY,10001,,not a key!",
    ].join("\n");
    const ids = async () => {
      const provider = createEmbeddedAddressProvider(readOpenAddressesCsv(csv, { country: "US" }).index);
      const found = await provider.search({ query: "elm street", country_code: "US" });
      const inside = await provider.search({
        query: "elm street",
        country_code: "US",
        container: found[0]!.id,
      });
      return inside.map((s) => s.id);
    };
    const first = await ids();
    expect(first.slice(0, 2)).toEqual(["US|hash12", "US|id-14"]);
    expect(first[2]).toMatch(/^US\|[0-9a-f]{14}$/);
    expect(first[3]).toMatch(/^US\|[0-9a-f]{14}$/);
    expect(await ids()).toEqual(first);
  });
});

describe("loadOpenAddressesCsv", () => {
  it("reads a stream of bytes split anywhere, also inside a character", async () => {
    const text = `${HEADER}\n0,0,3000,Cañada Road,,Woodside,,CA,94062,,h1\n`;
    const bytes = Buffer.from(text);
    const chunks = Array.from({ length: bytes.length }, (_, i) => bytes.subarray(i, i + 1));
    const { index, stats } = await loadOpenAddressesCsv(Readable.from(chunks), { country: "US" });
    expect(stats.records).toBe(1);
    expect(index.addressText(0)).toBe("3000 Cañada Road, Woodside, CA 94062");
  });

  it("rejects a stream without the needed columns, and a failing stream", async () => {
    await expect(
      loadOpenAddressesCsv(Readable.from(["A,B\n1,2\n"]), { country: "US" }),
    ).rejects.toMatchObject({
      code: "missing_column",
    });
    const failing = new Readable({
      read() {
        this.destroy(new Error("disk gone"));
      },
    });
    await expect(loadOpenAddressesCsv(failing, { country: "US" })).rejects.toThrow("disk gone");
  });
});
