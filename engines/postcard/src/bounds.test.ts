import { describe, expect, it } from "vitest";
import {
  bezierBounds,
  EMPTY,
  grow,
  intersect,
  isEmpty,
  overlaps,
  toRect,
  transformBounds,
  union,
} from "./bounds.ts";
import { maxScale, multiply } from "./matrix.ts";

const box = (x0: number, y0: number, x1: number, y1: number) => ({ x0, y0, x1, y1 });

describe("bounds", () => {
  it("overlap needs shared area; a hairline or point counts when inside", () => {
    const zone = box(10, 10, 20, 20);
    expect(overlaps(box(0, 0, 10, 30), zone)).toBe(false);
    expect(overlaps(box(0, 0, 10.01, 30), zone)).toBe(true);
    expect(overlaps(box(0, 15, 30, 15), zone)).toBe(true);
    expect(overlaps(box(15, 15, 15, 15), zone)).toBe(true);
    expect(overlaps(box(0, 20, 30, 20), zone)).toBe(false);
  });

  it("intersects, unites and grows; the empty box is neutral for union", () => {
    expect(intersect(box(0, 0, 10, 10), box(5, 5, 20, 20))).toEqual(box(5, 5, 10, 10));
    expect(isEmpty(intersect(box(0, 0, 1, 1), box(2, 2, 3, 3)))).toBe(true);
    expect(union(EMPTY, box(1, 2, 3, 4))).toEqual(box(1, 2, 3, 4));
    expect(union(box(0, 0, 1, 1), box(2, -1, 3, 0))).toEqual(box(0, -1, 3, 1));
    expect(grow(box(0, 0, 1, 1), 0.5)).toEqual(box(-0.5, -0.5, 1.5, 1.5));
  });

  it("transforms a rectangle to the box around its turned corners", () => {
    const turned = transformBounds([0, 1, -1, 0, 100, 0], 0, 0, 20, 10);
    expect(turned).toEqual(box(90, 0, 100, 20));
    const sheared = transformBounds([1, 0, 1, 1, 0, 0], 0, 0, 10, 10);
    expect(sheared).toEqual(box(0, 0, 20, 10));
  });

  it("bounds a Bezier curve by its extremes, not by its control points", () => {
    // A symmetric arch from (0,0) to (100,0) with controls at height 100 peaks at 75.
    expect(bezierBounds(0, 0, 0, 100, 100, 100, 100, 0)).toEqual(box(0, 0, 100, 75));
    // Control points inside the hull of the ends: the ends bound the curve.
    expect(bezierBounds(0, 0, 10, 5, 20, 10, 30, 15)).toEqual(box(0, 0, 30, 15));
    // An S-curve overshooting to the left and right of its ends.
    const s = bezierBounds(0, 0, -60, 30, 60, 60, 0, 90);
    expect(s.x0).toBeCloseTo(-17.32, 1);
    expect(s.x1).toBeCloseTo(17.32, 1);
  });

  it("rounds to a hundredth of a point as a rectangle", () => {
    expect(toRect(box(1.004, 2.005, 3.3333, 4))).toEqual({ x: 1, y: 2.01, width: 2.33, height: 2 });
  });
});

describe("matrix", () => {
  it("multiplies as cm does: the new matrix first, then the current one", () => {
    const translateThenScale = multiply([1, 0, 0, 1, 10, 0], [2, 0, 0, 2, 0, 0]);
    expect(translateThenScale).toEqual([2, 0, 0, 2, 20, 0]);
    const scaleThenTranslate = multiply([2, 0, 0, 2, 0, 0], [1, 0, 0, 1, 10, 0]);
    expect(scaleThenTranslate).toEqual([2, 0, 0, 2, 10, 0]);
  });

  it("knows the largest stretch of a transform", () => {
    expect(maxScale([3, 0, 0, 0.5, 7, 7])).toBeCloseTo(3);
    expect(maxScale([0, 2, -2, 0, 0, 0])).toBeCloseTo(2);
  });
});
