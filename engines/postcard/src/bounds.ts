import { applyX, applyY, type Matrix } from "./matrix.ts";
import type { Rect } from "./templates.ts";

/** An axis-aligned box by its edges; empty when x0 > x1 or y0 > y1. A box may have no width or no height. */
export interface Bounds {
  x0: number;
  y0: number;
  x1: number;
  y1: number;
}

export const EMPTY: Bounds = Object.freeze({ x0: 1, y0: 1, x1: 0, y1: 0 });

export function isEmpty(b: Bounds): boolean {
  return !(b.x0 <= b.x1 && b.y0 <= b.y1);
}

export function intersect(a: Bounds, b: Bounds): Bounds {
  return {
    x0: Math.max(a.x0, b.x0),
    y0: Math.max(a.y0, b.y0),
    x1: Math.min(a.x1, b.x1),
    y1: Math.min(a.y1, b.y1),
  };
}

export function union(a: Bounds, b: Bounds): Bounds {
  if (isEmpty(a)) return b;
  if (isEmpty(b)) return a;
  return {
    x0: Math.min(a.x0, b.x0),
    y0: Math.min(a.y0, b.y0),
    x1: Math.max(a.x1, b.x1),
    y1: Math.max(a.y1, b.y1),
  };
}

export function grow(b: Bounds, by: number): Bounds {
  return { x0: b.x0 - by, y0: b.y0 - by, x1: b.x1 + by, y1: b.y1 + by };
}

/**
 * True when the two boxes share more than an edge. A box without width or height (a hairline, a point) overlaps
 * when it lies inside the other box.
 */
export function overlaps(a: Bounds, b: Bounds): boolean {
  return a.x0 < b.x1 && a.x1 > b.x0 && a.y0 < b.y1 && a.y1 > b.y0;
}

/** The box around the rectangle (x0, y0)-(x1, y1) after transforming it by `m`. */
export function transformBounds(m: Matrix, x0: number, y0: number, x1: number, y1: number): Bounds {
  const xs = [applyX(m, x0, y0), applyX(m, x1, y0), applyX(m, x0, y1), applyX(m, x1, y1)];
  const ys = [applyY(m, x0, y0), applyY(m, x1, y0), applyY(m, x0, y1), applyY(m, x1, y1)];
  return { x0: Math.min(...xs), y0: Math.min(...ys), x1: Math.max(...xs), y1: Math.max(...ys) };
}

export function fromRect(r: Rect): Bounds {
  return { x0: r.x, y0: r.y, x1: r.x + r.width, y1: r.y + r.height };
}

/** The box as a rectangle, each number rounded to a hundredth of a point. */
export function toRect(b: Bounds): Rect {
  return {
    x: round2(b.x0),
    y: round2(b.y0),
    width: round2(b.x1 - b.x0),
    height: round2(b.y1 - b.y0),
  };
}

function round2(n: number): number {
  return Math.round(n * 100) / 100 + 0;
}

/** The tight box of a cubic Bezier curve from its four points (the curve's extremes, not its control hull). */
export function bezierBounds(
  x0: number,
  y0: number,
  x1: number,
  y1: number,
  x2: number,
  y2: number,
  x3: number,
  y3: number,
): Bounds {
  const [minX, maxX] = bezierRange(x0, x1, x2, x3);
  const [minY, maxY] = bezierRange(y0, y1, y2, y3);
  return { x0: minX, y0: minY, x1: maxX, y1: maxY };
}

function bezierRange(p0: number, p1: number, p2: number, p3: number): [number, number] {
  let min = Math.min(p0, p3);
  let max = Math.max(p0, p3);
  if (Math.min(p1, p2) >= min && Math.max(p1, p2) <= max) return [min, max];
  // B'(t) / 3 = a t^2 + b t + c
  const a = -p0 + 3 * p1 - 3 * p2 + p3;
  const b = 2 * (p0 - 2 * p1 + p2);
  const c = p1 - p0;
  const roots: number[] = [];
  if (Math.abs(a) < 1e-12) {
    if (Math.abs(b) > 1e-12) roots.push(-c / b);
  } else {
    const disc = b * b - 4 * a * c;
    if (disc >= 0) {
      const sq = Math.sqrt(disc);
      roots.push((-b + sq) / (2 * a), (-b - sq) / (2 * a));
    }
  }
  for (const t of roots) {
    if (t <= 0 || t >= 1) continue;
    const u = 1 - t;
    const v = u * u * u * p0 + 3 * u * u * t * p1 + 3 * u * t * t * p2 + t * t * t * p3;
    if (v < min) min = v;
    if (v > max) max = v;
  }
  return [min, max];
}
