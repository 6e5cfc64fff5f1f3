import type { AddressSuggestion, StructuredAddress } from "@mailpiece/ports";
import type { LoqateItem } from "./loqate-client.ts";

/** The text of a field of a Loqate item, trimmed; "" when absent or not a string. */
export function field(item: LoqateItem, name: string): string {
  const value = item[name];
  return typeof value === "string" ? value.trim() : "";
}

/** Our id for a Loqate Id: the country code, a vertical bar, then Loqate's Id unchanged. */
export function ourId(country: string, loqateId: string): string {
  return `${country}|${loqateId}`;
}

/**
 * Loqate's Id inside one of our ids of `country` (`US|US|A|V1191|1B` → `US|A|V1191|1B`), or undefined when the id is
 * not a string, names another country or nothing after the bar, or is longer than any Loqate Id.
 */
export function loqateIdOf(id: unknown, country: string): string | undefined {
  if (typeof id !== "string" || !id.startsWith(`${country}|`)) return undefined;
  const key = id.slice(country.length + 1);
  return key.length > 0 && key.length <= MAX_LOQATE_ID_CHARS ? key : undefined;
}

/** Loqate Ids are short opaque strings; anything longer is not one and is not sent. */
export const MAX_LOQATE_ID_CHARS = 512;

/** A container description's count at its end, after the last " - ": "New York, NY 10010 - 3 Addresses". */
const COUNT_TAIL = / - (\d[\d,.]*\+?\s+\S.*)$/;

/**
 * One Loqate Find item as a suggestion of `country`, or undefined for an item without an Id or Text.
 *
 * - Type `Address` is an `Address`; every other Type (Street, BuildingNumber, Postcode, Locality, Container, ...) is
 *   a `Container`, to be searched again inside.
 * - An address reads as Loqate's Text then its Description (the locality): "11 Madison Ave, New York, NY 10010";
 *   its description is the locality.
 * - A container's Description ends with a count ("New York, NY 10010 - 3 Addresses"): the locality before it joins
 *   the text ("Madison Ave, New York, NY 10010") and the count is the description ("3 Addresses"). A Description
 *   without a count is the description as it is.
 * - An empty Description is replaced by the country code (an address) or Loqate's Type (a container), since a
 *   suggestion always has one.
 */
export function findSuggestion(item: LoqateItem, country: string): AddressSuggestion | undefined {
  const loqateId = field(item, "Id");
  const text = field(item, "Text");
  if (loqateId === "" || loqateId.length > MAX_LOQATE_ID_CHARS || text === "") return undefined;
  const description = field(item, "Description");
  const id = ourId(country, loqateId);
  if (field(item, "Type") === "Address") {
    return { id, text: joined(text, description), type: "Address", description: description || country };
  }
  const counted = COUNT_TAIL.exec(description);
  if (counted) {
    const locality = description.slice(0, counted.index).trim();
    return { id, text: joined(text, locality), type: "Container", description: counted[1]!.trim() };
  }
  return { id, text, type: "Container", description: description || field(item, "Type") || "Container" };
}

/**
 * The suggestions of a Find answer: each item mapped by `findSuggestion`, without items that cannot be shown,
 * without repeats of an id, without the container searched in (`inside`, our id), at most `limit`.
 */
export function findSuggestions(
  items: readonly LoqateItem[],
  country: string,
  limit: number,
  inside?: string,
): AddressSuggestion[] {
  const seen = new Set<string>();
  const out: AddressSuggestion[] = [];
  for (const item of items) {
    if (out.length >= limit) break;
    const suggestion = findSuggestion(item, country);
    if (suggestion === undefined || suggestion.id === inside || seen.has(suggestion.id)) continue;
    seen.add(suggestion.id);
    out.push(suggestion);
  }
  return out;
}

/**
 * A Loqate Retrieve item as the structured address of `id` (our id, answered as it was asked), or undefined when
 * it is of another country than `country` or lacks what a printed address needs (a first line, a city, a postal
 * code).
 *
 * - `line1` is Line1 (else the building number and street, else the building name); `line2` is Line2 to Line5,
 *   those not empty, joined with ", ", and absent when all are empty. The company is not part of the address lines.
 * - `state` is ProvinceCode, else Province, and absent when both are empty.
 * - `zip` is PostalCode as Loqate writes it (a US ZIP+4 stays `10010-3629`); `countryCode` is CountryIso2.
 * - `text` is the address on one line: lines, city, then state and postal code ("11 Madison Ave Bsmt 1B, New York,
 *   NY 10010-3629").
 */
export function structuredAddress(
  item: LoqateItem,
  id: string,
  country: string,
): StructuredAddress | undefined {
  const countryCode = field(item, "CountryIso2").toUpperCase();
  if (countryCode !== country) return undefined;
  const line1 =
    field(item, "Line1") ||
    `${field(item, "BuildingNumber")} ${field(item, "Street")}`.trim() ||
    field(item, "BuildingName");
  const city = field(item, "City");
  const zip = field(item, "PostalCode");
  if (line1 === "" || city === "" || zip === "") return undefined;
  const line2 = ["Line2", "Line3", "Line4", "Line5"]
    .map((name) => field(item, name))
    .filter((line) => line !== "")
    .join(", ");
  const state = field(item, "ProvinceCode") || field(item, "Province");
  const text = [line1, line2, city, `${state} ${zip}`.trim()].filter((part) => part !== "").join(", ");
  return {
    id,
    line1,
    ...(line2 === "" ? {} : { line2 }),
    city,
    ...(state === "" ? {} : { state }),
    zip,
    countryCode,
    text,
  };
}

function joined(first: string, second: string): string {
  return second === "" ? first : `${first}, ${second}`;
}
