/**
 * Characters that must never reach a file name shown to people: controls (Cc), format characters such as bidi
 * overrides and zero-width marks (Cf), private use (Co) and lone surrogates (Cs).
 */
const HIDDEN = /[\p{Cc}\p{Cf}\p{Co}\p{Cs}]/gu;

/** The longest display name kept, in characters. */
export const MAX_DISPLAY_NAME = 120;

/**
 * A file name as people see it, made safe to show: the last path segment only, without control, direction or
 * invisible characters, in NFC, at most `MAX_DISPLAY_NAME` characters (the extension kept). It is a label, never
 * a path: documents are stored by their content hash.
 */
export function displayName(raw: string, fallback = "document.pdf"): string {
  const lastSegment = raw.split(/[/\\]/).at(-1) ?? "";
  const clean = lastSegment.replace(HIDDEN, "").normalize("NFC").trim();
  const name = clean.replace(/^\.+/, "").trim();
  if (name === "") return fallback;
  const chars = [...name];
  if (chars.length <= MAX_DISPLAY_NAME) return name;
  const dot = name.lastIndexOf(".");
  const extension = dot > 0 && name.length - dot <= 10 ? name.slice(dot) : "";
  return `${chars.slice(0, MAX_DISPLAY_NAME - [...extension].length - 1).join("")}…${extension}`;
}
