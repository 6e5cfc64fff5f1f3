import { displayCase, normalizeText, tidy } from "./normalize.ts";

/** One address as a source gives it: the OpenAddresses columns Mailpiece reads. */
export interface AddressRow {
  number: string;
  street: string;
  unit?: string;
  city: string;
  /** State, province or region (REGION). */
  region?: string;
  postcode: string;
  /** The source's id of the address (ID), when it has one. */
  id?: string;
  /** The OpenAddresses hash of the row (HASH), when present. */
  hash?: string;
}

/** Words that open a second address line; a unit without one is shown as "Unit <unit>". */
const UNIT_DESIGNATORS = new Set([
  "apt",
  "apartment",
  "unit",
  "suite",
  "ste",
  "fl",
  "floor",
  "rm",
  "room",
  "bldg",
  "building",
  "lot",
  "spc",
  "space",
  "trlr",
  "dept",
  "ph",
  "penthouse",
  "bsmt",
  "basement",
  "ofc",
  "office",
  "pier",
  "slip",
  "hngr",
  "hangar",
]);

/** The second address line of a unit: "APT 4B" is "Apt 4B", "#12" and "12" are "Unit 12". */
export function unitLine(unit: string): string {
  const value = tidy(unit).replace(/^#\s*/, "");
  if (value === "") return "";
  const [first = "", ...rest] = value.split(" ");
  if (UNIT_DESIGNATORS.has(normalizeText(first)) && rest.length > 0) {
    return [displayCase(first), ...rest].join(" ");
  }
  return `Unit ${value}`;
}

/** Rows a source cannot deliver to: no number, no street, no city or no postcode; no region in the US or Canada. */
export function isIncomplete(row: AddressRow, country: string): boolean {
  const needsRegion = country === "US" || country === "CA";
  return (
    tidy(row.number) === "" ||
    normalizeText(row.street) === "" ||
    normalizeText(row.city) === "" ||
    tidy(row.postcode) === "" ||
    (needsRegion && tidy(row.region ?? "") === "")
  );
}

/** A key the source gives that can stand in an id: letters, digits, `_` and `-`, at most 64 characters. */
export function sourceKey(row: AddressRow): string | undefined {
  for (const value of [row.hash, row.id]) {
    const key = value?.trim();
    if (key && /^[A-Za-z0-9_-]{1,64}$/.test(key)) return key;
  }
  return undefined;
}
