import { beforeAll, describe, expect, it } from "vitest";
import type { InlineStyle, TableRow } from "./blocks.ts";
import type { FontFace } from "./fonts.ts";
import { loadFace } from "./fonts.ts";
import type { TableSpec } from "./table-layout.ts";
import { CELL_PADDING, columnWidths, layoutTable } from "./table-layout.ts";

let faces: Record<InlineStyle, FontFace>;
const SIZE = 10;
const LEAD = 12;
const PAD_X = CELL_PADDING.x * SIZE;
const PAD_Y = CELL_PADDING.y * SIZE;

beforeAll(async () => {
  faces = {
    regular: await loadFace("tinos-regular"),
    bold: await loadFace("tinos-bold"),
    italic: await loadFace("tinos-italic"),
    "bold-italic": await loadFace("tinos-bold-italic"),
  };
});

const row = (...cells: string[]): TableRow => ({ cells: cells.map((text) => [{ text, style: "regular" }]) });

function spec(rows: TableRow[], overrides: Partial<TableSpec> = {}): TableSpec {
  return {
    rows,
    headerRows: 0,
    faces,
    size: SIZE,
    lead: LEAD,
    x: 72,
    width: 468,
    maxRowHeight: 648,
    ...overrides,
  };
}

describe("columnWidths", () => {
  it("gives every column its natural width when all fit", () => {
    expect(columnWidths([50, 100], [20, 30], 400)).toEqual([50, 100]);
  });

  it("gives every column its minimum and shares the rest by how much more each wants", () => {
    // 100 to share; column 1 wants 80 more, column 2 wants 320 more.
    expect(columnWidths([100, 400], [20, 80], 200)).toEqual([40, 160]);
  });

  it("shares the width in proportion to the minimums when even those do not fit", () => {
    expect(columnWidths([300, 300], [100, 300], 200)).toEqual([50, 150]);
  });
});

describe("layoutTable", () => {
  it("makes one box per row, as tall as its tallest cell, with borders and cells side by side", () => {
    const long = "word ".repeat(120).trim();
    const boxes = layoutTable(spec([row("a", "b"), row("short", long)]));
    expect(boxes).toHaveLength(2);
    expect(boxes[0]!.height).toBeCloseTo(2 * PAD_Y + LEAD, 9);
    const lines = boxes[1]!.texts.filter((text) => text.text.startsWith("word")).length;
    expect(lines).toBeGreaterThan(1);
    expect(boxes[1]!.height).toBeCloseTo(2 * PAD_Y + lines * LEAD, 9);
    const [first, second] = boxes[0]!.texts;
    expect(first!.baseline).toBe(second!.baseline);
    expect(first!.x).toBeCloseTo(72 + PAD_X, 9);
    const right = Math.max(...boxes[1]!.rules.map((rule) => rule.x2));
    expect(right).toBeCloseTo(72 + 468, 6);
    for (const box of boxes) {
      expect(box.rules.some((rule) => rule.y1 === 0 && rule.y2 === 0)).toBe(true);
      expect(box.rules.some((rule) => rule.y1 === box.height && rule.y2 === box.height)).toBe(true);
    }
  });

  it("sizes columns by content and pads short rows to the full column count", () => {
    const boxes = layoutTable(spec([row("a", "bbbbbbbbbbbbbbbbbbbb", "c"), row("d")]));
    const verticals = boxes[0]!.rules.filter((rule) => rule.x1 === rule.x2).map((rule) => rule.x1);
    expect(verticals).toHaveLength(4);
    const widths = verticals.slice(1).map((x, index) => x - verticals[index]!);
    expect(widths[1]).toBeGreaterThan(widths[0]! * 3);
    expect(widths[0]).toBeCloseTo(faces.regular.widthOf("d", SIZE) + 2 * PAD_X, 6);
    expect(boxes[1]!.rules.filter((rule) => rule.x1 === rule.x2)).toHaveLength(4);
  });

  it("sets header rows in bold, keeps the first row with them and gives every body row the header to repeat", () => {
    const boxes = layoutTable(
      spec([row("H1", "H2"), row("H3", "H4"), row("a", "b"), row("c", "d")], { headerRows: 2 }),
    );
    expect(boxes[0]!.texts.every((text) => text.face === "bold")).toBe(true);
    expect(boxes[1]!.texts.every((text) => text.face === "bold")).toBe(true);
    expect(boxes[2]!.texts.every((text) => text.face === "regular")).toBe(true);
    expect(boxes.map((box) => box.keepWithPrevious)).toEqual([false, true, true, false]);
    expect(boxes[0]!.header).toBeUndefined();
    expect(boxes[2]!.header).toEqual([boxes[0], boxes[1]]);
    expect(boxes[3]!.header).toBe(boxes[2]!.header);
  });

  it("sets a row taller than a page in pieces of whole lines that fit under the header", () => {
    const long = Array.from({ length: 60 }, (_, index) => `line${index}`).join("\n");
    const maxRowHeight = 200;
    const boxes = layoutTable(spec([row("H"), row(long)], { headerRows: 1, maxRowHeight }));
    const header = boxes[0]!;
    const pieces = boxes.slice(1);
    expect(pieces.length).toBeGreaterThan(1);
    const texts = pieces.flatMap((piece) => piece.texts.map((text) => text.text));
    expect(texts).toEqual(long.split("\n"));
    for (const piece of pieces) expect(header.height + piece.height).toBeLessThanOrEqual(maxRowHeight + 1e-9);
    expect(pieces.slice(1).every((piece) => !piece.keepWithPrevious)).toBe(true);
  });

  it("does not repeat a header that takes more than half a page", () => {
    const tall = Array.from({ length: 10 }, () => "h").join("\n");
    const boxes = layoutTable(spec([row(tall), row("a")], { headerRows: 1, maxRowHeight: 150 }));
    expect(boxes.at(-1)!.header).toBeUndefined();
  });

  it("makes no boxes for a table without cells", () => {
    expect(layoutTable(spec([{ cells: [] }]))).toEqual([]);
  });
});
