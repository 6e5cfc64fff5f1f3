import { describe, expect, it } from "vitest";
import type { FaceFile } from "./fonts.ts";
import { FAMILY_FACES, HANDWRITING_FACES, loadFace, SIGNATURE_FACE } from "./fonts.ts";
import { HANDWRITING_STYLE_FACES, HANDWRITING_STYLES } from "./handwriting-styles.ts";

describe("loadFace", () => {
  it("reads and parses each font file once and shares the face across letters", async () => {
    const [first, second] = await Promise.all([loadFace("tinos-regular"), loadFace("tinos-regular")]);
    expect(second).toBe(first);
    expect(await loadFace("tinos-regular")).toBe(first);
    expect(first.font).toBe((await loadFace("tinos-regular")).font);
  });

  it("has the four styles of each family and the signature face", async () => {
    const names = async (files: FaceFile[]) =>
      Promise.all(files.map(async (file) => (await loadFace(file)).name));
    expect(await names(Object.values(FAMILY_FACES.times))).toEqual([
      "Tinos-Regular",
      "Tinos-Bold",
      "Tinos-Italic",
      "Tinos-BoldItalic",
    ]);
    expect(await names(Object.values(FAMILY_FACES.helvetica))).toEqual([
      "Arimo-Regular",
      "Arimo-Bold",
      "Arimo-Italic",
      "Arimo-BoldItalic",
    ]);
    expect(await names([SIGNATURE_FACE])).toEqual(["Caveat-Regular"]);
  });

  it("has a face for each handwriting style", async () => {
    const faces = await Promise.all(HANDWRITING_STYLES.map((style) => loadFace(HANDWRITING_FACES[style])));
    expect(faces.map((face) => face.name)).toEqual([
      "Caveat-Regular",
      "PatrickHand-Regular",
      "Kalam-Regular",
    ]);
    expect(faces.map((face) => face.font.familyName)).toEqual(
      HANDWRITING_STYLES.map((style) => HANDWRITING_STYLE_FACES[style].typeface),
    );
  });
});

describe("FontFace", () => {
  it("measures text as the sum of its glyphs' advances, one glyph per character", async () => {
    const face = await loadFace("tinos-regular");
    const text = "Zoë, office — Ελλάδα";
    const units = [...text].reduce(
      (total, char) => total + face.font.glyphForCodePoint(char.codePointAt(0)!).advanceWidth,
      0,
    );
    expect(face.widthOf(text, 12)).toBeCloseTo((units * 12) / face.font.unitsPerEm, 9);
    expect(face.glyphs(text)).toHaveLength([...text].length);
    // No ligature: "ffi" stays three glyphs.
    expect(face.glyphs("ffi").map((glyph) => glyph.codePoints)).toEqual([[102], [102], [105]]);
  });

  it("gives the same glyph object for a character every time", async () => {
    const face = await loadFace("arimo-bold");
    expect(face.glyphs("a")[0]).toBe(face.glyphs("banana")[1]);
    expect(face.glyphs("a")[0]).toMatchObject({ codePoints: [97] });
  });

  it("lists the characters it has no glyph for, astral ones too, once each", async () => {
    const face = await loadFace("tinos-regular");
    expect(face.missing("a 中 b 中 😀\n")).toEqual(["中", "😀"]);
    expect(face.glyphs("😀")).toHaveLength(1);
    expect(face.glyphs("😀")[0]!.id).toBe(0);
  });
});
