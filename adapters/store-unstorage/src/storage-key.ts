import { isValidKey } from "@mailpiece/ports";

/**
 * Maps Mailpiece keys to unstorage keys and back.
 *
 * unstorage treats `:`, `/` and `\` as separators, collapses repeated separators, strips leading and trailing
 * ones, and refuses `.` and `..` segments. Mailpiece keys may hold all of those shapes (`a::b`, `a:`, `a:..`), so
 * each `:`-separated segment is kept as one unstorage segment and a segment that is empty or made only of dots
 * gets a leading `~` (a character no Mailpiece key contains). The map is one-to-one and keeps segments, so a prefix
 * made of whole segments is also an unstorage base.
 */
const ESCAPE = "~";
const DOTS_ONLY = /^\.+$/;
/** An empty or dots-only segment, which `toStorageKey` would have escaped. */
const UNESCAPED_SEGMENT = /(?:^|:)\.*(?=:|$)/;

function needsEscape(segment: string): boolean {
  return segment === "" || DOTS_ONLY.test(segment);
}

/** The unstorage key for a valid Mailpiece key. */
export function toStorageKey(key: string): string {
  return key
    .split(":")
    .map((segment) => (needsEscape(segment) ? `${ESCAPE}${segment}` : segment))
    .join(":");
}

/** The Mailpiece key for an unstorage key made by `toStorageKey`; undefined for any other key. */
export function fromStorageKey(storageKey: string): string | undefined {
  if (!storageKey.includes(ESCAPE)) {
    return isValidKey(storageKey) && !UNESCAPED_SEGMENT.test(storageKey) ? storageKey : undefined;
  }
  const segments: string[] = [];
  for (const segment of storageKey.split(":")) {
    if (segment.startsWith(ESCAPE)) {
      const inner = segment.slice(ESCAPE.length);
      if (!needsEscape(inner)) return undefined;
      segments.push(inner);
    } else {
      if (needsEscape(segment)) return undefined;
      segments.push(segment);
    }
  }
  const key = segments.join(":");
  return isValidKey(key) ? key : undefined;
}

/**
 * The unstorage base to scan for keys starting with `prefix`: the whole segments before the last `:` of the
 * prefix ("" when it has none). Every key starting with `prefix` lies under it; callers still filter by `prefix`.
 */
export function storageBaseFor(prefix: string): string {
  const end = prefix.lastIndexOf(":");
  return end < 0 ? "" : toStorageKey(prefix.slice(0, end));
}
