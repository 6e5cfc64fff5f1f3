/**
 * The countries Mailpiece mails to and from. The request schema of the machine API lists eleven; the developer
 * text and the Projects API also list ES (Spain), so the machine order endpoints enforce all twelve.
 */
const COUNTRY_CODES = ["US", "CA", "AT", "BE", "CH", "DE", "ES", "FR", "GB", "IN", "LU", "NL"] as const;

/** An ISO 3166-1 alpha-2 code of an allowed country. */
export type CountryCode = (typeof COUNTRY_CODES)[number];

/** ISO 3166-1 alpha-2 codes of the allowed countries, in the order the schema lists them. */
export const ALLOWED_COUNTRIES: readonly string[] = Object.freeze([...COUNTRY_CODES]);

/** The same list with its literal type, for schemas and exhaustive maps. */
export const COUNTRY_CODE_VALUES: readonly CountryCode[] = COUNTRY_CODES;

interface CountryInfo {
  alpha3: string;
  /** English short name, as printed on the last line of an international address. */
  name: string;
  /** Other names an address may end with: long and native names, common abbreviations. */
  aliases: readonly string[];
}

const COUNTRY_INFO: Readonly<Record<CountryCode, CountryInfo>> = Object.freeze({
  US: { alpha3: "USA", name: "United States", aliases: ["United States of America"] },
  CA: { alpha3: "CAN", name: "Canada", aliases: [] },
  AT: { alpha3: "AUT", name: "Austria", aliases: ["Österreich"] },
  BE: { alpha3: "BEL", name: "Belgium", aliases: ["Belgique", "België", "Belgien"] },
  CH: { alpha3: "CHE", name: "Switzerland", aliases: ["Schweiz", "Suisse", "Svizzera"] },
  DE: { alpha3: "DEU", name: "Germany", aliases: ["Deutschland"] },
  ES: { alpha3: "ESP", name: "Spain", aliases: ["España"] },
  FR: { alpha3: "FRA", name: "France", aliases: [] },
  GB: { alpha3: "GBR", name: "United Kingdom", aliases: ["UK", "Great Britain"] },
  IN: { alpha3: "IND", name: "India", aliases: ["Bharat"] },
  LU: { alpha3: "LUX", name: "Luxembourg", aliases: ["Luxemburg", "Lëtzebuerg"] },
  NL: { alpha3: "NLD", name: "Netherlands", aliases: ["The Netherlands", "Nederland"] },
});

/** True when `code` is exactly one of the allowed alpha-2 codes (upper case). */
export function isAllowedCountry(code: string): code is CountryCode {
  return (COUNTRY_CODES as readonly string[]).includes(code);
}

/**
 * Resolves an allowed country from an alpha-2 or alpha-3 code, ignoring case and surrounding spaces.
 * Returns undefined for anything else (unknown codes and codes of countries Mailpiece does not serve).
 */
export function resolveCountry(code: string): CountryCode | undefined {
  const upper = code.trim().toUpperCase();
  if (isAllowedCountry(upper)) return upper;
  for (const alpha2 of COUNTRY_CODES) {
    if (COUNTRY_INFO[alpha2].alpha3 === upper) return alpha2;
  }
  return undefined;
}

/** The English short name of an allowed country ("Germany" for DE). */
export function countryName(code: CountryCode): string {
  return COUNTRY_INFO[code].name;
}

/** Lower case, without accents, dots or repeated spaces: "U.S.A." is "usa", "België" is "belgie". */
export function foldName(text: string): string {
  return text
    .normalize("NFD")
    .replace(/\p{M}/gu, "")
    .replace(/\./g, "")
    .replace(/\s+/g, " ")
    .trim()
    .toLowerCase();
}

/**
 * True when `text` names the country `code`: its alpha-2 or alpha-3 code, its English name or another name in
 * common use ("UK", "Deutschland"), ignoring case, accents and dots.
 */
export function isCountryName(code: CountryCode, text: string): boolean {
  const info = COUNTRY_INFO[code];
  const folded = foldName(text);
  return (
    folded !== "" && [code, info.alpha3, info.name, ...info.aliases].some((name) => foldName(name) === folded)
  );
}
