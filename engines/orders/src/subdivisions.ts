import { foldName } from "./countries.ts";
/**
 * The state and province codes Mailpiece accepts for US and Canadian addresses, with their full names.
 * US: the USPS two-letter codes of the 50 states, the District of Columbia, the territories AS, GU, MP, PR and VI,
 * and the military codes AA, AE and AP. Canada: the Canada Post codes of the 10 provinces and 3 territories.
 */

/** USPS state, district, territory and military codes with their USPS names. */
export const US_STATES: Readonly<Record<string, string>> = Object.freeze({
  AL: "Alabama",
  AK: "Alaska",
  AZ: "Arizona",
  AR: "Arkansas",
  CA: "California",
  CO: "Colorado",
  CT: "Connecticut",
  DE: "Delaware",
  FL: "Florida",
  GA: "Georgia",
  HI: "Hawaii",
  ID: "Idaho",
  IL: "Illinois",
  IN: "Indiana",
  IA: "Iowa",
  KS: "Kansas",
  KY: "Kentucky",
  LA: "Louisiana",
  ME: "Maine",
  MD: "Maryland",
  MA: "Massachusetts",
  MI: "Michigan",
  MN: "Minnesota",
  MS: "Mississippi",
  MO: "Missouri",
  MT: "Montana",
  NE: "Nebraska",
  NV: "Nevada",
  NH: "New Hampshire",
  NJ: "New Jersey",
  NM: "New Mexico",
  NY: "New York",
  NC: "North Carolina",
  ND: "North Dakota",
  OH: "Ohio",
  OK: "Oklahoma",
  OR: "Oregon",
  PA: "Pennsylvania",
  RI: "Rhode Island",
  SC: "South Carolina",
  SD: "South Dakota",
  TN: "Tennessee",
  TX: "Texas",
  UT: "Utah",
  VT: "Vermont",
  VA: "Virginia",
  WA: "Washington",
  WV: "West Virginia",
  WI: "Wisconsin",
  WY: "Wyoming",
  DC: "District of Columbia",
  AS: "American Samoa",
  GU: "Guam",
  MP: "Northern Mariana Islands",
  PR: "Puerto Rico",
  VI: "Virgin Islands",
  AA: "Armed Forces Americas",
  AE: "Armed Forces Europe",
  AP: "Armed Forces Pacific",
});

/** Canada Post province and territory codes with their English names. */
export const CA_PROVINCES: Readonly<Record<string, string>> = Object.freeze({
  AB: "Alberta",
  BC: "British Columbia",
  MB: "Manitoba",
  NB: "New Brunswick",
  NL: "Newfoundland and Labrador",
  NS: "Nova Scotia",
  NT: "Northwest Territories",
  NU: "Nunavut",
  ON: "Ontario",
  PE: "Prince Edward Island",
  QC: "Quebec",
  SK: "Saskatchewan",
  YT: "Yukon",
});

/** Other names in common use, mapped to their code. */
const ALIASES: Readonly<Record<"US" | "CA", Readonly<Record<string, string>>>> = Object.freeze({
  US: Object.freeze({
    "us virgin islands": "VI",
    "united states virgin islands": "VI",
    "armed forces africa": "AE",
    "armed forces canada": "AE",
    "armed forces middle east": "AE",
  }),
  CA: Object.freeze({ "yukon territory": "YT" }),
});

const LISTS = { US: US_STATES, CA: CA_PROVINCES } as const;

/** The countries whose addresses carry a checked state or province code. */
export type SubdivisionCountry = keyof typeof LISTS;

export function hasSubdivisionList(country: string): country is SubdivisionCountry {
  return country === "US" || country === "CA";
}

const BY_NAME: Readonly<Record<SubdivisionCountry, ReadonlyMap<string, string>>> = {
  US: indexOf("US"),
  CA: indexOf("CA"),
};

function indexOf(country: SubdivisionCountry): ReadonlyMap<string, string> {
  const index = new Map<string, string>();
  for (const [code, name] of Object.entries(LISTS[country])) {
    index.set(foldName(code), code);
    index.set(foldName(name), code);
  }
  for (const [alias, code] of Object.entries(ALIASES[country])) index.set(foldName(alias), code);
  return index;
}

/**
 * The code of a US state (or district, territory, military code) or Canadian province (or territory), from its
 * code or full name in any case, accents and dots ignored: "Illinois" and "il" give "IL", "british columbia" gives
 * "BC", "Québec" gives "QC". Undefined when the value names none of them.
 */
export function resolveSubdivision(country: SubdivisionCountry, value: string): string | undefined {
  const list = LISTS[country];
  // Most values are codes already: look them up before folding.
  if (Object.hasOwn(list, value)) return value;
  return BY_NAME[country].get(foldName(value));
}

/** The full name of a code resolved by resolveSubdivision ("Illinois" for IL). */
export function subdivisionName(country: SubdivisionCountry, code: string): string | undefined {
  const list = LISTS[country];
  return Object.hasOwn(list, code) ? list[code] : undefined;
}
