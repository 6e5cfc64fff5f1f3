import { type CountryCode, isSupportedCountry, parsePhoneNumberFromString } from "libphonenumber-js";

/** A phone number that passed `parsePhone`: the number in E.164 and the extension, if one was written. */
export interface PhoneNumberValue {
  e164: string;
  extension?: string;
}

/** The country national numbers are read in when none is known. */
export const DEFAULT_PHONE_COUNTRY = "US";

/**
 * Reads a phone number as people write it: national formats of `country` ("(217) 555-0142", "217.555.0142",
 * "217-555-0142 ext. 12") and international ones ("+1 217 555 0142", "+44 20 7946 0958"). Returns undefined for
 * text that is not a phone number (letters, stray characters around the number) and for a number that cannot
 * exist: the wrong number of digits for its country, or an unknown country calling code. A `country` without a
 * known numbering plan reads international numbers only.
 *
 * The test is "possible" (the digit count fits the country's numbering plan), not "valid" (the number falls in a
 * range the plan has assigned): validity follows range tables that change from one release of the metadata to the
 * next (new area codes, the fictional 555-01xx block), so a number a sender really uses, or a documented test
 * number such as 217-555-0142, could start being refused after an upgrade. Mailpiece prints the number and hands
 * it on; it never dials it, so a well-formed number of the right length is what it can check.
 */
export function parsePhone(
  text: string,
  country: string = DEFAULT_PHONE_COUNTRY,
): PhoneNumberValue | undefined {
  const defaultCountry = isSupportedCountry(country) ? (country as CountryCode) : undefined;
  const phone = parsePhoneNumberFromString(text, {
    ...(defaultCountry === undefined ? {} : { defaultCountry }),
    extract: false,
  });
  if (phone === undefined || !phone.isPossible()) return undefined;
  return { e164: phone.number, ...(phone.ext === undefined ? {} : { extension: phone.ext }) };
}

/** The number as Mailpiece keeps and prints it: E.164, then " ext. 12" when it has an extension. */
export function formatPhone(phone: PhoneNumberValue): string {
  return phone.extension === undefined ? phone.e164 : `${phone.e164} ext. ${phone.extension}`;
}
