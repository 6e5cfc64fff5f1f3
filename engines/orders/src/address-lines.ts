import { countryName, resolveCountry } from "./countries.ts";
import type { Party } from "./party.ts";

export interface AddressLineOptions {
  /** Country the mailpiece is posted in; a party elsewhere gets its country name as the last line. Default US. */
  originCountry?: string;
}

/**
 * The lines printed in the envelope window, name first.
 * Manual addresses: line1, line2, then the locality line in the country's customary order: "City, ST ZIP" for the
 * US and Canada, "City" then "POSTCODE" for the United Kingdom, "City PIN" (then the state) for India, and
 * "ZIP City" (then the region, when given) elsewhere in Europe; the country name in capitals when the address is
 * in another country than the origin.
 * Address-search addresses: the address text split on commas and line breaks.
 */
export function formatAddressLines(party: Party, options: AddressLineOptions = {}): string[] {
  const name = party.name.trim();
  const address = party.address;
  if (address.type === "Address") {
    const parts = address.text
      .split(/[,\r\n]+/)
      .map((part) => part.trim())
      .filter((part) => part !== "");
    return nonEmpty([name, ...parts]);
  }
  const country = resolveCountry(address.countryCode);
  const city = address.city.trim();
  const zip = address.zip.trim();
  const state = address.state?.trim();
  const lines = [name, address.line1.trim(), address.line2?.trim() ?? ""];
  switch (country) {
    case "US":
    case "CA":
      lines.push(state ? `${city}, ${state} ${zip}` : `${city} ${zip}`);
      break;
    case "GB":
      lines.push(city, zip, state ?? "");
      break;
    case "IN":
      lines.push(`${city} ${zip}`, state ?? "");
      break;
    default:
      lines.push(`${zip} ${city}`, state ?? "");
  }
  const origin = resolveCountry(options.originCountry ?? "US") ?? "US";
  if (country !== undefined && country !== origin) lines.push(countryName(country).toUpperCase());
  return nonEmpty(lines);
}

function nonEmpty(lines: string[]): string[] {
  return lines.filter((line) => line.trim() !== "");
}
