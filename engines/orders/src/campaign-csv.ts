import { pipeline, type Readable, Transform, type TransformCallback } from "node:stream";
import Papa from "papaparse";
import { utf8ByteLength } from "./base64.ts";
import { OrdersError } from "./errors.ts";
import type { IssueCode } from "./issues.ts";
import { MAX_CAMPAIGN_ROWS, MAX_CSV_BYTES } from "./limits.ts";
import { checkManualAddress, type ManualAddressField, type ManualAddressRules } from "./manual-address.ts";
import type { Party } from "./party.ts";
import { unprintableCharacters, unprintableMessage } from "./printable-text.ts";
import { charCount } from "./text-length.ts";

export { MAX_CAMPAIGN_ROWS, MAX_CSV_BYTES };

/** A problem of one CSV row. `column` is the header as written in the file ("" for the row as a whole). */
export interface CampaignRowError {
  column: string;
  code: IssueCode;
  message: string;
}

/** One data row of a campaign CSV. Valid rows carry the recipient; every row keeps all its cells in `fields`. */
export interface CampaignRow {
  /** 1-based number of the data row (the header and blank lines are not counted). */
  row_number: number;
  status: "valid" | "invalid";
  recipient?: Party;
  fields: Record<string, string>;
  errors: CampaignRowError[];
}

/** A problem of the file as a whole. */
export interface CampaignCsvProblem {
  code: Extract<
    IssueCode,
    "csv_too_large" | "campaign_too_many_rows" | "csv_missing_column" | "csv_duplicate_column"
  >;
  message: string;
}

export interface CampaignCsv {
  /** Header names as written (trimmed), in file order; unnamed columns are left out. */
  columns: string[];
  rows: CampaignRow[];
  problems: CampaignCsvProblem[];
}

export interface CampaignCsvOptions {
  /** Largest CSV accepted, in UTF-8 bytes: MAX_CSV_BYTES by default; a caller may set a lower limit. */
  maxBytes?: number;
}

/** The address and name fields a campaign column can fill. */
export type CampaignColumnRole = "recipient_name" | "line1" | "line2" | "city" | "state" | "zip" | "country";

/** Header names (compared in lower case) and the field they fill. */
const KNOWN_COLUMNS: ReadonlyMap<string, CampaignColumnRole> = new Map([
  ["recipient_name", "recipient_name"],
  ["line1", "line1"],
  ["line2", "line2"],
  ["city", "city"],
  ["state", "state"],
  ["zip", "zip"],
  ["country", "country"],
  ["country_code", "country"],
  ["countrycode", "country"],
]);

const REQUIRED_COLUMNS: readonly CampaignColumnRole[] = ["recipient_name", "line1", "city", "zip"];
const MAX_NAME_CHARS = 256;

/**
 * The header, as written, that fills `role` in a campaign with these columns (the first one when several could),
 * or undefined when no column does. Known columns are matched without regard to case; the country is read from
 * country, country_code or countrycode.
 */
export function campaignColumn(columns: readonly string[], role: CampaignColumnRole): string | undefined {
  return columns.find((name) => KNOWN_COLUMNS.get(name.toLowerCase()) === role);
}

/**
 * Reads a campaign CSV: a header row, then one recipient per row. Known columns are recipient_name, line1, line2,
 * city, state, zip and the country (country, country_code or countrycode; alpha-2 or alpha-3, default US), matched
 * without regard to case; every other column is kept for template placeholders. Each row goes through the same
 * manual address rules as a single order (a row without a country is a US address; the state of a US or Canadian
 * row is normalised to its code in `recipient`, `fields` keep the cells as written), and its name may not hold
 * characters that cannot be printed. Problems of the file (size, row count, missing or repeated columns) are
 * returned in `problems`; problems of a row make that row invalid without affecting the others.
 *
 * The text is parsed row by row: each record becomes its CampaignRow as soon as it is read, so no second copy of
 * the table is held, and reading stops at the first row over MAX_CAMPAIGN_ROWS.
 */
export function readCampaignCsv(csv: string, options: CampaignCsvOptions = {}): CampaignCsv {
  const limit = byteLimit(options);
  const bytes = utf8ByteLength(csv);
  if (bytes > limit) return tooLarge(bytes, limit);
  const reader = new CampaignRowReader();
  Papa.parse<string[]>(csv, {
    ...PARSE_CONFIG,
    step: (result, parser) => {
      if (!reader.add(result.data, result.errors)) parser.abort();
    },
  });
  return reader.finish();
}

/**
 * readCampaignCsv over a byte stream (UTF-8), for a CSV that is not held in memory as one string: bytes are counted
 * as they arrive and the stream is abandoned once it passes the byte limit (`maxBytes`, MAX_CSV_BYTES by default) or
 * MAX_CAMPAIGN_ROWS. Rejects only when the stream itself fails.
 */
export function readCampaignCsvStream(
  input: Readable,
  options: CampaignCsvOptions = {},
): Promise<CampaignCsv> {
  return new Promise((resolve, reject) => {
    let settled = false;
    const settle = (finish: () => void) => {
      if (settled) return;
      settled = true;
      finish();
    };
    const limit = byteLimit(options);
    const limiter = new ByteLimit(limit);
    // Decoded on the readable side, so a character split between two chunks stays whole.
    limiter.setEncoding("utf8");
    // The parser and the pipeline both see a failure of the stream; whichever reports it first settles.
    const fail = (error: unknown) => {
      if (OrdersError.isInstance(error) && error.code === "csv_too_large") {
        settle(() => resolve(tooLarge(limiter.bytes, limit)));
      } else settle(() => reject(error));
    };
    pipeline(input, limiter, (error) => {
      if (error) fail(error);
    });
    const reader = new CampaignRowReader();
    Papa.parse<string[]>(limiter, {
      ...PARSE_CONFIG,
      step: (result, parser) => {
        if (reader.add(result.data, result.errors)) return;
        parser.abort();
        limiter.destroy();
      },
      complete: () => settle(() => resolve(reader.finish())),
      error: fail,
    });
  });
}

/** The rows of a campaign CSV; see readCampaignCsv for the rules and for problems of the file as a whole. */
export function parseCampaignCsv(csv: string, options: CampaignCsvOptions = {}): CampaignRow[] {
  return readCampaignCsv(csv, options).rows;
}

const PARSE_CONFIG = {
  header: false,
  skipEmptyLines: "greedy",
  beforeFirstChunk: (chunk: string) => (chunk.startsWith("\uFEFF") ? chunk.slice(1) : chunk),
} as const;

/** The byte limit of the options: MAX_CSV_BYTES unless a lower, non-negative limit is given. */
function byteLimit(options: CampaignCsvOptions): number {
  const limit = options.maxBytes;
  return limit !== undefined && Number.isFinite(limit) && limit >= 0
    ? Math.min(limit, MAX_CSV_BYTES)
    : MAX_CSV_BYTES;
}

function tooLarge(bytes: number, limit: number): CampaignCsv {
  const size = limit % MB === 0 ? ` (${limit / MB} MB)` : "";
  return {
    columns: [],
    rows: [],
    problems: [
      {
        code: "csv_too_large",
        message: `The CSV is ${bytes} bytes (UTF-8); the limit is ${limit} bytes${size}.`,
      },
    ],
  };
}

const MB = 1024 * 1024;

/** What the header row says about every data row: where each column is and how address problems are named. */
interface Header {
  width: number;
  /** The named columns, first occurrence of each name, in file order. */
  named: { name: string; index: number }[];
  /** Index of the column that fills each role, -1 when none does. */
  roles: Record<CampaignColumnRole, number>;
  /** The header of each role as written (the role itself when no column fills it). */
  labels: Record<CampaignColumnRole, string>;
  rules: ManualAddressRules;
  duplicates: string[];
}

const ROLES: readonly CampaignColumnRole[] = [
  "recipient_name",
  "line1",
  "line2",
  "city",
  "state",
  "zip",
  "country",
];

function readHeader(record: readonly string[]): Header {
  const named: Header["named"] = [];
  const seen = new Set<string>();
  const roles = Object.fromEntries(ROLES.map((role) => [role, -1])) as Record<CampaignColumnRole, number>;
  const labels = Object.fromEntries(ROLES.map((role) => [role, role])) as Record<CampaignColumnRole, string>;
  const duplicates: string[] = [];
  record.forEach((cell, index) => {
    const name = cell.trim();
    if (name === "") return;
    const lower = name.toLowerCase();
    const role = KNOWN_COLUMNS.get(lower);
    if (seen.has(lower) || (role !== undefined && roles[role] >= 0)) {
      duplicates.push(name);
      return;
    }
    seen.add(lower);
    named.push({ name, index });
    if (role !== undefined) {
      roles[role] = index;
      labels[role] = name;
    }
  });
  return {
    width: record.length,
    named,
    roles,
    labels,
    duplicates,
    rules: {
      lenientCountry: true,
      labels: {
        line1: labels.line1,
        line2: labels.line2,
        city: labels.city,
        state: labels.state,
        zip: labels.zip,
        countryCode: labels.country,
      },
    },
  };
}

const ADDRESS_ROLE: Record<ManualAddressField, CampaignColumnRole> = {
  line1: "line1",
  line2: "line2",
  city: "city",
  state: "state",
  zip: "zip",
  countryCode: "country",
};

/** Turns parsed records into campaign rows one at a time: the first record is the header. */
class CampaignRowReader {
  private header: Header | undefined;
  private readonly rows: CampaignRow[] = [];
  private tooManyRows = false;

  /** Takes the next record; false once the row limit is passed and reading should stop. */
  add(record: string[], errors: readonly Papa.ParseError[]): boolean {
    if (this.header === undefined) {
      this.header = readHeader(record);
      return true;
    }
    if (this.rows.length >= MAX_CAMPAIGN_ROWS) {
      this.tooManyRows = true;
      return false;
    }
    const quoteError = errors.find((error) => error.type === "Quotes");
    this.rows.push(readRow(record, this.rows.length + 1, this.header, quoteError?.message));
    return true;
  }

  finish(): CampaignCsv {
    const header = this.header ?? readHeader([]);
    const problems: CampaignCsvProblem[] = [];
    if (header.duplicates.length > 0) {
      problems.push({
        code: "csv_duplicate_column",
        message: `Each column appears once; repeated: ${header.duplicates.join(", ")}. The first one is used.`,
      });
    }
    const missing = REQUIRED_COLUMNS.filter((role) => header.roles[role] < 0);
    if (missing.length > 0) {
      problems.push({
        code: "csv_missing_column",
        message: `The header row lacks the column${missing.length === 1 ? "" : "s"} ${missing.join(", ")}.`,
      });
    }
    if (this.tooManyRows) {
      problems.push({
        code: "campaign_too_many_rows",
        message: `A campaign has at most ${MAX_CAMPAIGN_ROWS} recipient rows; this CSV has more.`,
      });
    }
    return { columns: header.named.map((column) => column.name), rows: this.rows, problems };
  }
}

function readRow(
  record: string[],
  rowNumber: number,
  header: Header,
  parseError: string | undefined,
): CampaignRow {
  const fields: Record<string, string> = {};
  for (const { name, index } of header.named) {
    const value = (record[index] ?? "").trim();
    // A column may be called __proto__: define it as a plain field rather than set the prototype.
    if (name === "__proto__") {
      Object.defineProperty(fields, name, { value, enumerable: true, writable: true, configurable: true });
    } else fields[name] = value;
  }
  const { roles, labels } = header;
  const errors: CampaignRowError[] = [];

  if (parseError !== undefined) {
    errors.push({
      column: "",
      code: "invalid_csv_row",
      message: `The row could not be read: ${parseError}.`,
    });
  }
  for (let index = header.width; index < record.length; index++) {
    if ((record[index] ?? "").trim() === "") continue;
    errors.push({
      column: "",
      code: "invalid_csv_row",
      message: `The row has ${record.length} values but the header names ${header.width} columns.`,
    });
    break;
  }

  const name = cellOf(record, roles.recipient_name);
  if (name === undefined || name === "") {
    errors.push({ column: labels.recipient_name, code: "required", message: "recipient_name is required." });
  } else if (charCount(name) > MAX_NAME_CHARS) {
    errors.push({
      column: labels.recipient_name,
      code: "too_long",
      message: `recipient_name must be at most ${MAX_NAME_CHARS} characters.`,
    });
  } else {
    const unprintable = unprintableCharacters(name);
    if (unprintable.length > 0) {
      errors.push({
        column: labels.recipient_name,
        code: "character_unsupported",
        message: unprintableMessage(labels.recipient_name, unprintable),
      });
    }
  }
  const { address, problems } = checkManualAddress(
    {
      line1: cellOf(record, roles.line1),
      line2: cellOf(record, roles.line2),
      city: cellOf(record, roles.city),
      state: cellOf(record, roles.state),
      zip: cellOf(record, roles.zip),
      countryCode: cellOf(record, roles.country),
    },
    header.rules,
  );
  for (const problem of problems) {
    errors.push({
      column: labels[ADDRESS_ROLE[problem.field]],
      code: problem.code,
      message: problem.message,
    });
  }

  if (errors.length > 0 || address === undefined || name === undefined) {
    return { row_number: rowNumber, status: "invalid", fields, errors };
  }
  return {
    row_number: rowNumber,
    status: "valid",
    recipient: { name, country: address.countryCode, address: { type: "Manual", ...address } },
    fields,
    errors,
  };
}

/** The trimmed cell at `index`, "" past the end of a short record; undefined when the column is absent (-1). */
function cellOf(record: readonly string[], index: number): string | undefined {
  return index < 0 ? undefined : (record[index] ?? "").trim();
}

/** Passes bytes through until more than `limit` have passed, then fails with OrdersError("csv_too_large"). */
class ByteLimit extends Transform {
  /** The bytes seen so far, the one that passed the limit included. */
  bytes = 0;

  constructor(private readonly limit: number) {
    super();
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    this.bytes += chunk.byteLength;
    if (this.bytes > this.limit) {
      done(new OrdersError("csv_too_large", `The CSV is over ${this.limit} bytes.`));
    } else done(null, chunk);
  }
}
