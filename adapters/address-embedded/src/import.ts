import { createReadStream } from "node:fs";
import type { AddressBuildStats } from "./builder.ts";
import { loadOpenAddressesCsv } from "./csv.ts";
import { writeIndexFile } from "./index-file.ts";

export interface ImportAddressesOptions {
  /** The country of every row of the file, ISO 3166-1 alpha-2 upper case. */
  country: string;
  /** Where to write the index file. */
  out: string;
}

/**
 * Reads an OpenAddresses CSV file as a stream (it may be gigabytes) and writes the index file that openIndexFile
 * loads. Answers what was kept and left out.
 */
export async function importAddresses(
  file: string,
  options: ImportAddressesOptions,
): Promise<AddressBuildStats> {
  const { index, stats } = await loadOpenAddressesCsv(createReadStream(file, { encoding: "utf8" }), {
    country: options.country,
  });
  await writeIndexFile(index, options.out);
  return stats;
}
