import { deflateSync } from "node:zlib";
import type { PDFContext, PDFRef } from "pdf-lib";
import { PDFName, PDFString } from "pdf-lib";
import type { FontFace } from "./fonts.ts";
import { subsetTag } from "./subset-tag.ts";

/** Font descriptor flags (PDF 32000-1, 9.8.2): symbolic (the font has its own glyph set) and, by the font, serif and italic. */
const SERIF = 1 << 1;
const SYMBOLIC = 1 << 2;
const ITALIC = 1 << 6;

/**
 * One face as a PDF font of one document: a Type0 font over a CIDFontType2 with an Identity encoding, whose codes are
 * the glyph numbers of a subset holding only the glyphs drawn, in the order they are first drawn (0 is the missing
 * glyph). fontkit writes the subset: it numbers the glyphs it is given in that same order, from 0 (the missing
 * glyph, always first), and puts the parts of composite glyphs after them. A ToUnicode map gives every code its
 * characters back, so text extracts as written.
 */
export class PdfFont {
  readonly face: FontFace;
  private readonly glyphIds: number[] = [0];
  private readonly codeOf = new Map<number, number>([[0, 0]]);
  private readonly characters: string[] = [""];
  private readonly widths: number[];
  /** The four hex digits of each code, as content streams write it. */
  private readonly hex: string[] = ["0000"];

  constructor(face: FontFace) {
    this.face = face;
    this.widths = [face.font.getGlyph(0).advanceWidth];
  }

  /** The text as a hex string of this font's codes, the glyphs it uses added to the subset. */
  encode(text: string): string {
    let hex = "";
    for (const glyph of this.face.glyphs(text)) {
      let code = this.codeOf.get(glyph.id);
      if (code === undefined) {
        code = this.glyphIds.length;
        this.glyphIds.push(glyph.id);
        this.codeOf.set(glyph.id, code);
        this.characters.push(String.fromCodePoint(...glyph.codePoints));
        this.widths.push(glyph.advanceWidth);
        this.hex.push(code.toString(16).padStart(4, "0"));
      }
      hex += this.hex[code];
    }
    return hex;
  }

  /** Writes the font's objects into the document and returns the reference of its Type0 font dictionary. */
  embed(context: PDFContext): PDFRef {
    const face = this.face;
    const font = face.font;
    const scale = 1000 / font.unitsPerEm;
    const baseFont = `${subsetTag(face.name, this.characters.join(""))}+${face.name}`;
    const subset = font.createSubset();
    for (const id of this.glyphIds) subset.includeGlyph(font.getGlyph(id));
    const program = subset.encode();
    const fontFile = context.register(
      context.stream(deflateSync(program), { Filter: "FlateDecode", Length1: program.byteLength }),
    );
    const bbox = font.bbox;
    const familyClass = (font["OS/2"] as { sFamilyClass?: number } | undefined)?.sFamilyClass ?? 0;
    const descriptor = context.register(
      context.obj({
        Type: "FontDescriptor",
        FontName: baseFont,
        Flags:
          SYMBOLIC |
          (familyClass >= 1 && familyClass <= 7 ? SERIF : 0) |
          (font.italicAngle !== 0 ? ITALIC : 0),
        FontBBox: [bbox.minX, bbox.minY, bbox.maxX, bbox.maxY].map((value) => Math.round(value * scale)),
        ItalicAngle: font.italicAngle,
        Ascent: Math.round(font.ascent * scale),
        Descent: Math.round(font.descent * scale),
        CapHeight: Math.round((font.capHeight || font.ascent) * scale),
        XHeight: Math.round((font.xHeight || 0) * scale),
        StemV: 0,
        FontFile2: fontFile,
      }),
    );
    const cidFont = context.register(
      context.obj({
        Type: "Font",
        Subtype: "CIDFontType2",
        BaseFont: baseFont,
        CIDSystemInfo: { Registry: PDFString.of("Adobe"), Ordering: PDFString.of("Identity"), Supplement: 0 },
        FontDescriptor: descriptor,
        CIDToGIDMap: "Identity",
        W: [0, this.widths.map((width) => Math.round(width * scale * 1000) / 1000)],
      }),
    );
    const toUnicode = context.register(
      context.stream(deflateSync(Buffer.from(this.toUnicodeCMap(), "latin1")), { Filter: "FlateDecode" }),
    );
    return context.register(
      context.obj({
        Type: "Font",
        Subtype: "Type0",
        BaseFont: PDFName.of(baseFont),
        Encoding: "Identity-H",
        DescendantFonts: [cidFont],
        ToUnicode: toUnicode,
      }),
    );
  }

  /** The ToUnicode CMap: each code to the UTF-16 of its characters, in blocks of at most 100 (the CMap limit). */
  private toUnicodeCMap(): string {
    const entries: string[] = [];
    this.characters.forEach((characters, code) => {
      if (characters === "") return;
      let utf16 = "";
      for (let index = 0; index < characters.length; index++) {
        utf16 += characters.charCodeAt(index).toString(16).padStart(4, "0");
      }
      entries.push(`<${code.toString(16).padStart(4, "0")}> <${utf16}>`);
    });
    const blocks: string[] = [];
    for (let start = 0; start < entries.length; start += 100) {
      const block = entries.slice(start, start + 100);
      blocks.push(`${block.length} beginbfchar\n${block.join("\n")}\nendbfchar`);
    }
    return [
      "/CIDInit /ProcSet findresource begin",
      "12 dict begin",
      "begincmap",
      "/CIDSystemInfo << /Registry (Adobe) /Ordering (UCS) /Supplement 0 >> def",
      "/CMapName /Adobe-Identity-UCS def",
      "/CMapType 2 def",
      "1 begincodespacerange",
      "<0000> <FFFF>",
      "endcodespacerange",
      ...blocks,
      "endcmap",
      "CMapName currentdict /CMap defineresource pop",
      "end",
      "end",
    ].join("\n");
  }
}
