import { Readable } from "node:stream";
import { describe, expect, it } from "vitest";
import {
  campaignColumn,
  MAX_CAMPAIGN_ROWS,
  MAX_CSV_BYTES,
  parseCampaignCsv,
  readCampaignCsv,
  readCampaignCsvStream,
} from "./campaign-csv.ts";

const HEADER = "recipient_name,line1,line2,city,state,zip";
const GRACE = "Grace Hopper,1600 Pennsylvania Ave NW,,Washington,DC,20500";

const errorsOf = (csv: string, options = {}) => parseCampaignCsv(csv, options).map((row) => row.errors);

describe("parseCampaignCsv", () => {
  it("reads each data row into a recipient, numbering rows from 1", () => {
    const rows = parseCampaignCsv(
      `${HEADER}\n${GRACE}\nAlan Turing,2 Bletchley Rd,Hut 8,Springfield,IL,62701-1234\n`,
    );
    expect(rows.map((r) => [r.row_number, r.status])).toEqual([
      [1, "valid"],
      [2, "valid"],
    ]);
    expect(rows[1]?.recipient).toEqual({
      name: "Alan Turing",
      country: "US",
      address: {
        type: "Manual",
        line1: "2 Bletchley Rd",
        line2: "Hut 8",
        city: "Springfield",
        state: "IL",
        zip: "62701-1234",
        countryCode: "US",
      },
    });
  });

  it("keeps every named column in fields, free columns included", () => {
    const [row] = parseCampaignCsv(`${HEADER},Venue, Note \n${GRACE},the park,bring a hat`);
    expect(row?.fields).toEqual({
      recipient_name: "Grace Hopper",
      line1: "1600 Pennsylvania Ave NW",
      line2: "",
      city: "Washington",
      state: "DC",
      zip: "20500",
      Venue: "the park",
      Note: "bring a hat",
    });
  });

  it("matches known columns without regard to case and takes the country aliases", () => {
    for (const column of ["country", "country_code", "countrycode", "Country_Code"]) {
      const [row] = parseCampaignCsv(
        `Recipient_Name,LINE1,City,Zip,${column}\nHans,Unter den Linden 77,Berlin,10117,DE`,
      );
      expect(row?.recipient?.country).toBe("DE");
    }
  });

  it("accepts alpha-3 and lower-case countries", () => {
    const rows = parseCampaignCsv(
      "recipient_name,line1,city,zip,country\nA,1 St,Berlin,10117,deu\nB,2 St,Paris,75001,fr",
    );
    expect(rows.map((r) => r.recipient?.country)).toEqual(["DE", "FR"]);
  });

  it("refuses countries Mailpiece does not serve", () => {
    expect(errorsOf("recipient_name,line1,city,zip,country\nA,1 St,Rio,20000,BR")).toEqual([
      [{ column: "country", code: "invalid_enum", message: expect.stringContaining("US, CA") }],
    ]);
  });

  it("applies the manual address rules to each row, naming the column", () => {
    const rows = parseCampaignCsv(
      [
        HEADER,
        ",1 Main St,,Springfield,IL,62701",
        "A,1 Main St,,Springfield,,62701",
        "B,1 Main St,,Springfield,IL,6270",
        `${"n".repeat(257)},1 Main St,,Springfield,IL,62701`,
        "C,,,,IL,62701",
      ].join("\n"),
    );
    expect(rows.map((r) => r.status)).toEqual(["invalid", "invalid", "invalid", "invalid", "invalid"]);
    expect(rows.map((r) => r.errors.map((e) => [e.column, e.code]))).toEqual([
      [["recipient_name", "required"]],
      [["state", "state_required"]],
      [["zip", "invalid_postal_code"]],
      [["recipient_name", "too_long"]],
      [
        ["line1", "required"],
        ["city", "required"],
      ],
    ]);
    expect(rows.every((r) => r.recipient === undefined)).toBe(true);
  });

  it("a row without a country is a US address; only a row abroad must state it", () => {
    const csv = `${HEADER},country\n${GRACE},\nHans,Unter den Linden 77,,Berlin,,10117,`;
    expect(errorsOf(csv)).toEqual([
      [],
      [{ column: "state", code: "state_required", message: expect.stringContaining("read as a US address") }],
    ]);
    expect(parseCampaignCsv(csv)[0]?.recipient?.country).toBe("US");
  });

  it("a row naming a Canadian province or postal code without a country must state it", () => {
    const csv = `${HEADER},Country\nA,150 Wellington St,,Ottawa,ON,K1A 0A9,\nB,150 Wellington St,,Ottawa,,K1A 0A9,`;
    expect(errorsOf(csv)).toEqual([
      [{ column: "Country", code: "country_code_required", message: expect.stringContaining("CA") }],
      [{ column: "Country", code: "country_code_required", message: expect.stringContaining("postal code") }],
    ]);
    expect(errorsOf(`${HEADER},country\nA,150 Wellington St,,Ottawa,ON,K1A 0A9,CA`)).toEqual([[]]);
  });

  it("checks US states and Canadian provinces, and normalises full names to their codes", () => {
    const rows = parseCampaignCsv(
      [
        `${HEADER},country`,
        "A,1 Main St,,Springfield,ZZ,62701,US",
        "B,1 Main St,,Springfield,Illinois,62701,",
        "C,1 Main St,,Springfield,il,62701,",
        "D,1 Main St,,Vancouver,british columbia,V6B 1A1,CA",
        "E,1 Main St,,Vancouver,Bavaria,V6B 1A1,CA",
        "F,1 Main St,,Springfield,ON,62701,US",
      ].join("\n"),
    );
    expect(rows.map((r) => r.errors.map((e) => [e.column, e.code]))).toEqual([
      [["state", "invalid_state"]],
      [],
      [],
      [],
      [["state", "invalid_state"]],
      [["state", "invalid_state"]],
    ]);
    expect(rows.map((r) => r.recipient?.address)).toMatchObject([
      undefined,
      { state: "IL" },
      { state: "IL" },
      { state: "BC" },
      undefined,
      undefined,
    ]);
    expect(rows[1]?.fields.state).toBe("Illinois");
    expect(rows[5]?.errors[0]?.message).toContain("Canadian province");
  });

  it("refuses a recipient name or address cell that cannot be printed, at its column", () => {
    const rows = parseCampaignCsv(
      `${HEADER}\nGrace 🎉,1 Main St,,Springfield,IL,62701\nA,1 Main St \u0000,,Springfield,IL,62701`,
    );
    expect(rows.map((r) => r.errors.map((e) => [e.column, e.code]))).toEqual([
      [["recipient_name", "character_unsupported"]],
      [["line1", "character_unsupported"]],
    ]);
    expect(rows[0]?.errors[0]?.message).toContain("U+1F389");
  });

  it("skips blank lines, strips a byte order mark, reads quoted cells", () => {
    const rows = parseCampaignCsv(
      `\uFEFF${HEADER}\n\n   \n"Hopper, Grace","1600 Pennsylvania Ave NW","Suite ""A""\nRear",Washington,DC,20500\n\n`,
    );
    expect(rows).toHaveLength(1);
    expect(rows[0]?.recipient?.name).toBe("Hopper, Grace");
    expect(rows[0]?.recipient?.address).toMatchObject({ line2: 'Suite "A"\nRear' });
  });

  it("detects a semicolon delimiter", () => {
    const [row] = parseCampaignCsv(
      "recipient_name;line1;city;state;zip\nA;1 Main St, Apt 2;Springfield;IL;62701",
    );
    expect(row?.recipient?.address).toMatchObject({ line1: "1 Main St, Apt 2" });
  });

  it("a row with more values than columns is invalid_csv_row; fewer values read as empty", () => {
    const rows = parseCampaignCsv(`${HEADER}\n${GRACE},extra\nA,1 Main St,,Springfield,IL`);
    expect(rows[0]?.errors).toEqual([{ column: "", code: "invalid_csv_row", message: expect.any(String) }]);
    expect(rows[1]?.errors.map((e) => [e.column, e.code])).toEqual([["zip", "required"]]);
  });

  it("a row with broken quotes is invalid_csv_row", () => {
    const rows = parseCampaignCsv(`${HEADER}\n${GRACE}\nA,"1 Main"x St,,Springfield,IL,62701`);
    expect(rows[0]?.status).toBe("valid");
    expect(rows[1]?.errors.map((e) => e.code)).toContain("invalid_csv_row");
  });

  it("keeps header names such as __proto__ as plain fields", () => {
    const [row] = parseCampaignCsv(`${HEADER},__proto__,constructor\n${GRACE},x,y`);
    expect(Object.hasOwn(row?.fields ?? {}, "__proto__")).toBe(true);
    expect(Object.getOwnPropertyDescriptor(row?.fields, "__proto__")?.value).toBe("x");
    expect(row?.fields.constructor).toBe("y");
  });

  it("ignores unnamed columns", () => {
    const [row] = parseCampaignCsv(`${HEADER},\n${GRACE},`);
    expect(Object.keys(row?.fields ?? {})).toEqual([
      "recipient_name",
      "line1",
      "line2",
      "city",
      "state",
      "zip",
    ]);
    expect(row?.status).toBe("valid");
  });
});

describe("readCampaignCsv file problems", () => {
  it("lists the columns as written", () => {
    expect(readCampaignCsv(`${HEADER},Venue\n${GRACE},x`).columns).toEqual([
      "recipient_name",
      "line1",
      "line2",
      "city",
      "state",
      "zip",
      "Venue",
    ]);
  });
  it("reports missing required columns", () => {
    const { problems, rows } = readCampaignCsv("recipient_name,line1\nA,1 Main St");
    expect(problems).toEqual([{ code: "csv_missing_column", message: expect.stringContaining("city, zip") }]);
    expect(rows[0]?.status).toBe("invalid");
  });
  it("reports repeated columns and uses the first", () => {
    const { problems, rows } = readCampaignCsv(
      `${HEADER},City,country,country_code\n${GRACE},Elsewhere,US,CA`,
    );
    expect(problems).toEqual([
      { code: "csv_duplicate_column", message: expect.stringContaining("City, country_code") },
    ]);
    expect(rows[0]?.recipient?.address).toMatchObject({ city: "Washington", countryCode: "US" });
  });
  // 100000 rows: slow on a loaded machine, hence the generous timeout.
  it("refuses more than MAX_CAMPAIGN_ROWS rows", { timeout: 120_000 }, () => {
    const row = "A,1 Main St,,Springfield,IL,62701\n";
    const { problems, rows } = readCampaignCsv(`${HEADER}\n${row.repeat(MAX_CAMPAIGN_ROWS + 1)}`);
    expect(problems.map((p) => p.code)).toEqual(["campaign_too_many_rows"]);
    expect(rows).toHaveLength(MAX_CAMPAIGN_ROWS);
    expect(readCampaignCsv(`${HEADER}\n${row.repeat(MAX_CAMPAIGN_ROWS)}`).problems).toEqual([]);
  });
  it("refuses a CSV over MAX_CSV_BYTES (UTF-8 bytes) without reading it", { timeout: 120_000 }, () => {
    const big = `${HEADER}\n${"é".repeat(MAX_CSV_BYTES / 2 + 1)}`;
    expect(readCampaignCsv(big)).toEqual({
      columns: [],
      rows: [],
      problems: [{ code: "csv_too_large", message: expect.any(String) }],
    });
  });
  it("takes a lower byte limit, counted in UTF-8 bytes", () => {
    const csv = `${HEADER}\n${GRACE}\n`;
    const bytes = Buffer.byteLength(csv, "utf8");
    expect(readCampaignCsv(csv, { maxBytes: bytes }).problems).toEqual([]);
    expect(readCampaignCsv(`${csv}é`, { maxBytes: bytes + 1 }).problems).toEqual([
      { code: "csv_too_large", message: expect.stringContaining(`limit is ${bytes + 1} bytes`) },
    ]);
    // A limit above MAX_CSV_BYTES does not raise it.
    expect(readCampaignCsv(csv, { maxBytes: MAX_CSV_BYTES * 2 }).problems).toEqual([]);
  });
  it("an empty CSV misses every required column", () => {
    expect(readCampaignCsv("\n\n").problems.map((p) => p.code)).toEqual(["csv_missing_column"]);
  });
});

describe("campaignColumn", () => {
  it("names the header that fills a role, as written, the country under any of its names", () => {
    const columns = ["Recipient_Name", "LINE1", "Country_Code", "venue"];
    expect(campaignColumn(columns, "recipient_name")).toBe("Recipient_Name");
    expect(campaignColumn(columns, "country")).toBe("Country_Code");
    expect(campaignColumn(columns, "zip")).toBeUndefined();
  });
});

/** A byte stream of `text` cut into pieces of `size` bytes, so characters and rows are split between chunks. */
function chunked(text: string, size: number): Readable {
  const bytes = Buffer.from(text, "utf8");
  const chunks: Buffer[] = [];
  for (let at = 0; at < bytes.length; at += size) chunks.push(bytes.subarray(at, at + size));
  return Readable.from(chunks);
}

describe("readCampaignCsvStream", () => {
  it("reads a stream as readCampaignCsv reads the same text, also with characters split between chunks", async () => {
    const csv = `\uFEFF${HEADER},Note\n${GRACE},café\n"Müller, Jürgen",Hauptstraße 1,,Springfield,IL,62701,"a\nb"\nB,1 Main St,,Springfield,IL,6270,x\n`;
    for (const size of [1, 2, 3, 7, 1024]) {
      expect(await readCampaignCsvStream(chunked(csv, size))).toEqual(readCampaignCsv(csv));
    }
    expect((await readCampaignCsvStream(chunked(csv, 1))).rows[1]?.recipient?.name).toBe("Müller, Jürgen");
  });

  it("applies the options as readCampaignCsv does", async () => {
    const csv = `${HEADER}\n${GRACE}\n`;
    const limit = Buffer.byteLength(csv, "utf8") - 1;
    const read = await readCampaignCsvStream(chunked(csv, 5), { maxBytes: limit });
    expect(read.problems.map((p) => p.code)).toEqual(["csv_too_large"]);
    expect(readCampaignCsv(csv, { maxBytes: limit }).problems.map((p) => p.code)).toEqual(["csv_too_large"]);
    expect((await readCampaignCsvStream(chunked(csv, 5), { maxBytes: limit + 1 })).problems).toEqual([]);
  });

  it("stops at the first row over MAX_CAMPAIGN_ROWS and abandons the stream", {
    timeout: 120_000,
  }, async () => {
    let produced = 0;
    function* rows() {
      yield `${HEADER}\n`;
      // Far more rows than the limit: the reader must not wait for the end.
      for (; produced < MAX_CAMPAIGN_ROWS * 10; produced++)
        yield "A,1 Main St,,Springfield,IL,62701\n".repeat(100);
    }
    const source = Readable.from(rows());
    const read = await readCampaignCsvStream(source);
    expect(read.problems.map((p) => p.code)).toEqual(["campaign_too_many_rows"]);
    expect(read.rows).toHaveLength(MAX_CAMPAIGN_ROWS);
    expect(produced).toBeLessThan(MAX_CAMPAIGN_ROWS / 10);
    await new Promise((resolve) => setImmediate(resolve));
    expect(source.destroyed).toBe(true);
  });

  it("refuses a stream over its byte limit once it passes the limit, without reading the rest", async () => {
    let produced = 0;
    const block = "x".repeat(1024);
    function* bytes() {
      yield `${HEADER},note\nA,1 Main St,,Springfield,IL,62701,"`;
      for (; produced < 1000; produced++) yield block;
    }
    const limit = 16 * 1024;
    const read = await readCampaignCsvStream(Readable.from(bytes()), { maxBytes: limit });
    expect(read).toEqual({
      columns: [],
      rows: [],
      problems: [{ code: "csv_too_large", message: expect.stringContaining(`limit is ${limit} bytes`) }],
    });
    // Stopped soon after the limit: far less than the 1000 blocks the source could give.
    expect(produced).toBeLessThan(100);
  });

  it("rejects when the stream fails", async () => {
    const source = new Readable({
      read() {
        this.destroy(new Error("connection reset"));
      },
    });
    await expect(readCampaignCsvStream(source)).rejects.toThrow("connection reset");
  });
});
