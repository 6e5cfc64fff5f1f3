/**
 * Characters that can never be printed on a mailpiece, whatever the font: control characters other than tab and
 * line breaks, lone surrogates, private-use characters, noncharacters, and emoji (characters shown as emoji by
 * default, skin-tone modifiers, flag letters, the keycap mark, tag characters, and the symbol blocks
 * U+1F000 to U+1FFFF: emoticons, pictographs, game and transport symbols).
 */
const UNPRINTABLE_CLASS = [
  // Control characters except tab, line feed and carriage return (they print as space).
  "\\x00-\\x08\\x0B\\x0C\\x0E-\\x1F\\x7F-\\x9F",
  "\\p{Cs}\\p{Co}\\p{Emoji_Presentation}\\p{Emoji_Modifier}\\p{Regional_Indicator}\\u20E3",
  // Noncharacters: U+FDD0 to U+FDEF and the last two code points of every plane (plane 1 is in the next range).
  "\\uFDD0-\\uFDEF\\uFFFE\\uFFFF",
  Array.from({ length: 15 }, (_, i) => {
    const plane = (i + 2).toString(16).toUpperCase();
    return `\\u{${plane}FFFE}\\u{${plane}FFFF}`;
  }).join(""),
  "\\u{1F000}-\\u{1FFFF}\\u{E0000}-\\u{E007F}",
].join("");
const ANY_UNPRINTABLE = new RegExp(`[${UNPRINTABLE_CLASS}]`, "u");
const EACH_UNPRINTABLE = new RegExp(`[${UNPRINTABLE_CLASS}]`, "gu");

/**
 * The distinct characters of `text` that cannot be printed on a mailpiece, in order of appearance; empty when every
 * character may be printed. Tab and line breaks are allowed: they print as space.
 */
export function unprintableCharacters(text: string): string[] {
  if (!ANY_UNPRINTABLE.test(text)) return [];
  return [...new Set(Array.from(text.matchAll(EACH_UNPRINTABLE), (match) => match[0]))];
}

/** `"🎉" (U+1F389), "\u0000" (U+0000)`: how a message shows the characters, at most five of them. */
export function describeCharacters(chars: readonly string[]): string {
  const shown = chars.slice(0, 5).map((char) => {
    const code = (char.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, "0");
    return `${JSON.stringify(char)} (U+${code})`;
  });
  const more = chars.length > 5 ? ` and ${chars.length - 5} more` : "";
  return `${shown.join(", ")}${more}`;
}

/** The message for a field holding characters that cannot be printed. */
export function unprintableMessage(label: string, chars: readonly string[]): string {
  return `${label} holds characters that cannot be printed on a mailpiece: ${describeCharacters(chars)}. Remove or replace them.`;
}
