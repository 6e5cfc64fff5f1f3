/**
 * TrueType subsetting for PDF embedding: a font with only the glyphs a letter draws, numbered in the order they are
 * asked for. It carries the tables a PDF reader needs to draw a CIDFontType2 font (head, hhea, maxp, hmtx, loca, glyf
 * and the hinting tables cvt, fpgm, prep), copied from the source font and cut down to the glyphs kept; composite
 * glyphs bring the glyphs they are built of, renumbered. The result is the same for the same glyphs.
 */

/** The parts of a TrueType font that subsetting reads, parsed once per font. */
export interface TrueTypeSource {
  tables: ReadonlyMap<string, Uint8Array>;
  numGlyphs: number;
  /** Glyph `i` is `glyf[loca[i] .. loca[i + 1]]`. */
  loca: Uint32Array;
  numberOfHMetrics: number;
}

const KEPT_TABLES = ["cvt ", "fpgm", "prep"] as const;

/** Reads the table directory and the glyph locations of a TrueType font. */
export function readTrueType(bytes: Uint8Array): TrueTypeSource {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const version = view.getUint32(0);
  if (version !== 0x00010000 && version !== 0x74727565) throw new Error("not a TrueType font");
  const tables = new Map<string, Uint8Array>();
  const count = view.getUint16(4);
  for (let index = 0; index < count; index++) {
    const record = 12 + index * 16;
    const tag = String.fromCharCode(...bytes.subarray(record, record + 4));
    const offset = view.getUint32(record + 8);
    const length = view.getUint32(record + 12);
    tables.set(tag, bytes.subarray(offset, offset + length));
  }
  const table = (tag: string): DataView => {
    const data = tables.get(tag);
    if (data === undefined) throw new Error(`the font has no ${tag} table`);
    return new DataView(data.buffer, data.byteOffset, data.byteLength);
  };
  const numGlyphs = table("maxp").getUint16(4);
  const longOffsets = table("head").getInt16(50) === 1;
  const locaView = table("loca");
  const loca = new Uint32Array(numGlyphs + 1);
  for (let index = 0; index <= numGlyphs; index++) {
    loca[index] = longOffsets ? locaView.getUint32(index * 4) : locaView.getUint16(index * 2) * 2;
  }
  table("glyf");
  table("hmtx");
  return { tables, numGlyphs, loca, numberOfHMetrics: table("hhea").getUint16(34) };
}

/** Composite glyph flags (the `glyf` table's component records). */
const ARG_1_AND_2_ARE_WORDS = 0x0001;
const WE_HAVE_A_SCALE = 0x0008;
const MORE_COMPONENTS = 0x0020;
const WE_HAVE_AN_X_AND_Y_SCALE = 0x0040;
const WE_HAVE_A_TWO_BY_TWO = 0x0080;

/** Offsets (in the glyph's data) of the glyph indexes of a composite glyph's components; none for a simple glyph. */
function componentOffsets(glyph: Uint8Array): number[] {
  if (glyph.byteLength < 10) return [];
  const view = new DataView(glyph.buffer, glyph.byteOffset, glyph.byteLength);
  if (view.getInt16(0) >= 0) return [];
  const offsets: number[] = [];
  let at = 10;
  for (;;) {
    const flags = view.getUint16(at);
    offsets.push(at + 2);
    at += 4 + (flags & ARG_1_AND_2_ARE_WORDS ? 4 : 2);
    if (flags & WE_HAVE_A_SCALE) at += 2;
    else if (flags & WE_HAVE_AN_X_AND_Y_SCALE) at += 4;
    else if (flags & WE_HAVE_A_TWO_BY_TWO) at += 8;
    if (!(flags & MORE_COMPONENTS)) return offsets;
  }
}

/**
 * A TrueType font holding `glyphIds` (ids in the source font) as glyphs 0, 1, 2 ... in that order, followed by the
 * components of composite glyphs not asked for. `glyphIds[0]` should be 0, the missing-glyph box.
 */
export function subsetTrueType(source: TrueTypeSource, glyphIds: readonly number[]): Uint8Array {
  const glyf = source.tables.get("glyf")!;
  const order = [...glyphIds];
  const newId = new Map<number, number>();
  for (const [index, id] of order.entries()) newId.set(id, index);
  const glyphData: Uint8Array[] = [];
  for (let index = 0; index < order.length; index++) {
    const id = order[index]!;
    const original =
      id < source.numGlyphs ? glyf.subarray(source.loca[id], source.loca[id + 1]) : new Uint8Array();
    const data = new Uint8Array(original);
    const view = new DataView(data.buffer);
    for (const offset of componentOffsets(data)) {
      const component = view.getUint16(offset);
      let mapped = newId.get(component);
      if (mapped === undefined) {
        mapped = order.length;
        order.push(component);
        newId.set(component, mapped);
      }
      view.setUint16(offset, mapped);
    }
    glyphData.push(data);
  }

  const count = order.length;
  const padded = (length: number): number => (length + 3) & ~3;
  const glyfOut = new Uint8Array(glyphData.reduce((total, data) => total + padded(data.byteLength), 0));
  const locaOut = new DataView(new ArrayBuffer((count + 1) * 4));
  let offset = 0;
  glyphData.forEach((data, index) => {
    locaOut.setUint32(index * 4, offset);
    glyfOut.set(data, offset);
    offset += padded(data.byteLength);
  });
  locaOut.setUint32(count * 4, offset);

  const hmtx = source.tables.get("hmtx")!;
  const hmtxIn = new DataView(hmtx.buffer, hmtx.byteOffset, hmtx.byteLength);
  const hmtxOut = new DataView(new ArrayBuffer(count * 4));
  const lastMetric = source.numberOfHMetrics - 1;
  order.forEach((id, index) => {
    const advance = hmtxIn.getUint16(Math.min(id, lastMetric) * 4);
    const bearing =
      id <= lastMetric
        ? hmtxIn.getInt16(id * 4 + 2)
        : hmtxIn.getInt16(source.numberOfHMetrics * 4 + (id - source.numberOfHMetrics) * 2);
    hmtxOut.setUint16(index * 4, advance);
    hmtxOut.setInt16(index * 4 + 2, bearing);
  });

  const head = new Uint8Array(source.tables.get("head")!);
  const headView = new DataView(head.buffer);
  headView.setUint32(8, 0);
  headView.setInt16(50, 1);
  const hhea = new Uint8Array(source.tables.get("hhea")!);
  new DataView(hhea.buffer).setUint16(34, count);
  const maxp = new Uint8Array(source.tables.get("maxp")!);
  new DataView(maxp.buffer).setUint16(4, count);

  const tables = new Map<string, Uint8Array>([
    ["glyf", glyfOut],
    ["head", head],
    ["hhea", hhea],
    ["hmtx", new Uint8Array(hmtxOut.buffer)],
    ["loca", new Uint8Array(locaOut.buffer)],
    ["maxp", maxp],
  ]);
  for (const tag of KEPT_TABLES) {
    const table = source.tables.get(tag);
    if (table !== undefined) tables.set(tag, table);
  }
  const font = writeSfnt(tables);
  const view = new DataView(font.buffer);
  const headOffset = tableOffset(view, "head");
  view.setUint32(headOffset + 8, (0xb1b0afba - checksum(font)) >>> 0);
  return font;
}

/** Writes tables as a TrueType file: the directory sorted by tag, each table on a four-byte boundary. */
function writeSfnt(tables: ReadonlyMap<string, Uint8Array>): Uint8Array {
  const tags = [...tables.keys()].sort();
  const headerLength = 12 + 16 * tags.length;
  const length = tags.reduce((total, tag) => total + ((tables.get(tag)!.byteLength + 3) & ~3), headerLength);
  const font = new Uint8Array(length);
  const view = new DataView(font.buffer);
  const power = 2 ** Math.floor(Math.log2(tags.length));
  view.setUint32(0, 0x00010000);
  view.setUint16(4, tags.length);
  view.setUint16(6, power * 16);
  view.setUint16(8, Math.log2(power));
  view.setUint16(10, tags.length * 16 - power * 16);
  let offset = headerLength;
  tags.forEach((tag, index) => {
    const table = tables.get(tag)!;
    const record = 12 + index * 16;
    for (let char = 0; char < 4; char++) view.setUint8(record + char, tag.charCodeAt(char));
    font.set(table, offset);
    view.setUint32(record + 4, checksum(font.subarray(offset, offset + ((table.byteLength + 3) & ~3))));
    view.setUint32(record + 8, offset);
    view.setUint32(record + 12, table.byteLength);
    offset += (table.byteLength + 3) & ~3;
  });
  return font;
}

function tableOffset(view: DataView, tag: string): number {
  const count = view.getUint16(4);
  for (let index = 0; index < count; index++) {
    const record = 12 + index * 16;
    let found = "";
    for (let char = 0; char < 4; char++) found += String.fromCharCode(view.getUint8(record + char));
    if (found === tag) return view.getUint32(record + 8);
  }
  throw new Error(`no ${tag} table`);
}

/** The TrueType checksum: the sum of the big-endian 32-bit words, zero-padded to a whole word. */
function checksum(data: Uint8Array): number {
  let sum = 0;
  const whole = data.byteLength & ~3;
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  for (let at = 0; at < whole; at += 4) sum = (sum + view.getUint32(at)) >>> 0;
  if (whole < data.byteLength) {
    let last = 0;
    for (let at = whole; at < whole + 4; at++) last = (last << 8) | (at < data.byteLength ? data[at]! : 0);
    sum = (sum + (last >>> 0)) >>> 0;
  }
  return sum;
}
