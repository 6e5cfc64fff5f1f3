import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { createFont } from "./fontkit-adapter.ts";

/** The body fonts a letter may ask for: Tinos is metric-compatible with Times, Arimo with Helvetica/Arial. */
export type FontFamily = "times" | "helvetica";

/** What a face is used for in a letter. */
export type FaceRole = "regular" | "bold" | "signature";

/** A font face, measured the way pdf-lib draws it: glyph advances from the font's own layout, no kerning. */
export interface FontFace {
  /** PostScript name, e.g. "Tinos-Regular". */
  readonly name: string;
  /** The TrueType file, embedded as a subset when the PDF is written. */
  readonly bytes: Uint8Array;
  /** Ascender, descender (positive) and cap height as fractions of the font size. */
  readonly ascent: number;
  readonly descent: number;
  readonly capHeight: number;
  /** Width in points of `text` set at `size` points. */
  widthOf(text: string, size: number): number;
  /** The distinct characters of `text` this face has no glyph for, in order of appearance. */
  missing(text: string): string[];
}

/** The font files Mailpiece embeds (SIL Open Font License), by face. */
export type FaceFile = "tinos-regular" | "tinos-bold" | "arimo-regular" | "arimo-bold" | "caveat-regular";

const FILES: Record<FaceFile, string> = {
  "tinos-regular": "@expo-google-fonts/tinos/400Regular/Tinos_400Regular.ttf",
  "tinos-bold": "@expo-google-fonts/tinos/700Bold/Tinos_700Bold.ttf",
  "arimo-regular": "@expo-google-fonts/arimo/400Regular/Arimo_400Regular.ttf",
  "arimo-bold": "@expo-google-fonts/arimo/700Bold/Arimo_700Bold.ttf",
  "caveat-regular": "@expo-google-fonts/caveat/400Regular/Caveat_400Regular.ttf",
};

/** The regular and bold faces of each body family. */
export const FAMILY_FACES: Record<FontFamily, { regular: FaceFile; bold: FaceFile }> = {
  times: { regular: "tinos-regular", bold: "tinos-bold" },
  helvetica: { regular: "arimo-regular", bold: "arimo-bold" },
};

/** Caveat, a handwriting face for typed signatures. */
export const SIGNATURE_FACE: FaceFile = "caveat-regular";

const resolve = createRequire(import.meta.url).resolve;

/** Reads and parses one face from its font package. */
export async function loadFace(file: FaceFile): Promise<FontFace> {
  const bytes = new Uint8Array(await readFile(resolve(FILES[file])));
  return createFace(bytes);
}

export function createFace(bytes: Uint8Array): FontFace {
  const font = createFont(bytes);
  const unitsPerEm = font.unitsPerEm;
  const widths = new Map<string, number>();
  const advance = (text: string): number => {
    let units = widths.get(text);
    if (units === undefined) {
      units = 0;
      for (const glyph of font.layout(text).glyphs) units += glyph.advanceWidth;
      widths.set(text, units);
    }
    return units;
  };
  return {
    name: font.postscriptName,
    bytes,
    ascent: font.ascent / unitsPerEm,
    descent: -font.descent / unitsPerEm,
    capHeight: (font.capHeight || font.ascent) / unitsPerEm,
    widthOf: (text, size) => (advance(text) * size) / unitsPerEm,
    missing: (text) => {
      const found: string[] = [];
      for (const char of new Set(text)) {
        if (char !== " " && char !== "\n" && !font.hasGlyphForCodePoint(char.codePointAt(0)!))
          found.push(char);
      }
      return found;
    },
  };
}
