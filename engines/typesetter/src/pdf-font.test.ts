import { afterAll, describe, expect, it } from "vitest";
import { createFont } from "./fontkit-adapter.ts";
import { loadFace } from "./fonts.ts";
import { embeddedFonts, fontNames, removeProbeFiles, run, save, textLines } from "./pdf-probe.ts";
import { typesetLetter } from "./typeset-letter.ts";

afterAll(removeProbeFiles);

const RENDER = { font: "times", font_size: 12, margin_in: 1, paper: "letter" } as const;
/** No date line: each PDF holds the body's glyphs only. */
const BARE = { format: "text", render: RENDER, furniture: "none" } as const;

describe("PdfFont", () => {
  it("maps every glyph back to its character, more than the 100 a ToUnicode block holds", async () => {
    const latin = "ABCDEFGHIJKLMNOPQRSTUVWXYZ abcdefghijklmnopqrstuvwxyz 0123456789";
    const greek = "ΑΒΓΔΕΖΗΘΙΚΛΜΝΞΟΠΡΣΤΥΦΧΨΩ αβγδεζηθικλμνξοπρστυφχψω";
    const cyrillic = "АБВГДЕЖЗИЙКЛМНОПРСТУФХЦЧШЩЭЮЯ абвгдежзийклмнопрстуфхцчшщэюя";
    const accents = "ÀÁÂÃÄÅÆÇÈÉÊËÌÍÎÏÑÒÓÔÕÖØÙÚÛÜÝ àáâãäåæçèéêëìíîïñòóôõöøùúûüýÿ Łł Œœ";
    const body = [latin, greek, cyrillic, accents].join("\n");
    const result = await typesetLetter({ body, ...BARE });
    expect(new Set(body.replace(/\s/g, "")).size).toBeGreaterThan(200);
    expect(textLines(result.pdf)).toEqual(body.split("\n"));
  });

  it("embeds each face once, as a TrueType subset holding the glyphs drawn", async () => {
    const result = await typesetLetter({ body: "Dear Ann,\n\nThanks.", ...BARE });
    const listing = run("pdffonts", [save(result.pdf)]);
    expect(listing).toMatch(/^[A-Z]{6}\+Tinos-Regular\s+CID TrueType\s+Identity-H\s+yes yes yes/m);
    expect(fontNames(result.pdf)).toHaveLength(1);
    // A 140 KB font; the subset of ten letters and three marks is a few kilobytes, and so is the whole PDF.
    expect(result.pdf.byteLength).toBeLessThan(12_000);
  });

  it("embeds only the glyphs drawn, each code drawing its character's outline at its width", async () => {
    // Accented capitals and ligature-like letters of Tinos are composite glyphs, built of other glyphs.
    const body = "Dear Zoë, ëÄÅÇÉÑÖÜåçéñöüŁĄĘŻÆǺǻ";
    const result = await typesetLetter({ body, ...BARE });
    expect(textLines(result.pdf)).toEqual([body]);
    const source = (await loadFace("tinos-regular")).font;
    const [embedded, ...others] = await embeddedFonts(result.pdf);
    expect(others).toEqual([]);
    expect(embedded!.baseFont).toMatch(/^[A-Z]{6}\+Tinos-Regular$/);
    const subset = createFont(embedded!.program);
    const drawn = new Set(body);
    // Code 0 is the missing glyph; every other code is one character of the body.
    expect(embedded!.characters.size).toBe(drawn.size);
    expect(new Set(embedded!.characters.values())).toEqual(drawn);
    expect(embedded!.widths).toHaveLength(drawn.size + 1);
    for (const [code, character] of embedded!.characters) {
      const original = source.glyphForCodePoint(character.codePointAt(0)!);
      const copy = subset.getGlyph(code);
      expect(copy.path.toSVG()).toBe(original.path.toSVG());
      expect(copy.advanceWidth).toBe(original.advanceWidth);
      expect(embedded!.widths[code]).toBeCloseTo((original.advanceWidth * 1000) / source.unitsPerEm, 3);
    }
    // The parts of the composite glyphs follow the glyphs drawn; nothing else of the font comes along.
    expect(subset.numGlyphs).toBeGreaterThan(drawn.size + 1);
    expect(subset.numGlyphs).toBeLessThan(2 * (drawn.size + 1));
    expect(subset.numGlyphs).toBeLessThan(source.numGlyphs / 20);
  });

  it("names a subset after its face and the characters it holds", async () => {
    const one = fontNames((await typesetLetter({ body: "abc", ...BARE })).pdf)[0]!;
    const same = fontNames((await typesetLetter({ body: "cab", ...BARE })).pdf)[0]!;
    const other = fontNames((await typesetLetter({ body: "abd", ...BARE })).pdf)[0]!;
    expect(same).toBe(one);
    expect(other).not.toBe(one);
  });
});
