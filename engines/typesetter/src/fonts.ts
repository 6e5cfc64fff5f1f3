import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import type { Font } from "fontkit";
import type { InlineStyle } from "./blocks.ts";
import { createFont } from "./fontkit-adapter.ts";
import type { HandwritingStyle } from "./handwriting-styles.ts";

/** The body fonts a letter may ask for: Tinos is metric-compatible with Times, Arimo with Helvetica/Arial. */
export type FontFamily = "times" | "helvetica";

/**
 * What a face is used for: body text in one of its styles, or the handwriting face ("signature"): a letter's typed
 * signature, or the message of a handwritten card.
 */
export type FaceRole = InlineStyle | "signature";

/** A glyph as the PDF draws it: its id in the font, the characters it stands for, its advance in font units. */
export interface PdfGlyph {
  readonly id: number;
  readonly codePoints: readonly number[];
  readonly advanceWidth: number;
}

/**
 * A font face, measured the way it is drawn: one glyph per character from the font's character map, advanced by the
 * glyph's own width. No shaping: no ligatures and no kerning (Tinos and Arimo apply neither to Latin, Greek and
 * Cyrillic text by default), so a width is the plain sum of its glyphs' advances.
 */
export interface FontFace {
  /** PostScript name, e.g. "Tinos-Regular". */
  readonly name: string;
  /** The parsed TrueType font, shared read-only by every letter; the PDF embeds a subset of it. */
  readonly font: Font;
  /** Ascender, descender (positive) and cap height as fractions of the font size. */
  readonly ascent: number;
  readonly descent: number;
  readonly capHeight: number;
  /** Width in points of `text` set at `size` points. */
  widthOf(text: string, size: number): number;
  /** The distinct characters of `text` this face has no glyph for, in order of appearance. */
  missing(text: string): string[];
  /** The glyphs that draw `text`, one per character. */
  glyphs(text: string): PdfGlyph[];
}

/** The font files Mailpiece embeds (SIL Open Font License), by face. */
export type FaceFile =
  | "tinos-regular"
  | "tinos-bold"
  | "tinos-italic"
  | "tinos-bold-italic"
  | "arimo-regular"
  | "arimo-bold"
  | "arimo-italic"
  | "arimo-bold-italic"
  | "caveat-regular"
  | "patrick-hand-regular"
  | "kalam-regular";

const FILES: Record<FaceFile, string> = {
  "tinos-regular": "@expo-google-fonts/tinos/400Regular/Tinos_400Regular.ttf",
  "tinos-bold": "@expo-google-fonts/tinos/700Bold/Tinos_700Bold.ttf",
  "tinos-italic": "@expo-google-fonts/tinos/400Regular_Italic/Tinos_400Regular_Italic.ttf",
  "tinos-bold-italic": "@expo-google-fonts/tinos/700Bold_Italic/Tinos_700Bold_Italic.ttf",
  "arimo-regular": "@expo-google-fonts/arimo/400Regular/Arimo_400Regular.ttf",
  "arimo-bold": "@expo-google-fonts/arimo/700Bold/Arimo_700Bold.ttf",
  "arimo-italic": "@expo-google-fonts/arimo/400Regular_Italic/Arimo_400Regular_Italic.ttf",
  "arimo-bold-italic": "@expo-google-fonts/arimo/700Bold_Italic/Arimo_700Bold_Italic.ttf",
  "caveat-regular": "@expo-google-fonts/caveat/400Regular/Caveat_400Regular.ttf",
  "patrick-hand-regular": "@expo-google-fonts/patrick-hand/400Regular/PatrickHand_400Regular.ttf",
  "kalam-regular": "@expo-google-fonts/kalam/400Regular/Kalam_400Regular.ttf",
};

/** The faces of each body family, by inline style. */
export const FAMILY_FACES: Record<FontFamily, Record<InlineStyle, FaceFile>> = {
  times: {
    regular: "tinos-regular",
    bold: "tinos-bold",
    italic: "tinos-italic",
    "bold-italic": "tinos-bold-italic",
  },
  helvetica: {
    regular: "arimo-regular",
    bold: "arimo-bold",
    italic: "arimo-italic",
    "bold-italic": "arimo-bold-italic",
  },
};

/** Caveat, a handwriting face for typed signatures. */
export const SIGNATURE_FACE: FaceFile = "caveat-regular";

/** The face of each handwriting style of a handwritten card. */
export const HANDWRITING_FACES: Readonly<Record<HandwritingStyle, FaceFile>> = {
  casual: "caveat-regular",
  neat: "patrick-hand-regular",
  slanted: "kalam-regular",
};

const resolve = createRequire(import.meta.url).resolve;

/**
 * Read-only cache of the faces: each font file is read and parsed once per process and then shared by every letter.
 * A face never changes after it is made; its glyph table fills in lazily from the font, which gives the same glyph
 * for a character every time.
 */
const FACES = new Map<FaceFile, Promise<FontFace>>();

/** The face of one font file, read and parsed on first use and cached for the life of the process. */
export function loadFace(file: FaceFile): Promise<FontFace> {
  let face = FACES.get(file);
  if (face === undefined) {
    face = readFile(resolve(FILES[file])).then((buffer) => createFace(new Uint8Array(buffer)));
    face.catch(() => FACES.delete(file));
    FACES.set(file, face);
  }
  return face;
}

const NOT_FOUND = 0;

export function createFace(bytes: Uint8Array): FontFace {
  const font = createFont(bytes);
  const unitsPerEm = font.unitsPerEm;
  /** Glyphs by code point, filled in as characters are first asked for: an array for the BMP, a map beyond. */
  const basic: (PdfGlyph | undefined)[] = new Array(0x10000);
  const astral = new Map<number, PdfGlyph>();
  const lookUp = (codePoint: number): PdfGlyph => {
    const found = font.glyphForCodePoint(codePoint);
    return Object.freeze({
      id: found.id,
      codePoints: Object.freeze([codePoint]),
      advanceWidth: found.advanceWidth,
    });
  };
  const glyphOf = (codePoint: number): PdfGlyph => {
    if (codePoint < 0x10000) {
      let glyph = basic[codePoint];
      if (glyph === undefined) {
        glyph = lookUp(codePoint);
        basic[codePoint] = glyph;
      }
      return glyph;
    }
    let glyph = astral.get(codePoint);
    if (glyph === undefined) {
      glyph = lookUp(codePoint);
      astral.set(codePoint, glyph);
    }
    return glyph;
  };
  return {
    name: font.postscriptName,
    font,
    ascent: font.ascent / unitsPerEm,
    descent: -font.descent / unitsPerEm,
    capHeight: (font.capHeight || font.ascent) / unitsPerEm,
    widthOf: (text, size) => {
      let units = 0;
      for (let index = 0; index < text.length; index++) {
        const code = text.codePointAt(index)!;
        if (code > 0xffff) index++;
        units += glyphOf(code).advanceWidth;
      }
      return (units * size) / unitsPerEm;
    },
    missing: (text) => {
      const found: string[] = [];
      for (const char of new Set(text)) {
        if (char !== " " && char !== "\n" && glyphOf(char.codePointAt(0)!).id === NOT_FOUND) found.push(char);
      }
      return found;
    },
    glyphs: (text) => {
      const glyphs: PdfGlyph[] = [];
      for (let index = 0; index < text.length; index++) {
        const code = text.codePointAt(index)!;
        if (code > 0xffff) index++;
        glyphs.push(glyphOf(code));
      }
      return glyphs;
    },
  };
}
