import type { FormIssue } from "./issues.ts";
import { joinPath } from "./issues.ts";
import { charCount, isBlank, isRecord } from "./text.ts";

/**
 * The countries Mailpiece mails to and from, with the English names printed on international addresses. The same
 * twelve the order request accepts for manual addresses.
 */
export const ADDRESS_COUNTRIES: Readonly<Record<string, string>> = Object.freeze({
  US: "United States",
  CA: "Canada",
  AT: "Austria",
  BE: "Belgium",
  CH: "Switzerland",
  DE: "Germany",
  ES: "Spain",
  FR: "France",
  GB: "United Kingdom",
  IN: "India",
  LU: "Luxembourg",
  NL: "Netherlands",
});

/** An address field's answer after every rule passed: trimmed, postal code canonical, country stated. */
export interface AddressAnswer {
  line1: string;
  line2?: string;
  city: string;
  state?: string;
  zip: string;
  countryCode: string;
}

const SUBFIELDS = ["line1", "line2", "city", "state", "zip", "countryCode"] as const;
type Subfield = (typeof SUBFIELDS)[number];

const BOUNDS: Record<Exclude<Subfield, "countryCode">, number> = {
  line1: 256,
  line2: 256,
  city: 128,
  state: 60,
  zip: 20,
};

const US_ZIP = /^\d{5}(?:-\d{4})?$/;
/** Canadian postal code: letter digit letter, digit letter digit; D F I O Q U never occur, W and Z never lead. */
const CA_POSTAL = /^([ABCEGHJ-NPRSTVXY]\d[ABCEGHJ-NPRSTV-Z])[ -]?(\d[ABCEGHJ-NPRSTV-Z]\d)$/i;

export type AddressCheck =
  | { status: "absent" }
  | { status: "invalid"; issues: FormIssue[] }
  | { status: "valid"; value: AddressAnswer };

/**
 * Checks an address answer `{line1, line2?, city, state?, zip, countryCode?}` by the rules of a manual address in
 * an order: line1, city and zip required; line1 and line2 at most 256 characters, city 128, state 60, zip 20;
 * country one of ADDRESS_COUNTRIES (default US); state required for US and CA; US ZIP 12345 or 12345-6789;
 * Canadian postal code A1A 1A1. No other properties. An object whose every subfield is blank is not an answer.
 */
export function checkAddress(raw: unknown, path: string): AddressCheck {
  if (!isRecord(raw)) {
    return {
      status: "invalid",
      issues: [{ path, code: "invalid_type", message: `${path} must be an address object.` }],
    };
  }
  const issues: FormIssue[] = [];
  for (const key of Object.keys(raw)) {
    if (!(SUBFIELDS as readonly string[]).includes(key)) {
      issues.push({
        path: joinPath(path, key),
        code: "unknown_property",
        message: `${key} is not an address property; allowed: ${SUBFIELDS.join(", ")}.`,
      });
    }
  }
  const values: Partial<Record<Subfield, string>> = {};
  for (const key of SUBFIELDS) {
    const value = raw[key];
    if (value === undefined || value === null) continue;
    if (typeof value !== "string") {
      issues.push({ path: joinPath(path, key), code: "invalid_type", message: `${key} must be a string.` });
      continue;
    }
    if (!isBlank(value)) values[key] = value.trim();
  }
  if (issues.length === 0 && Object.keys(values).length === 0) return { status: "absent" };

  for (const key of ["line1", "city", "zip"] as const) {
    if (values[key] === undefined && !issues.some((i) => i.path === joinPath(path, key))) {
      issues.push({ path: joinPath(path, key), code: "required", message: `${key} is required.` });
    }
  }
  for (const key of ["line1", "line2", "city", "state", "zip"] as const) {
    const value = values[key];
    if (value !== undefined && charCount(value) > BOUNDS[key]) {
      issues.push({
        path: joinPath(path, key),
        code: "too_long",
        message: `${key} must be at most ${BOUNDS[key]} characters.`,
      });
    }
  }
  const country = values.countryCode ?? "US";
  if (ADDRESS_COUNTRIES[country] === undefined) {
    issues.push({
      path: joinPath(path, "countryCode"),
      code: "invalid_country",
      message: `countryCode must be one of: ${Object.keys(ADDRESS_COUNTRIES).join(", ")}.`,
    });
  }
  let zip = values.zip;
  if (country === "US" || country === "CA") {
    if (values.state === undefined && !issues.some((i) => i.path === joinPath(path, "state"))) {
      issues.push({
        path: joinPath(path, "state"),
        code: "state_required",
        message: `A state is required for ${country} addresses.`,
      });
    }
    if (zip !== undefined && charCount(zip) <= BOUNDS.zip) {
      zip = canonicalPostalCode(zip, country);
      if (zip === undefined) {
        issues.push({
          path: joinPath(path, "zip"),
          code: "invalid_postal_code",
          message:
            country === "US"
              ? "A US ZIP code is 5 digits, or 5 digits, a hyphen and 4 digits (12345 or 12345-6789)."
              : "A Canadian postal code looks like A1A 1A1.",
        });
      }
    }
  }
  if (issues.length > 0 || values.line1 === undefined || values.city === undefined || zip === undefined) {
    return { status: "invalid", issues };
  }
  return {
    status: "valid",
    value: {
      line1: values.line1,
      ...(values.line2 === undefined ? {} : { line2: values.line2 }),
      city: values.city,
      ...(values.state === undefined ? {} : { state: values.state }),
      zip,
      countryCode: country,
    },
  };
}

function canonicalPostalCode(zip: string, country: "US" | "CA"): string | undefined {
  if (country === "US") return US_ZIP.test(zip) ? zip : undefined;
  const match = CA_POSTAL.exec(zip);
  return match ? `${match[1]} ${match[2]}`.toUpperCase() : undefined;
}

/** The address on one line, as it reads in a letter: "1 Main St, Apt 2, Springfield, IL 62701". */
export function formatAddressLine(address: AddressAnswer): string {
  const cityLine = [address.city, [address.state, address.zip].filter(Boolean).join(" ")].join(", ");
  const parts = [address.line1, address.line2, cityLine];
  if (address.countryCode !== "US") parts.push(ADDRESS_COUNTRIES[address.countryCode] ?? address.countryCode);
  return parts.filter((part): part is string => part !== undefined && part !== "").join(", ");
}
