import { PDFDocument } from "pdf-lib";
import { describe, expect, it } from "vitest";
import { FALLBACK_FONT, type FontMetrics, fontMetrics } from "./font-metrics.ts";
import { PdfReader } from "./pdf-objects.ts";
import { pdfDict } from "./postcards.fixture.ts";

async function setup() {
  const doc = await PDFDocument.create();
  const reader = new PdfReader(doc.context);
  const dict = (entries: Record<string, unknown>) => pdfDict(doc, entries);
  return { doc, reader, dict };
}

function glyphs(font: FontMetrics, bytes: number[]): [number, boolean][] {
  const out: [number, boolean][] = [];
  font.forEachGlyph(Uint8Array.from(bytes), (width, wordSpace) => out.push([width, wordSpace]));
  return out;
}

const codes = (s: string) => [...s].map((c) => c.charCodeAt(0));

describe("fontMetrics: simple fonts", () => {
  it("reads /Widths from /FirstChar and /MissingWidth for codes outside them", async () => {
    const { reader, dict } = await setup();
    const font = fontMetrics(
      reader,
      dict({
        Type: "Font",
        Subtype: "TrueType",
        BaseFont: "ABCDEF+Lora",
        FirstChar: 65,
        LastChar: 66,
        Widths: [700, 650],
        FontDescriptor: { Ascent: 900, Descent: -250, MissingWidth: 400 },
      }),
    );
    expect(glyphs(font, [65, 66, 32, 200])).toEqual([
      [0.7, false],
      [0.65, false],
      [0.4, true],
      [0.4, false],
    ]);
    expect([font.ascent, font.descent]).toEqual([0.9, -0.25]);
  });

  it("measures a standard 14 font without /Widths by its Adobe metrics in WinAnsiEncoding", async () => {
    const { reader, dict } = await setup();
    const helvetica = fontMetrics(reader, dict({ Type: "Font", Subtype: "Type1", BaseFont: "Helvetica" }));
    // W 944, i 222, space 278, Euro (0x80 in WinAnsi) 556.
    expect(glyphs(helvetica, [...codes("Wi "), 0x80]).map(([w]) => w)).toEqual([0.944, 0.222, 0.278, 0.556]);
    expect([helvetica.ascent, helvetica.descent]).toEqual([0.718, -0.207]);
    const courier = fontMetrics(reader, dict({ Type: "Font", Subtype: "Type1", BaseFont: "Courier-Bold" }));
    expect(glyphs(courier, codes("Wi")).map(([w]) => w)).toEqual([0.6, 0.6]);
    const arialBold = fontMetrics(
      reader,
      dict({ Type: "Font", Subtype: "TrueType", BaseFont: "Arial,Bold" }),
    );
    expect(glyphs(arialBold, codes("i")).map(([w]) => w)).toEqual([0.278]);
  });

  it("follows /Encoding /Differences for a standard font", async () => {
    const { reader, dict } = await setup();
    const font = fontMetrics(
      reader,
      dict({
        Type: "Font",
        Subtype: "Type1",
        BaseFont: "Times-Roman",
        Encoding: { Type: "Encoding", BaseEncoding: "WinAnsiEncoding", Differences: [65, "W", "period"] },
      }),
    );
    // Times-Roman: W 944, period 250, C 667 (unchanged).
    expect(glyphs(font, codes("ABC")).map(([w]) => w)).toEqual([0.944, 0.25, 0.667]);
  });

  it("scales Type 3 widths and box by /FontMatrix", async () => {
    const { reader, dict } = await setup();
    const font = fontMetrics(
      reader,
      dict({
        Type: "Font",
        Subtype: "Type3",
        FontMatrix: [0.01, 0, 0, 0.01, 0, 0],
        FontBBox: [0, -20, 100, 80],
        FirstChar: 97,
        Widths: [50],
      }),
    );
    expect(glyphs(font, codes("a")).map(([w]) => w)).toEqual([0.5]);
    expect([font.ascent, font.descent]).toEqual([0.8, -0.2]);
  });
});

describe("fontMetrics: composite fonts", () => {
  it("reads two-byte codes of Identity-H with /W in both forms and /DW", async () => {
    const { reader, dict } = await setup();
    const font = fontMetrics(
      reader,
      dict({
        Type: "Font",
        Subtype: "Type0",
        BaseFont: "ABCDEF+NotoSans",
        Encoding: "Identity-H",
        DescendantFonts: [
          {
            Type: "Font",
            Subtype: "CIDFontType2",
            DW: 500,
            W: [3, [250, 300], 10, 20, 700],
            FontDescriptor: { Ascent: 1069, Descent: -293 },
          },
        ],
      }),
    );
    expect(glyphs(font, [0, 3, 0, 4, 0, 15, 0, 32, 0x12, 0x34])).toEqual([
      [0.25, false],
      [0.3, false],
      [0.7, false],
      [0.5, false],
      [0.5, false],
    ]);
    expect([font.ascent, font.descent, font.vertical]).toEqual([1.069, -0.293, false]);
    expect(fontMetrics(reader, dict({ Subtype: "Type0", Encoding: "Identity-V" })).vertical).toBe(true);
  });

  it("splits codes by the codespace ranges of an embedded CMap", async () => {
    const { doc, reader, dict } = await setup();
    const cmap = doc.context.stream(
      "/CIDInit /ProcSet findresource begin 12 dict begin begincmap\n" +
        "2 begincodespacerange\n<00> <7F>\n<8140> <9FFC>\nendcodespacerange\nendcmap",
      { Type: "CMap", WMode: 0 },
    );
    const font = fontMetrics(
      reader,
      dict({
        Subtype: "Type0",
        Encoding: doc.context.register(cmap),
        DescendantFonts: [{ Subtype: "CIDFontType0", DW: 1000, W: [32, [250], 0x8140, [900]] }],
      }),
    );
    expect(glyphs(font, [0x20, 0x81, 0x40, 0x41])).toEqual([
      [0.25, true],
      [0.9, false],
      [1, false],
    ]);
  });
});

describe("FALLBACK_FONT", () => {
  it("gives every byte a typical glyph width", () => {
    expect(glyphs(FALLBACK_FONT, codes("a b")).map(([w]) => w)).toEqual([0.6, 0.6, 0.6]);
  });
});
