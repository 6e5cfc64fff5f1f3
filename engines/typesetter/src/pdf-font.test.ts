import { afterAll, describe, expect, it } from "vitest";
import { fontNames, removeProbeFiles, run, save, textLines } from "./pdf-probe.ts";
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

  it("names a subset after its face and the characters it holds", async () => {
    const one = fontNames((await typesetLetter({ body: "abc", ...BARE })).pdf)[0]!;
    const same = fontNames((await typesetLetter({ body: "cab", ...BARE })).pdf)[0]!;
    const other = fontNames((await typesetLetter({ body: "abd", ...BARE })).pdf)[0]!;
    expect(same).toBe(one);
    expect(other).not.toBe(one);
  });
});
