import type { FaceRole, FontFace } from "./fonts.ts";
import type { Line } from "./line-break.ts";
import type { FlowBox } from "./paginate.ts";

/** A line of text at an absolute position. `baseline` is in points down from the top edge of the page. */
export interface PlacedText {
  face: FaceRole;
  size: number;
  x: number;
  baseline: number;
  text: string;
  /** Counter-clockwise rotation in degrees about the start of the baseline. */
  rotate?: number;
  /** `ink` prints black; `watermark` prints a light grey. */
  tone: "ink" | "watermark";
}

/** A straight black line (a table border, a horizontal rule); `y` is measured down from the top edge of the page. */
export interface PlacedRule {
  x1: number;
  y1: number;
  x2: number;
  y2: number;
  thickness: number;
}

export interface PlacedImage {
  x: number;
  top: number;
  width: number;
  height: number;
}

/**
 * A box of the flow with its content, positioned relative to the box: text baselines, rule ends and the image top
 * are measured down from the top of the box.
 */
export interface Box extends FlowBox {
  texts: PlacedText[];
  rules: PlacedRule[];
  image?: PlacedImage;
  /** For a table row: the table's header rows, repeated at the top of a page this row starts. */
  header?: readonly Box[];
}

/** Vertical space: a blank line of a plain-text letter, or (collapsible) the space between blocks. */
export function spaceBox(
  height: number,
  options: { collapsible?: boolean; keepWithPrevious?: boolean } = {},
): Box {
  return {
    height,
    keepWithPrevious: options.keepWithPrevious ?? false,
    ...(options.collapsible ? { collapsible: true } : {}),
    texts: [],
    rules: [],
  };
}

/** The baseline of a line of type set at `size` in a band `lead` tall: the leading split evenly above and below. */
export function baselineIn(face: FontFace, size: number, lead: number): number {
  const halfLeading = (lead - (face.ascent + face.descent) * size) / 2;
  return halfLeading + face.ascent * size;
}

/** The texts of a broken line, starting at `x`, each segment in the face of its style. */
export function lineTexts(line: Line, x: number, size: number, baseline: number): PlacedText[] {
  const texts: PlacedText[] = [];
  let at = x;
  for (const segment of line.segments) {
    if (segment.text !== "")
      texts.push({ face: segment.style, size, x: at, baseline, text: segment.text, tone: "ink" });
    at += segment.width;
  }
  return texts;
}
