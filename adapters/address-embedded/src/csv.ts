import type { Readable } from "node:stream";
import Papa from "papaparse";
import { AddressIndex } from "./address-index.ts";
import { type AddressBuildStats, AddressIndexBuilder } from "./builder.ts";
import { AddressIndexError } from "./errors.ts";
import type { AddressRow } from "./row.ts";

/** The OpenAddresses columns read, by header name (any case); other columns are ignored. */
const COLUMNS = {
  number: "NUMBER",
  street: "STREET",
  unit: "UNIT",
  city: "CITY",
  region: "REGION",
  postcode: "POSTCODE",
  id: "ID",
  hash: "HASH",
} as const satisfies Record<keyof AddressRow, string>;

/** Columns without which no row is an address. */
const REQUIRED = ["NUMBER", "STREET", "CITY", "POSTCODE"] as const;

export interface OpenAddressesOptions {
  /** The country of every row, ISO 3166-1 alpha-2 upper case: OpenAddresses files hold one country each. */
  country: string;
}

/** An index with what its build kept and left out. */
export interface LoadedAddresses {
  index: AddressIndex;
  stats: AddressBuildStats;
}

const PARSE_CONFIG = {
  header: false,
  skipEmptyLines: "greedy",
  beforeFirstChunk: (chunk: string) => (chunk.startsWith("\uFEFF") ? chunk.slice(1) : chunk),
} as const;

/**
 * Turns CSV records (header first) into address rows for the builder. Column positions come from the header;
 * a missing optional column (UNIT, REGION, ID, HASH) reads as empty, as does a cell past the end of a short row.
 */
class RowReader {
  private columns: Partial<Record<keyof AddressRow, number>> | undefined;
  constructor(readonly builder: AddressIndexBuilder) {}

  read(cells: string[]): void {
    if (!this.columns) {
      this.columns = headerColumns(cells);
      return;
    }
    const cell = (name: keyof AddressRow) => {
      const at = this.columns?.[name];
      return at === undefined ? "" : (cells[at] ?? "");
    };
    this.builder.add({
      number: cell("number"),
      street: cell("street"),
      unit: cell("unit"),
      city: cell("city"),
      region: cell("region"),
      postcode: cell("postcode"),
      id: cell("id"),
      hash: cell("hash"),
    });
  }

  finish(): LoadedAddresses {
    if (!this.columns) throw missing(REQUIRED);
    return { index: new AddressIndex(this.builder.build()), stats: { ...this.builder.stats } };
  }
}

function headerColumns(header: string[]): Partial<Record<keyof AddressRow, number>> {
  const names = header.map((name) => name.trim().toUpperCase());
  const absent = REQUIRED.filter((name) => !names.includes(name));
  if (absent.length > 0) throw missing(absent);
  const columns: Partial<Record<keyof AddressRow, number>> = {};
  for (const [field, name] of Object.entries(COLUMNS) as Array<[keyof AddressRow, string]>) {
    const at = names.indexOf(name);
    if (at >= 0) columns[field] = at;
  }
  return columns;
}

function missing(columns: readonly string[]): AddressIndexError {
  return new AddressIndexError("missing_column", `the CSV has no ${columns.join(", ")} column`);
}

/**
 * Builds an index from OpenAddresses CSV text (a header line naming LON, LAT, NUMBER, STREET, UNIT, CITY, DISTRICT,
 * REGION, POSTCODE, ID, HASH, in any order; a byte order mark is ignored). Throws `missing_column` when NUMBER,
 * STREET, CITY or POSTCODE is not in the header.
 */
export function readOpenAddressesCsv(text: string, options: OpenAddressesOptions): LoadedAddresses {
  const reader = new RowReader(new AddressIndexBuilder(options.country));
  let failure: unknown;
  Papa.parse<string[]>(text, {
    ...PARSE_CONFIG,
    step: (result, parser) => {
      try {
        reader.read(result.data);
      } catch (error) {
        failure = error;
        parser.abort();
      }
    },
  });
  if (failure) throw failure;
  return reader.finish();
}

/**
 * readOpenAddressesCsv over a stream of UTF-8 text or bytes, read record by record so that a file of gigabytes is
 * never one string in memory.
 */
export function loadOpenAddressesCsv(
  input: string | Readable,
  options: OpenAddressesOptions,
): Promise<LoadedAddresses> {
  if (typeof input === "string") return Promise.resolve().then(() => readOpenAddressesCsv(input, options));
  return new Promise((resolve, reject) => {
    let reader: RowReader;
    try {
      reader = new RowReader(new AddressIndexBuilder(options.country));
    } catch (error) {
      reject(error);
      return;
    }
    let settled = false;
    const fail = (error: unknown) => {
      if (settled) return;
      settled = true;
      input.destroy();
      reject(error);
    };
    input.once("error", fail);
    if (input.readableEncoding === null) input.setEncoding("utf8");
    Papa.parse<string[]>(input, {
      ...PARSE_CONFIG,
      step: (result, parser) => {
        if (settled) return;
        try {
          reader.read(result.data);
        } catch (error) {
          parser.abort();
          fail(error);
        }
      },
      complete: () => {
        if (settled) return;
        try {
          const loaded = reader.finish();
          settled = true;
          resolve(loaded);
        } catch (error) {
          fail(error);
        }
      },
      error: fail,
    });
  });
}
