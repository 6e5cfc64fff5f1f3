import { describe, expect, it } from "vitest";
import type { FlowBox } from "./paginate.ts";
import { paginate } from "./paginate.ts";

interface Named extends FlowBox {
  name: string;
}

function boxes(count: number, height = 10, prefix = "b"): Named[] {
  return Array.from({ length: count }, (_, index) => ({
    name: `${prefix}${index}`,
    height,
    keepWithPrevious: false,
  }));
}

const frames = (pageIndex: number) => (pageIndex === 0 ? { top: 50, bottom: 100 } : { top: 0, bottom: 100 });

function names(pages: { box: Named }[][]): string[][] {
  return pages.map((page) => page.map((placed) => placed.box.name));
}

describe("paginate", () => {
  it("returns one empty page for no boxes", () => {
    expect(paginate([], frames)).toEqual([[]]);
  });

  it("fills each frame exactly and never lets a box cross the bottom", () => {
    const pages = paginate(boxes(25), frames);
    expect(pages.map((page) => page.length)).toEqual([5, 10, 10]);
    pages.forEach((page, index) => {
      const frame = frames(index);
      expect(page[0]?.top).toBe(frame.top);
      for (const placed of page) expect(placed.top + placed.box.height).toBeLessThanOrEqual(frame.bottom);
    });
  });

  it("tolerates rounding when boxes fill a frame to the last point", () => {
    // 0.1 + 0.1 + 0.1 is 0.30000000000000004 in floating point.
    const pages = paginate(boxes(3, 0.1), () => ({ top: 0, bottom: 0.3 }));
    expect(pages).toHaveLength(1);
  });

  it("moves a box that keeps with its previous one to the next page together with it", () => {
    const flow = [...boxes(5), { name: "signature", height: 15, keepWithPrevious: true }];
    expect(names(paginate(flow, frames))).toEqual([
      ["b0", "b1", "b2", "b3"],
      ["b4", "signature"],
    ]);
  });

  it("moves a whole chain of kept boxes", () => {
    const flow: Named[] = [
      ...boxes(3),
      { name: "s1", height: 10, keepWithPrevious: true },
      { name: "s2", height: 10, keepWithPrevious: true },
    ];
    const pages = paginate(flow, () => ({ top: 0, bottom: 45 }));
    expect(names(pages)).toEqual([
      ["b0", "b1"],
      ["b2", "s1", "s2"],
    ]);
  });

  it("breaks inside a chain that already starts at the top of the page", () => {
    const flow: Named[] = [
      { name: "first", height: 30, keepWithPrevious: false },
      { name: "kept", height: 30, keepWithPrevious: true },
    ];
    expect(names(paginate(flow, () => ({ top: 0, bottom: 40 })))).toEqual([["first"], ["kept"]]);
  });

  it("puts a box taller than a frame alone on its own page", () => {
    const flow: Named[] = [
      ...boxes(1),
      { name: "huge", height: 500, keepWithPrevious: false },
      ...boxes(1, 10, "c"),
    ];
    expect(names(paginate(flow, frames))).toEqual([["b0"], ["huge"], ["c0"]]);
  });

  it("drops collapsible space at the top of a page and where it does not fit at the bottom", () => {
    const gap = (name: string): Named => ({ name, height: 5, keepWithPrevious: false, collapsible: true });
    const flow: Named[] = [
      gap("top"),
      ...boxes(4),
      gap("fits"),
      ...boxes(5, 10, "c"),
      gap("middle"),
      ...boxes(1, 10, "d"),
    ];
    // Page 1 holds 50 pt: four boxes and the first gap (45 pt); the next box does not fit.
    expect(names(paginate(flow, frames))).toEqual([
      ["b0", "b1", "b2", "b3", "fits"],
      ["c0", "c1", "c2", "c3", "c4", "middle", "d0"],
    ]);
    const full: Named[] = [...boxes(5), gap("dropped"), ...boxes(1, 10, "c")];
    expect(names(paginate(full, frames))).toEqual([["b0", "b1", "b2", "b3", "b4"], ["c0"]]);
  });

  it("does not start a moved chain with collapsible space", () => {
    const flow: Named[] = [
      ...boxes(4),
      { name: "gap", height: 5, keepWithPrevious: false, collapsible: true },
      { name: "heading", height: 10, keepWithPrevious: false },
      { name: "after-heading", height: 10, keepWithPrevious: true },
    ];
    expect(names(paginate(flow, frames))).toEqual([
      ["b0", "b1", "b2", "b3", "gap"],
      ["heading", "after-heading"],
    ]);
  });

  it("moves a kept chain across collapsible space inside it", () => {
    const flow: Named[] = [
      ...boxes(3),
      { name: "heading", height: 10, keepWithPrevious: false },
      { name: "gap", height: 5, keepWithPrevious: true, collapsible: true },
      { name: "line", height: 10, keepWithPrevious: true },
    ];
    expect(names(paginate(flow, frames))).toEqual([
      ["b0", "b1", "b2"],
      ["heading", "gap", "line"],
    ]);
  });

  it("sets a box's header on top of a page that box starts, and nowhere else", () => {
    const header: Named = { name: "header", height: 10, keepWithPrevious: false };
    const row = (index: number): Named & { header?: Named[] } => ({
      name: `row${index}`,
      height: 10,
      keepWithPrevious: index === 0,
      header: [header],
    });
    const flow = [header, ...Array.from({ length: 12 }, (_, index) => row(index))];
    const pages = paginate(flow, frames, { headerOf: (box: Named & { header?: Named[] }) => box.header });
    expect(names(pages)).toEqual([
      ["header", "row0", "row1", "row2", "row3"],
      ["header", "row4", "row5", "row6", "row7", "row8", "row9", "row10", "row11"],
    ]);
    expect(pages[1]![0]!.top).toBe(0);
    expect(pages[1]![1]!.top).toBe(10);
  });
});
