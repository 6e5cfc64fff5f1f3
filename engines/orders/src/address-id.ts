import { type CountryCode, resolveCountry } from "./countries.ts";
import { ADDRESS_ID_PATTERN } from "./order-request-schema.ts";

const PATTERN = new RegExp(ADDRESS_ID_PATTERN, "u");

export type AddressIdCheck =
  | { ok: true; country: CountryCode }
  | { ok: false; code: "invalid_address_id" | "address_country_not_allowed"; message: string };

/**
 * Reads the country of an address search id such as "US|US|DEF|...": the two to four letters before the first
 * vertical bar, an alpha-2 code or the alpha-3 code of an allowed country, in any case.
 */
export function parseAddressId(id: string): AddressIdCheck {
  if (!PATTERN.test(id)) {
    return {
      ok: false,
      code: "invalid_address_id",
      message:
        'An address id starts with its country code and a vertical bar, e.g. "US|...". Use an id returned by address search with type Address.',
    };
  }
  const segment = id.slice(0, id.indexOf("|"));
  const country = resolveCountry(segment);
  if (country === undefined) {
    return {
      ok: false,
      code: "address_country_not_allowed",
      message: `The address id is for country "${segment}", which Mailpiece does not mail to or from.`,
    };
  }
  return { ok: true, country };
}
