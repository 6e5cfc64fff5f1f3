import { ALLOWED_COUNTRIES, type CountryCode, isAllowedCountry, resolveCountry } from "./countries.ts";
import type { IssueCode } from "./issues.ts";
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
  /** The other party (or the campaign) is outside the US, so the country must be stated, not assumed. */
  requireCountryCode: boolean;
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
 * length bounds; an allowed country (default US, but stated explicitly when the order is international);
 * state required for US and CA; US ZIP 12345 or 12345-6789; Canadian postal code A1A 1A1.
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
    return value;
  };

  const line1 = text("line1", true);
  const line2 = text("line2", false);
  const city = text("city", true);
  const state = text("state", false);
  const zip = text("zip", true);

  let country: CountryCode | undefined;
  const rawCountry = input.countryCode?.trim();
  if (rawCountry === undefined || rawCountry === "") {
    if (rules.requireCountryCode) {
      problems.push({
        field: "countryCode",
        code: "country_code_required",
        message: `This order is international, so every manual address states its country: add ${label("countryCode")} (e.g. US).`,
      });
    } else {
      country = "US";
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

  let postal = zip;
  if (country === "US" || country === "CA") {
    if (state === undefined && !problems.some((p) => p.field === "state")) {
      problems.push({
        field: "state",
        code: "state_required",
        message: `A state is required for ${country} addresses.`,
      });
    }
    if (zip !== undefined) {
      postal = normalisePostalCode(zip, country);
      if (postal === undefined) {
        problems.push({
          field: "zip",
          code: "invalid_postal_code",
          message:
            country === "US"
              ? "A US ZIP code is 5 digits, or 5 digits, a hyphen and 4 digits (12345 or 12345-6789)."
              : "A Canadian postal code looks like A1A 1A1.",
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

/** The postal code in its canonical form ("K1A 0A9"), or undefined when it does not fit the country's format. */
function normalisePostalCode(zip: string, country: "US" | "CA"): string | undefined {
  if (country === "US") return US_ZIP.test(zip) ? zip : undefined;
  const match = CA_POSTAL.exec(zip);
  return match ? `${match[1]} ${match[2]}`.toUpperCase() : undefined;
}
