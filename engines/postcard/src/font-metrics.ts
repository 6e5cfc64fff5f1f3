import { PDFArray, type PDFDict, type PDFObject, PDFStream } from "pdf-lib";
import { readOperations } from "./content-tokenizer.ts";
import { nameOf, numberOf, type PdfReader, streamData } from "./pdf-objects.ts";
import { standardFontMetrics } from "./standard-font-metrics.ts";

/** How much room a font's glyphs take, in text space units per unit of font size (ems). */
export interface FontMetrics {
  /** Height above the baseline (positive) and below it (negative) of the font's glyphs, in ems. */
  ascent: number;
  descent: number;
  /** Writing mode 1: glyphs advance downwards. */
  vertical: boolean;
  /** Vertical advance of every glyph in vertical mode, in ems (negative: downwards). */
  verticalAdvance: number;
  /**
   * Calls `glyph` for each character code in a shown string with its horizontal width in ems, and whether it is the
   * single-byte code 32, to which word spacing applies.
   */
  forEachGlyph(bytes: Uint8Array, glyph: (width: number, wordSpace: boolean) => void): void;
}

/** Used when a font cannot be found or says nothing about its widths: a typical proportional glyph. */
const FALLBACK_WIDTH = 0.6;
const FALLBACK_ASCENT = 0.75;
const FALLBACK_DESCENT = -0.25;

/** Metrics for text shown with no usable font: fixed-width glyphs of typical size. */
export const FALLBACK_FONT: FontMetrics = Object.freeze({
  ascent: FALLBACK_ASCENT,
  descent: FALLBACK_DESCENT,
  vertical: false,
  verticalAdvance: -1,
  forEachGlyph(bytes: Uint8Array, glyph: (width: number, wordSpace: boolean) => void) {
    for (const byte of bytes) glyph(FALLBACK_WIDTH, byte === 32);
  },
});

/**
 * Reads the metrics of a font dictionary: /Widths of simple fonts (scaled by /FontMatrix for Type 3), /W and /DW of
 * the descendant of a Type 0 font with its code lengths from the CMap's codespace ranges, the standard 14 font
 * metrics for simple fonts without widths, and ascent and descent from the font descriptor.
 */
export function fontMetrics(reader: PdfReader, font: PDFDict): FontMetrics {
  return reader.name(font, "Subtype") === "Type0"
    ? compositeMetrics(reader, font)
    : simpleMetrics(reader, font);
}

function simpleMetrics(reader: PdfReader, font: PDFDict): FontMetrics {
  const subtype = reader.name(font, "Subtype");
  const descriptor = reader.dict(reader.get(font, "FontDescriptor"));
  const fontMatrix = subtype === "Type3" ? reader.numbers(font, "FontMatrix", 6) : undefined;
  // Glyph space to text space: thousandths of an em, or /FontMatrix for Type 3 fonts.
  const scale = (n: number) => (fontMatrix === undefined ? n / 1000 : n * fontMatrix[0]!);
  const yScale = (n: number) => (fontMatrix === undefined ? n / 1000 : n * fontMatrix[3]!);
  const widths = reader.numbers(font, "Widths");
  const firstChar = reader.number(font, "FirstChar") ?? 0;
  const missing = reader.number(descriptor, "MissingWidth");
  let table: (number | undefined)[];
  const fallback = missing !== undefined && missing > 0 ? scale(missing) : FALLBACK_WIDTH;
  let extent = extentFromDescriptor(reader, descriptor, yScale);
  if (widths !== undefined) {
    table = new Array(256);
    for (let i = 0; i < widths.length; i++) {
      const code = firstChar + i;
      if (code >= 0 && code < 256) table[code] = scale(widths[i]!);
    }
  } else {
    const standard = standardFontMetrics(reader.name(font, "BaseFont") ?? "", differences(reader, font));
    table = standard.widths.map((w) => (w === undefined ? undefined : w / 1000));
    extent ??= { ascent: standard.ascent / 1000, descent: standard.descent / 1000 };
  }
  if (extent === undefined && subtype === "Type3") {
    const bbox = reader.numbers(font, "FontBBox", 4);
    if (bbox !== undefined && bbox[1] !== bbox[3]) {
      extent = {
        ascent: yScale(Math.max(bbox[1]!, bbox[3]!)),
        descent: yScale(Math.min(bbox[1]!, bbox[3]!)),
      };
    }
  }
  return {
    ascent: extent?.ascent ?? FALLBACK_ASCENT,
    descent: extent?.descent ?? FALLBACK_DESCENT,
    vertical: false,
    verticalAdvance: -1,
    forEachGlyph(bytes, glyph) {
      for (const code of bytes) glyph(table[code] ?? fallback, code === 32);
    },
  };
}

/** Ascent and descent in ems from a font descriptor's /Ascent and /Descent, else its /FontBBox. */
function extentFromDescriptor(
  reader: PdfReader,
  descriptor: PDFDict | undefined,
  yScale: (n: number) => number,
): { ascent: number; descent: number } | undefined {
  if (descriptor === undefined) return undefined;
  const ascent = reader.number(descriptor, "Ascent");
  const descent = reader.number(descriptor, "Descent");
  if (ascent !== undefined && descent !== undefined && (ascent !== 0 || descent !== 0)) {
    return { ascent: yScale(Math.max(ascent, 0)), descent: yScale(Math.min(descent, 0)) };
  }
  const bbox = reader.numbers(descriptor, "FontBBox", 4);
  if (bbox !== undefined && bbox[1] !== bbox[3]) {
    return { ascent: yScale(Math.max(bbox[1]!, bbox[3]!)), descent: yScale(Math.min(bbox[1]!, bbox[3]!)) };
  }
  return undefined;
}

/** Codes renamed by /Encoding /Differences: [code /name /name code /name ...]. */
function differences(reader: PdfReader, font: PDFDict): Map<number, string> {
  const out = new Map<number, string>();
  const encoding = reader.dict(reader.get(font, "Encoding"));
  const items = reader.array(encoding, "Differences");
  if (items === undefined) return out;
  let code = 0;
  for (const item of items) {
    const n = numberOf(item);
    if (n !== undefined) {
      code = n;
      continue;
    }
    const name = nameOf(item);
    if (name !== undefined) out.set(code++, name);
  }
  return out;
}

/** A codespace range: a code of `low.length` bytes is in it when each byte lies between those of low and high. */
interface CodeRange {
  low: Uint8Array;
  high: Uint8Array;
}

function compositeMetrics(reader: PdfReader, font: PDFDict): FontMetrics {
  const encodingObject = reader.get(font, "Encoding");
  let ranges: CodeRange[] = [];
  let vertical = false;
  const encodingName = nameOf(encodingObject);
  if (encodingName !== undefined) {
    vertical = encodingName.endsWith("-V");
  } else if (encodingObject instanceof PDFStream) {
    ranges = codespaceRanges(streamData(encodingObject));
    vertical = reader.number(encodingObject.dict, "WMode") === 1;
  }
  const descendants = reader.array(font, "DescendantFonts");
  const cidFont = reader.dict(descendants?.[0]);
  const defaultWidth = (reader.number(cidFont, "DW") ?? 1000) / 1000;
  const widths = cidWidths(reader, reader.array(cidFont, "W"));
  const dw2 = reader.numbers(cidFont, "DW2", 2);
  const extent = extentFromDescriptor(
    reader,
    reader.dict(reader.get(cidFont, "FontDescriptor")),
    (n) => n / 1000,
  );
  const codeLength =
    ranges.length === 0 ? () => 2 : (bytes: Uint8Array, at: number) => matchRange(ranges, bytes, at);
  return {
    ascent: extent?.ascent ?? FALLBACK_ASCENT,
    descent: extent?.descent ?? FALLBACK_DESCENT,
    vertical,
    verticalAdvance: (dw2?.[1] ?? -1000) / 1000,
    forEachGlyph(bytes, glyph) {
      for (let at = 0; at < bytes.length; ) {
        const length = Math.min(codeLength(bytes, at), bytes.length - at);
        let code = 0;
        for (let i = 0; i < length; i++) code = code * 256 + bytes[at + i]!;
        at += length;
        glyph(widths(code) ?? defaultWidth, length === 1 && code === 32);
      }
    },
  };
}

/** Widths by CID from a /W array: `c [w1 w2 ...]` and `cfirst clast w` entries, in ems. */
function cidWidths(reader: PdfReader, items: PDFObject[] | undefined): (cid: number) => number | undefined {
  const singles = new Map<number, number>();
  const spans: [number, number, number][] = [];
  if (items !== undefined) {
    for (let i = 0; i < items.length; ) {
      const first = numberOf(items[i]);
      const next = items[i + 1];
      if (first === undefined || next === undefined) break;
      const list = reader.resolve(next);
      if (list instanceof PDFArray) {
        list.asArray().forEach((w, k) => {
          const width = numberOf(reader.resolve(w));
          if (width !== undefined) singles.set(first + k, width / 1000);
        });
        i += 2;
      } else {
        const last = numberOf(list);
        const width = numberOf(reader.resolve(items[i + 2]));
        if (last === undefined || width === undefined) break;
        spans.push([first, last, width / 1000]);
        i += 3;
      }
    }
  }
  return (cid) => {
    const single = singles.get(cid);
    if (single !== undefined) return single;
    for (const [first, last, width] of spans) if (cid >= first && cid <= last) return width;
    return undefined;
  };
}

/** The codespace ranges of an embedded CMap: the hex string pairs of its `begincodespacerange` sections. */
function codespaceRanges(cmap: Uint8Array): CodeRange[] {
  const ranges: CodeRange[] = [];
  for (const { operator, operands } of readOperations(cmap)) {
    if (operator !== "endcodespacerange") continue;
    for (let i = 0; i + 1 < operands.length; i += 2) {
      const low = operands[i];
      const high = operands[i + 1];
      if (isBytes(low) && isBytes(high) && low.bytes.length === high.bytes.length && low.bytes.length > 0) {
        ranges.push({ low: low.bytes, high: high.bytes });
      }
    }
  }
  return ranges.filter((r) => r.low.length <= 4);
}

function isBytes(value: unknown): value is { type: "string"; bytes: Uint8Array } {
  return typeof value === "object" && value !== null && (value as { type?: unknown }).type === "string";
}

/** The length of the code at `at`: the shortest range it fits, else the shortest range length. */
function matchRange(ranges: CodeRange[], bytes: Uint8Array, at: number): number {
  let shortest = 4;
  for (let length = 1; length <= 4; length++) {
    for (const { low, high } of ranges) {
      if (low.length !== length) continue;
      shortest = Math.min(shortest, length);
      if (at + length > bytes.length) continue;
      let inside = true;
      for (let i = 0; i < length && inside; i++) {
        const b = bytes[at + i]!;
        inside = b >= low[i]! && b <= high[i]!;
      }
      if (inside) return length;
    }
  }
  return shortest;
}
