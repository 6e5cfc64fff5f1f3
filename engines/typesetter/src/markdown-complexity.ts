import { count, LETTER_LIMITS, tooComplex } from "./letter-limits.ts";

/** What a markdown letter holds that makes its parser slow: see `LETTER_LIMITS`. */
export interface MarkdownMeasure {
  /** Lines, blank lines included (a final line break does not start another line). */
  lines: number;
  /** The deepest nesting of block quotations and list items on any line; never less than the parser finds. */
  depth: number;
  /** List item markers (a thematic break written `- - -` counts as three). */
  listItems: number;
  /** `*` and `_` characters in runs that can open or close emphasis, by the rules of CommonMark. */
  emphasisMarkers: number;
  /** `[` characters. */
  linkBrackets: number;
}

/**
 * Measures a markdown letter (normalized text, see `normalizeText`) in one pass over its characters, without
 * parsing it.
 *
 * The nesting depth is an upper bound of what the parser builds, never less. A line that is not a lazy continuation
 * holds one block quotation per `>`, one new list item per list marker, and the open list items it continues; each of
 * those is indented by at least two columns, so there are at most half as many as the spaces in the line's prefix,
 * and never more than were open before. A lazy line (a paragraph's continuation that skips markers) opens nothing and
 * closes nothing; a line is surely not lazy after a blank line or when it starts a list item that can interrupt a
 * paragraph, and when a line might be lazy the open items are kept.
 */
export function measureMarkdown(text: string): MarkdownMeasure {
  let lines = 0;
  let depth = 0;
  let listItems = 0;
  /** An upper bound of the list items open after the line just read. */
  let openItems = 0;
  let previousBlank = true;

  for (let start = 0; start < text.length || (start === 0 && lines === 0); ) {
    let end = text.indexOf("\n", start);
    if (end < 0) end = text.length;
    lines++;
    let at = start;
    let spaces = 0;
    let quotes = 0;
    let markers = 0;
    /** Whether the first list marker of the line starts an item that can interrupt a paragraph. */
    let interrupts: boolean | undefined;
    for (;;) {
      const char = text.charCodeAt(at);
      if (at >= end) break;
      if (char === SPACE) {
        spaces++;
        at++;
        continue;
      }
      if (char === GREATER_THAN) {
        quotes++;
        at++;
        continue;
      }
      const markerEnd = listMarkerEnd(text, at, end);
      if (markerEnd < 0) break;
      markers++;
      if (interrupts === undefined) {
        // A bullet list, or an ordered list starting at 1, can interrupt a paragraph unless its first item is empty.
        let digits = at;
        while (isDigit(text.charCodeAt(digits))) digits++;
        const canStartList = digits === at || Number(text.slice(at, digits)) === 1;
        interrupts = canStartList && text.slice(markerEnd, end).trim() !== "";
      }
      at = markerEnd;
    }
    if (at >= end && quotes === 0 && markers === 0) {
      previousBlank = true;
    } else {
      const items = Math.min(openItems, Math.floor(spaces / 2)) + markers;
      depth = Math.max(depth, quotes + items);
      openItems = previousBlank || interrupts === true ? items : Math.max(openItems, items);
      listItems += markers;
      previousBlank = false;
    }
    start = end + 1;
  }
  return {
    lines,
    depth,
    listItems,
    emphasisMarkers: emphasisMarkers(text),
    linkBrackets: countOf(text, "["),
  };
}

/**
 * Refuses a markdown letter beyond `LETTER_LIMITS` with `letter_too_complex` on the field "body", in time linear in
 * its length. Called before the letter is parsed.
 */
export function checkMarkdownComplexity(text: string): void {
  const measure = measureMarkdown(text);
  const limits = LETTER_LIMITS;
  if (measure.depth > limits.markdown_nesting_depth) {
    throw tooComplex(
      `Markdown nests block quotations and lists at most ${limits.markdown_nesting_depth} levels deep; this letter nests ${count(measure.depth)}.`,
    );
  }
  if (measure.lines > limits.markdown_lines) {
    throw tooComplex(
      `A markdown letter has at most ${count(limits.markdown_lines)} lines; this one has ${count(measure.lines)}.`,
    );
  }
  if (measure.listItems > limits.markdown_list_items) {
    throw tooComplex(
      `A markdown letter has at most ${count(limits.markdown_list_items)} list items; this one has ${count(measure.listItems)}.`,
    );
  }
  if (measure.emphasisMarkers > limits.markdown_emphasis_markers) {
    throw tooComplex(
      `A markdown letter has at most ${count(limits.markdown_emphasis_markers)} emphasis markers (the * and _ around bold and italic text); this one has ${count(measure.emphasisMarkers)}.`,
    );
  }
  if (measure.linkBrackets > limits.markdown_link_brackets) {
    throw tooComplex(
      `A markdown letter has at most ${count(limits.markdown_link_brackets)} link brackets ([); this one has ${count(measure.linkBrackets)}.`,
    );
  }
}

const SPACE = 0x20;
const GREATER_THAN = 0x3e;

function isDigit(char: number): boolean {
  return char >= 0x30 && char <= 0x39;
}

/**
 * The index after a list marker starting at `at` and the one space after it (`-`, `+`, `*`, or 1 to 9 digits then
 * `.` or `)`, followed by a space or the line's end), or -1 when there is none.
 */
function listMarkerEnd(text: string, at: number, end: number): number {
  const char = text.charCodeAt(at);
  let next = at;
  if (char === 0x2d || char === 0x2b || char === 0x2a) {
    next = at + 1;
  } else {
    while (next < end && next - at < 9 && isDigit(text.charCodeAt(next))) next++;
    if (next === at) return -1;
    const delimiter = text.charCodeAt(next);
    if (delimiter !== 0x2e && delimiter !== 0x29) return -1;
    next++;
  }
  if (next === end) return next;
  return text.charCodeAt(next) === SPACE ? next + 1 : -1;
}

function countOf(text: string, char: string): number {
  let found = 0;
  for (let at = text.indexOf(char); at >= 0; at = text.indexOf(char, at + 1)) found++;
  return found;
}

const WHITESPACE = /\s/;
const PUNCTUATION = /\p{P}|\p{S}/u;

/** How the markdown parser classes the character around an emphasis run: 1 white space, 2 punctuation, 0 other. */
function classOf(char: string | undefined): 0 | 1 | 2 {
  if (char === undefined || WHITESPACE.test(char)) return 1;
  return PUNCTUATION.test(char) ? 2 : 0;
}

/**
 * The `*` and `_` characters in runs that can open or close emphasis, with the parser's own rules (left- and
 * right-flanking runs; `_` not inside a word).
 */
function emphasisMarkers(text: string): number {
  let total = 0;
  let at = 0;
  while (at < text.length) {
    const char = text[at]!;
    if (char !== "*" && char !== "_") {
      at++;
      continue;
    }
    let end = at + 1;
    while (end < text.length && text[end] === char) end++;
    const before = classOf(codePointBefore(text, at));
    const after = classOf(codePointAt(text, end));
    const open = after === 0 || (after === 2 && before !== 0);
    const close = before === 0 || (before === 2 && after !== 0);
    const opens = char === "*" ? open : open && (before !== 0 || !close);
    const closes = char === "*" ? close : close && (after !== 0 || !open);
    if (opens || closes) total += end - at;
    at = end;
  }
  return total;
}

function codePointAt(text: string, at: number): string | undefined {
  const code = text.codePointAt(at);
  return code === undefined ? undefined : String.fromCodePoint(code);
}

function codePointBefore(text: string, at: number): string | undefined {
  if (at === 0) return undefined;
  const low = text.charCodeAt(at - 1);
  if (low >= 0xdc00 && low <= 0xdfff && at >= 2) {
    const high = text.charCodeAt(at - 2);
    if (high >= 0xd800 && high <= 0xdbff) return text.slice(at - 2, at);
  }
  return text[at - 1];
}
