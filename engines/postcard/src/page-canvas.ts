import type { PDFDict } from "pdf-lib";
import { type Bounds, intersect, isEmpty } from "./bounds.ts";
import type { Matrix } from "./matrix.ts";
import type { PdfReader } from "./pdf-objects.ts";

/** A page as it is seen and printed: its visible box, turned by its rotation. */
export interface PageCanvas {
  width: number;
  height: number;
  /** Page rotation in degrees clockwise: 0, 90, 180 or 270. */
  rotate: 0 | 90 | 180 | 270;
  /**
   * From the page's default user space to canvas space: origin at the lower-left corner of the visible box as the
   * page is seen (after rotation), x to the right, y up. The identity for an unrotated page whose box starts at 0 0.
   */
  toCanvas: Matrix;
}

/**
 * The canvas of a page: the MediaBox (inherited from the page tree if need be), cut to the CropBox when there is one,
 * turned by /Rotate. Undefined when the page has no usable MediaBox.
 */
export function pageCanvas(reader: PdfReader, page: PDFDict): PageCanvas | undefined {
  const media = inheritedBox(reader, page, "MediaBox");
  if (media === undefined || media.x1 - media.x0 <= 0 || media.y1 - media.y0 <= 0) return undefined;
  let box = media;
  const crop = inheritedBox(reader, page, "CropBox");
  if (crop !== undefined) {
    const visible = intersect(media, crop);
    if (!isEmpty(visible) && visible.x1 > visible.x0 && visible.y1 > visible.y0) box = visible;
  }
  const rotate = normaliseRotation(reader.number(reader.inherited(page, "Rotate"), "Rotate"));
  const { x0, y0, x1, y1 } = box;
  const w = x1 - x0;
  const h = y1 - y0;
  switch (rotate) {
    case 90:
      return { width: h, height: w, rotate, toCanvas: [0, -1, 1, 0, -y0, x1] };
    case 180:
      return { width: w, height: h, rotate, toCanvas: [-1, 0, 0, -1, x1, y1] };
    case 270:
      return { width: h, height: w, rotate, toCanvas: [0, 1, -1, 0, y1, -x0] };
    default:
      return { width: w, height: h, rotate, toCanvas: [1, 0, 0, 1, -x0, -y0] };
  }
}

/** Rotation as viewers read it: a multiple of 90, folded into 0-359; anything else counts as 0. */
function normaliseRotation(value: number | undefined): PageCanvas["rotate"] {
  if (value === undefined || !Number.isInteger(value) || value % 90 !== 0) return 0;
  return (((value % 360) + 360) % 360) as PageCanvas["rotate"];
}

function inheritedBox(reader: PdfReader, page: PDFDict, key: string): Bounds | undefined {
  const n = reader.numbers(reader.inherited(page, key), key, 4);
  if (n === undefined) return undefined;
  const [a, b, c, d] = n as [number, number, number, number];
  return { x0: Math.min(a, c), y0: Math.min(b, d), x1: Math.max(a, c), y1: Math.max(b, d) };
}
