import Papa from "papaparse";
import { utf8ByteLength } from "./base64.ts";
import type { IssueCode } from "./issues.ts";
import { MAX_CAMPAIGN_ROWS, MAX_CSV_BYTES } from "./limits.ts";
import { checkManualAddress, type ManualAddressField } from "./manual-address.ts";
import type { Party } from "./party.ts";
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
  /** The sender is outside the US, so each row must state its country instead of defaulting to US. */
  requireCountry?: boolean;
}

type KnownColumn = "recipient_name" | "line1" | "line2" | "city" | "state" | "zip" | "country";

/** Header names (compared in lower case) and the address field they fill. */
const KNOWN_COLUMNS: Readonly<Record<string, KnownColumn>> = Object.freeze({
  recipient_name: "recipient_name",
  line1: "line1",
  line2: "line2",
  city: "city",
  state: "state",
  zip: "zip",
  country: "country",
  country_code: "country",
  countrycode: "country",
});

const REQUIRED_COLUMNS: readonly KnownColumn[] = ["recipient_name", "line1", "city", "zip"];
const MAX_NAME_CHARS = 256;

/**
 * Reads a campaign CSV: a header row, then one recipient per row. Known columns are recipient_name, line1, line2,
 * city, state, zip and the country (country, country_code or countrycode; alpha-2 or alpha-3, default US), matched
 * without regard to case; every other column is kept for template placeholders. Each row goes through the same
 * manual address rules as a single order. Problems of the file (size, row count, missing or repeated columns) are
 * returned in `problems`; problems of a row make that row invalid without affecting the others.
 */
export function readCampaignCsv(csv: string, options: CampaignCsvOptions = {}): CampaignCsv {
  const bytes = utf8ByteLength(csv);
  if (bytes > MAX_CSV_BYTES) {
    return {
      columns: [],
      rows: [],
      problems: [
        {
          code: "csv_too_large",
          message: `The CSV is ${bytes} bytes; the limit is ${MAX_CSV_BYTES} (50 MB).`,
        },
      ],
    };
  }
  const text = csv.startsWith("\uFEFF") ? csv.slice(1) : csv;
  const parsed: string[][] = [];
  const parseErrors = new Map<number, string>();
  Papa.parse<string[]>(text, {
    header: false,
    skipEmptyLines: "greedy",
    step: (result, parser) => {
      for (const error of result.errors) {
        if (error.type === "Quotes") parseErrors.set(parsed.length - 1, error.message);
      }
      parsed.push(result.data);
      // The header, the allowed rows and one more to know the limit is exceeded.
      if (parsed.length > MAX_CAMPAIGN_ROWS + 1) parser.abort();
    },
  });
  const [header = [], ...records] = parsed;
  const problems: CampaignCsvProblem[] = [];

  const names = header.map((cell) => String(cell ?? "").trim());
  const columnIndex = new Map<string, number>();
  const known = new Map<KnownColumn, { index: number; name: string }>();
  const duplicates: string[] = [];
  names.forEach((name, index) => {
    if (name === "") return;
    const lower = name.toLowerCase();
    if ([...columnIndex.keys()].some((existing) => existing.toLowerCase() === lower)) {
      duplicates.push(name);
      return;
    }
    const role = Object.hasOwn(KNOWN_COLUMNS, lower) ? KNOWN_COLUMNS[lower] : undefined;
    if (role !== undefined && known.has(role)) {
      duplicates.push(name);
      return;
    }
    columnIndex.set(name, index);
    if (role !== undefined) known.set(role, { index, name });
  });
  if (duplicates.length > 0) {
    problems.push({
      code: "csv_duplicate_column",
      message: `Each column appears once; repeated: ${duplicates.join(", ")}. The first one is used.`,
    });
  }
  const missing = REQUIRED_COLUMNS.filter((column) => !known.has(column));
  if (missing.length > 0) {
    problems.push({
      code: "csv_missing_column",
      message: `The header row lacks the column${missing.length === 1 ? "" : "s"} ${missing.join(", ")}.`,
    });
  }
  if (records.length > MAX_CAMPAIGN_ROWS) {
    problems.push({
      code: "campaign_too_many_rows",
      message: `A campaign has at most ${MAX_CAMPAIGN_ROWS} recipient rows; this CSV has more.`,
    });
  }

  const rows = records.slice(0, MAX_CAMPAIGN_ROWS).map((record, index) =>
    readRow(record, index, {
      names,
      columnIndex,
      known,
      requireCountry: options.requireCountry === true,
      parseError: parseErrors.get(index),
    }),
  );
  return { columns: [...columnIndex.keys()], rows, problems };
}

/** The rows of a campaign CSV; see readCampaignCsv for the rules and for problems of the file as a whole. */
export function parseCampaignCsv(csv: string, options: CampaignCsvOptions = {}): CampaignRow[] {
  return readCampaignCsv(csv, options).rows;
}

interface RowContext {
  names: string[];
  columnIndex: Map<string, number>;
  known: Map<KnownColumn, { index: number; name: string }>;
  requireCountry: boolean;
  parseError: string | undefined;
}

const ADDRESS_COLUMN: Record<ManualAddressField, KnownColumn> = {
  line1: "line1",
  line2: "line2",
  city: "city",
  state: "state",
  zip: "zip",
  countryCode: "country",
};

function readRow(record: string[], index: number, context: RowContext): CampaignRow {
  const cell = (i: number) => String(record[i] ?? "").trim();
  const fields = Object.fromEntries([...context.columnIndex].map(([name, i]) => [name, cell(i)]));
  const value = (column: KnownColumn): string | undefined => {
    const entry = context.known.get(column);
    return entry === undefined ? undefined : cell(entry.index);
  };
  const columnName = (column: KnownColumn) => context.known.get(column)?.name ?? column;
  const errors: CampaignRowError[] = [];

  if (context.parseError !== undefined) {
    errors.push({
      column: "",
      code: "invalid_csv_row",
      message: `The row could not be read: ${context.parseError}.`,
    });
  }
  const extra = record.slice(context.names.length).filter((v) => String(v ?? "").trim() !== "");
  if (extra.length > 0) {
    errors.push({
      column: "",
      code: "invalid_csv_row",
      message: `The row has ${record.length} values but the header names ${context.names.length} columns.`,
    });
  }

  const name = value("recipient_name");
  if (name === undefined || name === "") {
    errors.push({
      column: columnName("recipient_name"),
      code: "required",
      message: "recipient_name is required.",
    });
  } else if (charCount(name) > MAX_NAME_CHARS) {
    errors.push({
      column: columnName("recipient_name"),
      code: "too_long",
      message: `recipient_name must be at most ${MAX_NAME_CHARS} characters.`,
    });
  }
  const { address, problems } = checkManualAddress(
    {
      line1: value("line1"),
      line2: value("line2"),
      city: value("city"),
      state: value("state"),
      zip: value("zip"),
      countryCode: value("country"),
    },
    {
      requireCountryCode: context.requireCountry,
      lenientCountry: true,
      labels: {
        line1: columnName("line1"),
        line2: columnName("line2"),
        city: columnName("city"),
        state: columnName("state"),
        zip: columnName("zip"),
        countryCode: columnName("country"),
      },
    },
  );
  for (const problem of problems) {
    errors.push({
      column: columnName(ADDRESS_COLUMN[problem.field]),
      code: problem.code,
      message: problem.message,
    });
  }

  const row: CampaignRow = { row_number: index + 1, status: "invalid", fields, errors };
  if (errors.length === 0 && address !== undefined && name !== undefined) {
    row.status = "valid";
    row.recipient = { name, country: address.countryCode, address: { type: "Manual", ...address } };
  }
  return row;
}
