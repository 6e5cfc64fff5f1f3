import { Encodings, Font } from "@pdf-lib/standard-fonts";

type StandardFontName =
  | "Courier"
  | "Courier-Bold"
  | "Courier-Oblique"
  | "Courier-BoldOblique"
  | "Helvetica"
  | "Helvetica-Bold"
  | "Helvetica-Oblique"
  | "Helvetica-BoldOblique"
  | "Times-Roman"
  | "Times-Bold"
  | "Times-Italic"
  | "Times-BoldItalic"
  | "Symbol"
  | "ZapfDingbats";

/** Glyph widths (in thousandths of an em) by character code, with the font's ascender and descender. */
export interface StandardMetrics {
  widths: (number | undefined)[];
  ascent: number;
  descent: number;
}

/**
 * The metrics of the standard 14 font a simple font without /Widths stands for, read from the Adobe font metrics.
 * The base font name is matched loosely (subset tag, Arial for Helvetica, TimesNewRoman for Times, style words);
 * any other name gets Helvetica's metrics as a stand-in for a proportional font. `differences` maps codes to glyph
 * names from the font's /Encoding /Differences; other codes are read in WinAnsiEncoding (the encoding pdf-lib and
 * most writers use; it agrees with StandardEncoding on letters and digits), or the font's own for Symbol and
 * ZapfDingbats.
 */
export function standardFontMetrics(baseFont: string, differences: Map<number, string>): StandardMetrics {
  const name = standardName(baseFont);
  const font = Font.load(name);
  const encoding =
    name === "Symbol"
      ? Encodings.Symbol
      : name === "ZapfDingbats"
        ? Encodings.ZapfDingbats
        : Encodings.WinAnsi;
  const glyphs: (string | undefined)[] = new Array(256);
  for (const codePoint of encoding.supportedCodePoints) {
    const { code, name: glyph } = encoding.encodeUnicodeCodePoint(codePoint);
    if (code >= 0 && code < 256 && glyphs[code] === undefined) glyphs[code] = glyph;
  }
  for (const [code, glyph] of differences) if (code >= 0 && code < 256) glyphs[code] = glyph;
  const widths = glyphs.map((glyph) =>
    glyph === undefined ? undefined : (font.getWidthOfGlyph(glyph) ?? undefined),
  );
  const [, bboxBottom, , bboxTop] = font.FontBBox;
  return {
    widths,
    ascent: typeof font.Ascender === "number" ? font.Ascender : bboxTop,
    descent: typeof font.Descender === "number" ? font.Descender : bboxBottom,
  };
}

function standardName(baseFont: string): StandardFontName {
  const plain = baseFont
    .replace(/^[A-Z]{6}\+/, "")
    .replace(/[\s_]/g, "")
    .toLowerCase();
  const bold = /bold|black|heavy|semibold|demi/.test(plain);
  const italic = /italic|oblique/.test(plain);
  if (plain.startsWith("symbol")) return "Symbol";
  if (plain.includes("dingbats")) return "ZapfDingbats";
  if (plain.startsWith("courier")) {
    return bold ? (italic ? "Courier-BoldOblique" : "Courier-Bold") : italic ? "Courier-Oblique" : "Courier";
  }
  if (plain.startsWith("times")) {
    return bold ? (italic ? "Times-BoldItalic" : "Times-Bold") : italic ? "Times-Italic" : "Times-Roman";
  }
  return bold
    ? italic
      ? "Helvetica-BoldOblique"
      : "Helvetica-Bold"
    : italic
      ? "Helvetica-Oblique"
      : "Helvetica";
}
