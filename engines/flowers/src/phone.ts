import { type CountryCode, isSupportedCountry, parsePhoneNumberFromString } from "libphonenumber-js";

/**
 * A phone number in E.164 ("+12175550142"), read as people write it in `country` ("(217) 555-0142",
 * "217.555.0142") or internationally ("+1 217 555 0142", "+44 20 7946 0958"). Returns undefined for text that
 * is not one phone number, for a number with an extension (a florist's driver cannot dial one), and for a number
 * that cannot exist: the wrong number of digits for its country, or an unknown country calling code. A `country`
 * without a known numbering plan reads international numbers only.
 *
 * The test is "possible" (the digit count fits the country's numbering plan), not "valid" (the number falls in a
 * range the plan has assigned): validity follows range tables that change from one release of the metadata to the
 * next (new area codes, the fictional 555-01xx block), so a number a customer really uses, or a documented test
 * number such as 217-555-0142, could start being refused after an upgrade. The florist calls the number; a
 * well-formed number of the right length is what can be checked before that.
 */
export function toE164(text: string, country: string): string | undefined {
  const defaultCountry = isSupportedCountry(country) ? (country as CountryCode) : undefined;
  const phone = parsePhoneNumberFromString(text, {
    ...(defaultCountry === undefined ? {} : { defaultCountry }),
    extract: false,
  });
  if (phone === undefined || phone.ext !== undefined || !phone.isPossible()) return undefined;
  return phone.number;
}
