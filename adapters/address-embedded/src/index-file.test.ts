import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runAddressesCli } from "./cli.ts";
import { deserializeIndex, INDEX_FILE_VERSION, openIndexFile, serializeIndex } from "./index-file.ts";
import { createEmbeddedAddressProvider } from "./provider.ts";
import { loadSample, SAMPLE_CSV_URL } from "./sample.ts";

const dirs: string[] = [];
afterAll(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});
async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "mailpiece-addresses-"));
  dirs.push(dir);
  return dir;
}

/** The index of the shipped US sample. */
async function usSample() {
  const index = (await loadSample()).find((one) => one.country === "US");
  if (!index) throw new Error("the shipped samples hold a US index");
  return index;
}

const QUERIES = [
  "350 fif",
  "fifth avenue new york",
  "245 e 93rd st apt 4b",
  "Fitfh Avenue",
  "3000 canada road",
];

describe("the index file", () => {
  it("answers every search and retrieve as the index it was written from", async () => {
    const index = await usSample();
    const again = deserializeIndex(serializeIndex(index));
    const [a, b] = [createEmbeddedAddressProvider(index), createEmbeddedAddressProvider(again)];
    for (const query of QUERIES) {
      const answer = await a.search({ query, country_code: "US" });
      expect(answer.length).toBeGreaterThan(0);
      expect(await b.search({ query, country_code: "US" })).toEqual(answer);
      for (const s of answer) expect(await b.retrieve(s.id)).toEqual(await a.retrieve(s.id));
    }
  });

  it("refuses bytes that are no index, and an index of another version", async () => {
    const bytes = serializeIndex(await usSample());
    const code = (input: Uint8Array) => {
      try {
        deserializeIndex(input);
      } catch (error) {
        return (error as { code?: string }).code;
      }
      return "read";
    };
    expect(code(Buffer.from("LON,LAT,NUMBER\n"))).toBe("invalid_index_file");
    expect(code(bytes.subarray(0, 40))).toBe("invalid_index_file");
    const header = bytes.toString("utf8", 12, 12 + bytes.readUInt32LE(8));
    const other = header.replace(`"version":${INDEX_FILE_VERSION}`, `"version":${INDEX_FILE_VERSION + 1}`);
    expect(other).not.toBe(header);
    expect(
      code(Buffer.concat([bytes.subarray(0, 12), Buffer.from(other), bytes.subarray(12 + header.length)])),
    ).toBe("invalid_index_file");
    expect(code(bytes.subarray(0, bytes.length - 64))).toBe("invalid_index_file");
  });
});

describe("mailpiece-addresses", () => {
  it("imports a CSV file into an index file that searches like the CSV", async () => {
    const dir = await tempDir();
    const out = join(dir, "us.addresses");
    const lines: string[] = [];
    const io = { out: (line: string) => lines.push(line), err: (line: string) => lines.push(line) };
    const csv = join(dir, "us.csv");
    await writeFile(csv, await readFile(SAMPLE_CSV_URL));
    expect(await runAddressesCli(["import", csv, "--country", "US", "--out", out], io)).toBe(0);
    expect(lines[0]).toMatch(/^330 addresses written to .* \(left out: 0 incomplete, 0 repeated\)$/);
    const fromFile = createEmbeddedAddressProvider(await openIndexFile(out));
    const fromCsv = createEmbeddedAddressProvider(await loadSample());
    for (const query of QUERIES) {
      expect(await fromFile.search({ query, country_code: "US" })).toEqual(
        await fromCsv.search({ query, country_code: "US" }),
      );
    }
    lines.length = 0;
    expect(await runAddressesCli(["search", out, "245", "e", "93rd", "4b"], io)).toBe(0);
    expect(lines).toEqual([
      expect.stringMatching(/^Address +US\|\S+ {2}245 E 93rd St, Apt 4B, New York, NY 10128/),
    ]);
  });

  it("answers usage and status 2 for a wrong command line", async () => {
    const lines: string[] = [];
    const io = { out: (line: string) => lines.push(line), err: (line: string) => lines.push(line) };
    expect(await runAddressesCli(["import", "x.csv"], io)).toBe(2);
    expect(await runAddressesCli(["--nope"], io)).toBe(2);
    expect(lines.join("\n")).toContain("Usage:");
  });
});
