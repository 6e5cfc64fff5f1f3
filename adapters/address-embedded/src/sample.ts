import { readFile } from "node:fs/promises";
import type { AddressIndex } from "./address-index.ts";
import { readOpenAddressesCsv } from "./csv.ts";

/** The sample shipped with the package: a few hundred US addresses in New York, San Francisco, Chicago and more. */
export const SAMPLE_CSV_URL = new URL("../data/sample-us.csv", import.meta.url);

/** An index of the shipped sample, so that a fresh server can search at once. */
export async function loadSample(): Promise<AddressIndex> {
  return readOpenAddressesCsv(await readFile(SAMPLE_CSV_URL, "utf8"), { country: "US" }).index;
}
