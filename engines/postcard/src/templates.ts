/** The postcard sizes Mailpiece prints, named height x width in inches as they are sold (always landscape). */
export type PostcardSize = "4x6" | "6x9" | "11x6";

export const POSTCARD_SIZES: readonly PostcardSize[] = ["4x6", "6x9", "11x6"];

/** A width and height in points (72 pt = 1 in). */
export interface Extent {
  w: number;
  h: number;
}

/** A rectangle in points, PDF coordinates: origin at the lower-left corner of the canvas, y up. */
export interface Rect {
  x: number;
  y: number;
  width: number;
  height: number;
}

export interface PostcardTemplate {
  /** Size after cutting. */
  trim: Extent;
  /** The canvas to send: the trim plus 0.125 in of bleed on every side. Every page must have this size. */
  bleed: Extent;
  /** Where text and faces are safe from the cut: 0.125 in inside the trim on every side. */
  safe: Extent;
  /** On the mailing side (page 2): where the address, postage and barcode are printed; it must hold no ink. */
  addressZone: Rect;
}

/**
 * Postcard geometry in points, landscape (72 pt = 1 in). The bleed canvas is the trim plus 0.125 in on every side,
 * the safe area the trim less 0.125 in on every side. The address zone sits 0.275 in from the right edge and 0.25 in
 * from the bottom edge of the bleed canvas; it is 3.2835 x 2.375 in on a 4x6 card (x 193.8-430.2 pt, rounded to
 * the tenth of a point) and 4 x 2.375 in on the larger cards.
 */
export const POSTCARD_TEMPLATES: Readonly<Record<PostcardSize, Readonly<PostcardTemplate>>> = freezeDeep({
  "4x6": {
    trim: { w: 432, h: 288 },
    bleed: { w: 450, h: 306 },
    safe: { w: 414, h: 270 },
    addressZone: { x: 193.8, y: 18, width: 236.4, height: 171 },
  },
  "6x9": {
    trim: { w: 648, h: 432 },
    bleed: { w: 666, h: 450 },
    safe: { w: 630, h: 414 },
    addressZone: { x: 358.2, y: 18, width: 288, height: 171 },
  },
  "11x6": {
    trim: { w: 792, h: 432 },
    bleed: { w: 810, h: 450 },
    safe: { w: 774, h: 414 },
    addressZone: { x: 502.2, y: 18, width: 288, height: 171 },
  },
});

export function isPostcardSize(value: unknown): value is PostcardSize {
  return typeof value === "string" && (POSTCARD_SIZES as readonly string[]).includes(value);
}

function freezeDeep<T extends object>(value: T): T {
  for (const inner of Object.values(value)) {
    if (typeof inner === "object" && inner !== null) freezeDeep(inner);
  }
  return Object.freeze(value);
}
