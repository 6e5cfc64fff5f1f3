import type { Font } from "fontkit";
import { beforeAll, describe, expect, it } from "vitest";
import { createFont } from "./fontkit-adapter.ts";
import type { FontFace } from "./fonts.ts";
import { loadFace } from "./fonts.ts";
import type { TrueTypeSource } from "./truetype-subset.ts";
import { readTrueType, subsetTrueType } from "./truetype-subset.ts";

let face: FontFace;
let source: TrueTypeSource;

beforeAll(async () => {
  face = await loadFace("tinos-regular");
  source = readTrueType(face.bytes);
});

function idsOf(text: string): number[] {
  return [0, ...new Set(face.glyphs(text).map((glyph) => glyph.id))];
}

function isComposite(id: number): boolean {
  const glyf = source.tables.get("glyf")!;
  const start = source.loca[id]!;
  if (source.loca[id + 1]! - start < 2) return false;
  return new DataView(glyf.buffer, glyf.byteOffset + start, 2).getInt16(0) < 0;
}

function sum(bytes: Uint8Array): number {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let total = 0;
  for (let at = 0; at < bytes.byteLength; at += 4) total = (total + view.getUint32(at)) >>> 0;
  return total;
}

describe("subsetTrueType", () => {
  it("reads the source font's glyph count and locations", () => {
    expect(source.numGlyphs).toBe(face.font.numGlyphs);
    expect(source.loca).toHaveLength(source.numGlyphs + 1);
    expect(source.loca[source.numGlyphs]).toBe(source.tables.get("glyf")!.byteLength);
  });

  it("keeps exactly the glyphs asked for, in that order, with their outlines and advances", () => {
    const ids = idsOf("Hello, World!");
    expect(ids.some(isComposite)).toBe(false);
    const subset: Font = createFont(subsetTrueType(source, ids));
    expect(subset.numGlyphs).toBe(ids.length);
    ids.forEach((id, index) => {
      const original = face.font.getGlyph(id);
      const copy = subset.getGlyph(index);
      expect(copy.advanceWidth).toBe(original.advanceWidth);
      expect(copy.path.toSVG()).toBe(original.path.toSVG());
    });
  });

  it("brings the components of a composite glyph along, renumbered, and draws it the same", () => {
    const composite = [..."ëÄÅÇÉÑÖÜåçéñöüŁĄĘŻÆǺǻ"].map((char) => face.glyphs(char)[0]!.id).find(isComposite);
    expect(composite).toBeDefined();
    const ids = [0, composite!];
    const subset = createFont(subsetTrueType(source, ids));
    expect(subset.numGlyphs).toBeGreaterThan(2);
    expect(subset.getGlyph(1).path.toSVG()).toBe(face.font.getGlyph(composite!).path.toSVG());
  });

  it("writes valid checksums and the same bytes for the same glyphs", () => {
    const ids = idsOf("Checksum");
    const font = subsetTrueType(source, ids);
    expect(font.byteLength % 4).toBe(0);
    expect(sum(font)).toBe(0xb1b0afba);
    const view = new DataView(font.buffer, font.byteOffset, font.byteLength);
    const tables = view.getUint16(4);
    const tags: string[] = [];
    for (let index = 0; index < tables; index++) {
      const record = 12 + index * 16;
      const tag = String.fromCharCode(...font.subarray(record, record + 4));
      tags.push(tag);
      const offset = view.getUint32(record + 8);
      const length = view.getUint32(record + 12);
      const padded = font.subarray(offset, offset + ((length + 3) & ~3));
      if (tag !== "head") expect(sum(padded)).toBe(view.getUint32(record + 4));
    }
    expect(tags).toEqual(["cvt ", "fpgm", "glyf", "head", "hhea", "hmtx", "loca", "maxp", "prep"]);
    expect(Buffer.from(subsetTrueType(source, ids)).equals(Buffer.from(font))).toBe(true);
  });

  it("is far smaller than the font it comes from", () => {
    expect(subsetTrueType(source, idsOf("Dear Ann")).byteLength).toBeLessThan(face.bytes.byteLength / 10);
  });
});
