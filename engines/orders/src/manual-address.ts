import { ALLOWED_COUNTRIES, type CountryCode, isAllowedCountry, resolveCountry } from "./countries.ts";
import type { IssueCode } from "./issues.ts";
import { unprintableCharacters, unprintableMessage } from "./printable-text.ts";
import { resolveSubdivision } from "./subdivisions.ts";
import { charCount } from "./text-length.ts";

/** The fields of a manual address, as given (JSON object or CSV row). Absent and wrongly typed fields are undefined. */
export interface ManualAddressInput {
  line1?: string | undefined;
  line2?: string | undefined;
  city?: string | undefined;
  state?: string | undefined;
  zip?: string | undefined;
  countryCode?: string | undefined;
}

export type ManualAddressField = keyof ManualAddressInput;

/** A manual address that passed every rule. */
export interface CheckedManualAddress {
  line1: string;
  line2?: string;
  city: string;
  state?: string;
  zip: string;
  countryCode: CountryCode;
}

export interface AddressProblem {
  field: ManualAddressField;
  code: IssueCode;
  message: string;
}

export interface ManualAddressRules {
  /** Accept alpha-3 codes and any case (CSV cells); the JSON request takes exact alpha-2 codes only. */
  lenientCountry: boolean;
  /** How fields are named in messages (CSV column headers); the field name by default. */
  labels?: Partial<Record<ManualAddressField, string>>;
}

const BOUNDS: Record<Exclude<ManualAddressField, "countryCode">, number> = {
  line1: 256,
  line2: 256,
  city: 128,
  state: 60,
  zip: 20,
};

const US_ZIP = /^\d{5}(?:-\d{4})?$/;
/** Canadian postal code: letter digit letter, digit letter digit; D F I O Q U never occur, W and Z never lead. */
const CA_POSTAL = /^([ABCEGHJ-NPRSTVXY]\d[ABCEGHJ-NPRSTV-Z])[ -]?(\d[ABCEGHJ-NPRSTV-Z]\d)$/i;

/**
 * Applies the manual address rules shared by single orders and campaign rows: line1, city and zip required;
 * length bounds; no character that cannot be printed (emoji, control characters); an allowed country, US when
 * none is given; a state or province required for US and CA, one of the USPS or Canada Post codes or its full name
 * (any case), normalised to the code; US ZIP 12345 or 12345-6789; Canadian postal code A1A 1A1.
 * Only an address outside the US must state its country: an address without one is read as a US address, and one
 * that names a Canadian province or has a Canadian postal code is refused with country_code_required.
 * Surrounding spaces are trimmed; a blank optional field counts as absent.
 */
export function checkManualAddress(
  input: ManualAddressInput,
  rules: ManualAddressRules,
): { address?: CheckedManualAddress; problems: AddressProblem[] } {
  const problems: AddressProblem[] = [];
  const label = (field: ManualAddressField) => rules.labels?.[field] ?? field;
  const text = (field: Exclude<ManualAddressField, "countryCode">, required: boolean): string | undefined => {
    const raw = input[field];
    if (raw === undefined || raw === "") {
      if (required) problems.push({ field, code: "required", message: `${label(field)} is required.` });
      return undefined;
    }
    const value = raw.trim();
    if (value === "") {
      if (required)
        problems.push({ field, code: "too_short", message: `${label(field)} must not be blank.` });
      return undefined;
    }
    if (charCount(value) > BOUNDS[field]) {
      problems.push({
        field,
        code: "too_long",
        message: `${label(field)} must be at most ${BOUNDS[field]} characters.`,
      });
      return undefined;
    }
    const unprintable = unprintableCharacters(value);
    if (unprintable.length > 0) {
      problems.push({
        field,
        code: "character_unsupported",
        message: unprintableMessage(label(field), unprintable),
      });
      return undefined;
    }
    return value;
  };

  const line1 = text("line1", true);
  const line2 = text("line2", false);
  const city = text("city", true);
  const rawState = text("state", false);
  const zip = text("zip", true);
  const stateFailed = problems.some((p) => p.field === "state");

  let country: CountryCode | undefined;
  /** No country was given, so the address is read as a US address. */
  let assumedUs = false;
  const rawCountry = input.countryCode?.trim();
  if (rawCountry === undefined || rawCountry === "") {
    const canadian = looksCanadian(rawState, zip, label);
    if (canadian !== undefined) {
      problems.push({
        field: "countryCode",
        code: "country_code_required",
        message: `${canadian}, but the address has no ${label("countryCode")} and would be read as a US address: add ${label("countryCode")} CA (only US addresses may leave it out).`,
      });
    } else {
      country = "US";
      assumedUs = true;
    }
  } else {
    country = rules.lenientCountry
      ? resolveCountry(rawCountry)
      : isAllowedCountry(rawCountry)
        ? rawCountry
        : undefined;
    if (country === undefined) {
      problems.push({
        field: "countryCode",
        code: "invalid_enum",
        message: `The country must be one of: ${ALLOWED_COUNTRIES.join(", ")}.`,
      });
    }
  }
  const readAsUs = assumedUs
    ? ` No ${label("countryCode")} was given, so this is read as a US address; add ${label("countryCode")} for an address abroad.`
    : "";

  let state = rawState;
  let postal = zip;
  if (country === "US" || country === "CA") {
    if (rawState === undefined) {
      if (!stateFailed) {
        problems.push({
          field: "state",
          code: "state_required",
          message: `A ${country === "US" ? "state" : "province"} is required for ${country} addresses.${readAsUs}`,
        });
      }
    } else {
      state = resolveSubdivision(country, rawState);
      if (state === undefined) {
        problems.push({
          field: "state",
          code: "invalid_state",
          message: invalidStateMessage(label("state"), rawState, country) + readAsUs,
        });
      }
    }
    if (zip !== undefined) {
      postal = normalisePostalCode(zip, country);
      if (postal === undefined) {
        problems.push({
          field: "zip",
          code: "invalid_postal_code",
          message:
            (country === "US"
              ? "A US ZIP code is 5 digits, or 5 digits, a hyphen and 4 digits (12345 or 12345-6789)."
              : "A Canadian postal code looks like A1A 1A1.") + readAsUs,
        });
      }
    }
  }

  if (
    problems.length > 0 ||
    line1 === undefined ||
    city === undefined ||
    postal === undefined ||
    country === undefined
  ) {
    return { problems };
  }
  return {
    address: {
      line1,
      ...(line2 === undefined ? {} : { line2 }),
      city,
      ...(state === undefined ? {} : { state }),
      zip: postal,
      countryCode: country,
    },
    problems,
  };
}

/** Why an address without a country is Canadian ('state "ON" is a Canadian province'), or undefined. */
function looksCanadian(
  state: string | undefined,
  zip: string | undefined,
  label: (field: ManualAddressField) => string,
): string | undefined {
  if (state !== undefined && resolveSubdivision("CA", state) !== undefined)
    return `${label("state")} ${JSON.stringify(state)} is a Canadian province or territory`;
  const usState = state === undefined ? undefined : resolveSubdivision("US", state);
  if (usState === undefined && zip !== undefined && CA_POSTAL.test(zip))
    return `${label("zip")} ${JSON.stringify(zip)} is a Canadian postal code`;
  return undefined;
}

function invalidStateMessage(label: string, value: string, country: "US" | "CA"): string {
  const other = country === "US" ? "CA" : "US";
  const elsewhere = resolveSubdivision(other, value);
  const hint =
    elsewhere === undefined
      ? ""
      : ` ${JSON.stringify(value)} is ${other === "CA" ? "a Canadian province" : "a US state"}; is the country ${other}?`;
  return country === "US"
    ? `${label} ${JSON.stringify(value)} is not a US state: use a USPS code (e.g. IL, DC, PR, AE) or the full name (e.g. Illinois).${hint}`
    : `${label} ${JSON.stringify(value)} is not a Canadian province or territory: use a Canada Post code (e.g. ON, BC) or the full name (e.g. Ontario).${hint}`;
}

/** The postal code in its canonical form ("K1A 0A9"), or undefined when it does not fit the country's format. */
function normalisePostalCode(zip: string, country: "US" | "CA"): string | undefined {
  if (country === "US") return US_ZIP.test(zip) ? zip : undefined;
  const match = CA_POSTAL.exec(zip);
  return match ? `${match[1]} ${match[2]}`.toUpperCase() : undefined;
}
