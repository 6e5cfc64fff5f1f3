/**
 * Text rules shared by indexing and search: one normal form for every token, so that case, accents, punctuation
 * and the common street abbreviations never decide whether an address is found.
 */

/** Abbreviations and their full word; a token is indexed and searched in its full form. */
export const TOKEN_EQUIVALENTS: Readonly<Record<string, string>> = Object.freeze({
  av: "avenue",
  ave: "avenue",
  avn: "avenue",
  st: "street",
  str: "street",
  rd: "road",
  blvd: "boulevard",
  dr: "drive",
  ln: "lane",
  ct: "court",
  pl: "place",
  ter: "terrace",
  terr: "terrace",
  pkwy: "parkway",
  hwy: "highway",
  sq: "square",
  cir: "circle",
  trl: "trail",
  aly: "alley",
  expy: "expressway",
  fwy: "freeway",
  hts: "heights",
  mt: "mount",
  ft: "fort",
  n: "north",
  s: "south",
  e: "east",
  w: "west",
  ne: "northeast",
  nw: "northwest",
  se: "southeast",
  sw: "southwest",
  apt: "apartment",
  ste: "suite",
  fl: "floor",
  rm: "room",
  bldg: "building",
});

const LETTERS_WITHOUT_DECOMPOSITION: Readonly<Record<string, string>> = {
  ß: "ss",
  æ: "ae",
  œ: "oe",
  ø: "o",
  đ: "d",
  ð: "d",
  ł: "l",
  ı: "i",
  þ: "th",
};

/**
 * The searchable form of a text: lower case, accents removed, apostrophes dropped ("O'Farrell" is "ofarrell"),
 * every other run of characters that are neither letters nor digits turned into one space, trimmed.
 */
export function normalizeText(text: string): string {
  return text
    .normalize("NFKD")
    .replace(/\p{M}+/gu, "")
    .toLowerCase()
    .replace(/[ßæœøđðłıþ]/g, (c) => LETTERS_WITHOUT_DECOMPOSITION[c] ?? c)
    .replace(/['’`]/g, "")
    .replace(/[^\p{L}\p{N}]+/gu, " ")
    .trim();
}

/** The full form of one normalized token ("ave" is "avenue"); other tokens are their own full form. */
export function canonicalToken(token: string): string {
  return TOKEN_EQUIVALENTS[token] ?? token;
}

/** The normalized words of a text, as written (abbreviations kept). */
export function words(text: string): string[] {
  const normal = normalizeText(text);
  return normal === "" ? [] : normal.split(" ");
}

/** The index tokens of a text: its words in full form. */
export function indexTokens(text: string): string[] {
  return words(text).map(canonicalToken);
}

/** One key for texts that name the same thing: "FIFTH AVE." and "Fifth Avenue" are "fifth avenue". */
export function canonicalKey(text: string): string {
  return indexTokens(text).join(" ");
}

/** Collapses runs of white space into one space and trims. */
export function tidy(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}

/**
 * A name written all in capitals, as many address sources write them, in title case ("FIFTH AVE" is "Fifth Ave",
 * "W 34TH ST" is "W 34th St", "O'FARRELL" is "O'Farrell"); a name with any lower-case letter is kept as written.
 */
export function displayCase(text: string): string {
  const value = tidy(text);
  if (/\p{Ll}/u.test(value)) return value;
  return value
    .toLowerCase()
    .replace(/(^|[\s\-'’(/])(\p{L})/gu, (_, before: string, letter: string) => before + letter.toUpperCase());
}

/**
 * Orders house numbers and units as a person reads them: the empty text first, then by their leading integer ("9"
 * before "10", "10" before "10A"), then by text.
 */
export function naturalCompare(a: string, b: string): number {
  if (a === "" || b === "") return a === b ? 0 : a === "" ? -1 : 1;
  const na = leadingInteger(a);
  const nb = leadingInteger(b);
  if (na !== nb) return na - nb;
  return a < b ? -1 : a > b ? 1 : 0;
}

function leadingInteger(text: string): number {
  const match = /^\D*(\d{1,15})/.exec(text);
  return match ? Number(match[1]) : Number.MAX_SAFE_INTEGER;
}

/** True when `a` and `b` differ by exactly one inserted, deleted or replaced character, or two swapped neighbours. */
export function oneEditApart(a: string, b: string): boolean {
  const la = a.length;
  const lb = b.length;
  if (Math.abs(la - lb) > 1 || a === b) return false;
  let i = 0;
  while (i < la && i < lb && a.charCodeAt(i) === b.charCodeAt(i)) i++;
  if (la === lb) {
    if (a.slice(i + 1) === b.slice(i + 1)) return true;
    return a[i] === b[i + 1] && a[i + 1] === b[i] && a.slice(i + 2) === b.slice(i + 2);
  }
  return la > lb ? a.slice(i + 1) === b.slice(i) : a.slice(i) === b.slice(i + 1);
}
