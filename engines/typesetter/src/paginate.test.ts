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
});
