import type { FloristCoverage } from "@mailpiece/ports";
import type { FloristRules } from "./rules.ts";

const US_ZIP = /^(\d{5})(?:-\d{4})?$/;

/** Where the simulated florist delivers: US ZIP codes (`12345` or `12345-6789`) outside the uncovered prefixes. */
export function coverageOf(
  zip: string,
  country: string,
  rules: Pick<FloristRules, "uncoveredZipPrefixes">,
): FloristCoverage {
  const trimmed = typeof zip === "string" ? zip.trim() : "";
  const place = typeof country === "string" ? country.trim().toUpperCase() : "";
  if (place !== "US") {
    return { covered: false, zip: trimmed, country: place, reason: "the florist delivers in the US only" };
  }
  const base = US_ZIP.exec(trimmed)?.[1];
  if (base === undefined) {
    return {
      covered: false,
      zip: trimmed,
      country: place,
      reason: `${trimmed || "(empty)"} is not a US ZIP code`,
    };
  }
  if (rules.uncoveredZipPrefixes.some((prefix) => base.startsWith(prefix))) {
    return {
      covered: false,
      zip: base,
      country: place,
      reason: `the florist has no partner delivering to ${base}`,
    };
  }
  return { covered: true, zip: base, country: place };
}

/** True when a (covered) ZIP costs the rural surcharge. */
export function isRural(zip: string, rules: Pick<FloristRules, "ruralZipPrefixes">): boolean {
  return rules.ruralZipPrefixes.some((prefix) => zip.startsWith(prefix));
}
