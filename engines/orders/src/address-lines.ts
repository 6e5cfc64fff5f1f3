import { type CountryCode, countryName, isCountryName, resolveCountry } from "./countries.ts";
import type { Party, PartyRole, ResolvedAddress } from "./party.ts";

/** Mailpiece posts every piece in the US: a piece with a party elsewhere crosses a border. */
const POSTING_COUNTRY = "US";

export interface AddressLineOptions {
  /**
   * The piece crosses a border, so the party's country name is printed in capitals as the last line, whatever the
   * party's country. Default: true when the party itself is outside the US. Use isInternationalPiece (or
   * pieceAddressLines) to decide it from both parties.
   */
  international?: boolean;
}

/** One printed line of an address block and the request field it comes from ("recipient_address_manual.city"). */
export interface AddressBlockLine {
  text: string;
  path: string;
}

/** True when the piece crosses a border: the sender or the recipient is outside the US, where pieces are posted. */
export function isInternationalPiece(sender: Party, recipient: Party): boolean {
  return sender.country !== POSTING_COUNTRY || recipient.country !== POSTING_COUNTRY;
}

/**
 * The window lines of both parties of one piece: on an international piece (see isInternationalPiece) both the
 * sender and the recipient end with their country name in capitals; on a domestic one neither does.
 */
export function pieceAddressLines(
  sender: Party,
  recipient: Party,
): { sender: string[]; recipient: string[] } {
  const international = isInternationalPiece(sender, recipient);
  return {
    sender: formatAddressLines(sender, { international }),
    recipient: formatAddressLines(recipient, { international }),
  };
}

/**
 * The lines printed in the envelope window, name first.
 * Manual addresses: line1, line2, then the locality line in the country's customary order: "City, ST ZIP" for the
 * US and Canada, "City" then "POSTCODE" for the United Kingdom, "City PIN" (then the state) for India, and
 * "ZIP City" (then the region, when given) elsewhere in Europe.
 * Address-search addresses resolved through the address provider (`address.resolved`): exactly as a manual address
 * of the same country. Unresolved ones: the address text split on commas and line breaks.
 * International pieces (`options.international`) end with the country name in capitals, in both modes; the
 * country of an address-search address is the one of its id. When the text of an unresolved address already ends
 * with the country (its name, another common name such as "UK" or "Deutschland", or its code), that ending is
 * replaced by the country line rather than printed twice.
 */
export function formatAddressLines(party: Party, options: AddressLineOptions = {}): string[] {
  return formatAddressBlock(party, "recipient", options).map((line) => line.text);
}

/**
 * formatAddressLines with the request field of each line (`${role}_name`, `${role}_address_text`,
 * `${role}_address_manual.city`, the country line at `${role}_address_id` or `${role}_address_manual.countryCode`),
 * so a problem found in a printed line can be reported at the field the client sent. Every address line of a
 * resolved address-search address is at `${role}_address_id`: the id is what the client sent for it.
 */
export function formatAddressBlock(
  party: Party,
  role: PartyRole,
  options: AddressLineOptions = {},
): AddressBlockLine[] {
  const country = resolveCountry(party.country);
  const international = options.international ?? party.country !== POSTING_COUNTRY;
  const lines: AddressBlockLine[] = [{ text: party.name.trim(), path: `${role}_name` }];
  if (party.company?.trim()) lines.push({ text: party.company.trim(), path: `${role}_company` });
  const address = party.address;
  let countryPath: string;
  if (address.type === "Manual") {
    const at = (field: string) => `${role}_address_manual.${field}`;
    lines.push(...structuredLines(address, at));
    countryPath = at("countryCode");
  } else if (address.resolved !== undefined) {
    const idPath = `${role}_address_id`;
    lines.push(...structuredLines(address.resolved, () => idPath));
    countryPath = idPath;
  } else {
    const textPath = `${role}_address_text`;
    let parts = address.text
      .split(/[,\r\n]+/)
      .map((part) => part.trim())
      .filter((part) => part !== "");
    if (international && country !== undefined) parts = withoutCountryEnding(parts, country);
    for (const part of parts) lines.push({ text: part, path: textPath });
    countryPath = `${role}_address_id`;
  }
  if (international && country !== undefined) {
    lines.push({ text: countryName(country).toUpperCase(), path: countryPath });
  }
  return lines.filter((line) => line.text.trim() !== "");
}

/**
 * The address lines of a structured address (manual, or resolved from an id): line1, line2, then the locality in
 * the country's customary order. `at` names the request field of each part.
 */
function structuredLines(address: ResolvedAddress, at: (field: string) => string): AddressBlockLine[] {
  const city = address.city.trim();
  const zip = address.zip.trim();
  const state = address.state?.trim() ?? "";
  const lines: AddressBlockLine[] = [
    { text: address.line1.trim(), path: at("line1") },
    { text: address.line2?.trim() ?? "", path: at("line2") },
  ];
  switch (resolveCountry(address.countryCode)) {
    case "US":
    case "CA":
      lines.push({ text: state ? `${city}, ${state} ${zip}` : `${city} ${zip}`, path: at("city") });
      break;
    case "GB":
      lines.push({ text: city, path: at("city") }, { text: zip, path: at("zip") });
      lines.push({ text: state, path: at("state") });
      break;
    case "IN":
      lines.push({ text: `${city} ${zip}`, path: at("city") }, { text: state, path: at("state") });
      break;
    default:
      lines.push({ text: `${zip} ${city}`, path: at("city") }, { text: state, path: at("state") });
  }
  return lines;
}

/**
 * Names of countries that are also the name of a locality (Luxembourg, the city): a line such as "L-1111 Luxembourg"
 * keeps it, since it is the town, and still gets the country line below.
 */
const ALSO_A_LOCALITY = new Set(["luxembourg", "luxemburg"]);

/**
 * The address text without the country it ends with: a last part that only names the country is dropped, and a
 * last part ending with the country's name or code after the locality ("Berlin 10117 Germany") loses that ending.
 */
function withoutCountryEnding(parts: string[], country: CountryCode): string[] {
  const last = parts.at(-1);
  if (last === undefined) return parts;
  if (isCountryName(country, last)) return parts.slice(0, -1);
  const words = last.split(/\s+/);
  // Country names have at most five words ("United States of America").
  for (let count = Math.min(5, words.length - 1); count >= 1; count--) {
    const ending = words.slice(-count).join(" ");
    if (ALSO_A_LOCALITY.has(ending.toLowerCase())) continue;
    if (isCountryName(country, ending)) return [...parts.slice(0, -1), words.slice(0, -count).join(" ")];
  }
  return parts;
}
