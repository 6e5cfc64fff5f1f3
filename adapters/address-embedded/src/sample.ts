import { readFile } from "node:fs/promises";
import type { AddressIndex } from "./address-index.ts";
import { readOpenAddressesCsv } from "./csv.ts";

/**
 * The samples shipped with the package, one OpenAddresses CSV per country: a few hundred US addresses (New York,
 * San Francisco, Chicago and more) and a dozen public buildings in Canada (Parliament Hill and its neighbours on
 * Wellington Street in Ottawa, Toronto, Montréal, Vancouver).
 */
export const SAMPLE_CSV_URLS = Object.freeze({
  US: new URL("../data/sample-us.csv", import.meta.url),
  CA: new URL("../data/sample-ca.csv", import.meta.url),
});

/** The US sample. */
export const SAMPLE_CSV_URL = SAMPLE_CSV_URLS.US;

/** One index per country of the shipped samples (US, CA), so that a fresh server can search at once. */
export async function loadSample(): Promise<AddressIndex[]> {
  return Promise.all(
    Object.entries(SAMPLE_CSV_URLS).map(
      async ([country, url]) => readOpenAddressesCsv(await readFile(url, "utf8"), { country }).index,
    ),
  );
}
