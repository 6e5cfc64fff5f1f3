/**
 * Maps unstorage keys to relative file paths and back, for the atomic file driver.
 *
 * - Each `:`-separated segment becomes one or more path components. A segment before the last becomes a directory
 *   named `<name>+`; the last segment becomes a file named `<name>`. So a key and the keys below it (`a`, `a:b`)
 *   never need one path to be both a file and a directory.
 * - Names keep only `a-z`, `0-9`, `_`, `-` and inner `.`; every other character, a leading or trailing `.`, and
 *   every upper-case letter is percent-encoded (`A` → `%41`). So no name is `.` or `..`, no key leaves the base
 *   directory, and keys differing only in case stay apart on case-insensitive file systems.
 * - A segment too long for one name is split over directories named `<part>=`, keeping every name short.
 * - Names starting with `.` are never produced: they are left for temporary files and the lock file.
 */
export const INNER_MARK = "+";
export const CONTINUED_MARK = "=";
/** Encoded characters per name at most; file systems allow 255 bytes. */
const NAME_LIMIT = 200;
const LITERAL = /^[a-z0-9_-]$/;
/** A name with nothing encoded: literal characters, dots only inside. */
const PLAIN_NAME = /^[a-z0-9_-](?:[a-z0-9._-]*[a-z0-9_-])?$/;

function encodeChar(char: string): string {
  if (LITERAL.test(char)) return char;
  let out = "";
  for (const byte of new TextEncoder().encode(char))
    out += `%${byte.toString(16).toUpperCase().padStart(2, "0")}`;
  return out;
}

/** One name for a piece of a segment. */
export function encodeName(part: string): string {
  const chars = [...part];
  return chars
    .map((char, index) => (char === "." && index > 0 && index < chars.length - 1 ? "." : encodeChar(char)))
    .join("");
}

/** The piece of a segment a name encodes; undefined for a name `encodeName` would not produce. */
export function decodeName(name: string): string | undefined {
  if (name === "") return undefined;
  if (!name.includes("%")) return PLAIN_NAME.test(name) ? name : undefined;
  let part: string;
  try {
    part = decodeURIComponent(name);
  } catch {
    return undefined;
  }
  return encodeName(part) === name ? part : undefined;
}

/** Splits a segment into pieces whose encoded names fit `NAME_LIMIT`. */
function splitSegment(segment: string): string[] {
  const pieces: string[] = [];
  let current = "";
  let cost = 0;
  for (const char of segment) {
    const charCost = char === "." ? 3 : encodeChar(char).length;
    if (current !== "" && cost + charCost > NAME_LIMIT) {
      pieces.push(current);
      current = "";
      cost = 0;
    }
    current += char;
    cost += charCost;
  }
  pieces.push(current);
  return pieces;
}

function segmentComponents(segment: string, last: boolean): string[] {
  if (segment === "") throw new Error(`empty key segment`);
  const names = splitSegment(segment).map(encodeName);
  return names.map((name, index) => {
    if (index < names.length - 1) return `${name}${CONTINUED_MARK}`;
    return last ? name : `${name}${INNER_MARK}`;
  });
}

/** The relative path components of the file holding `key`. */
export function keyToPath(key: string): string[] {
  const segments = key.split(":");
  return segments.flatMap((segment, index) => segmentComponents(segment, index === segments.length - 1));
}

/** The relative path components of the directory holding every key under `base` (whole segments, `a:b`). */
export function baseToPath(base: string): string[] {
  if (base === "") return [];
  return base.split(":").flatMap((segment) => segmentComponents(segment, false));
}

export type NameKind =
  | { kind: "file"; part: string }
  | { kind: "inner"; part: string }
  | { kind: "continued"; part: string }
  | { kind: "other" };

/** What a directory entry is: a key's file, a directory of one of the two kinds, or something to ignore. */
export function classifyName(name: string): NameKind {
  if (name.startsWith(".")) return { kind: "other" };
  const mark = name.at(-1);
  const kind = mark === INNER_MARK ? "inner" : mark === CONTINUED_MARK ? "continued" : "file";
  const part = decodeName(kind === "file" ? name : name.slice(0, -1));
  return part === undefined ? { kind: "other" } : { kind, part };
}
