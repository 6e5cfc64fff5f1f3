import type { FontFace } from "./fonts.ts";
import type { PlacedText } from "./layout-box.ts";
import { LETTER_PAGE } from "./page-geometry.ts";

/** Page numbers and continuation headers are set in the regular face at this multiple of the body size. */
export const FURNITURE_SCALE = 0.75;
/** ... but never smaller than this, in points. */
export const MIN_FURNITURE_SIZE = 8;
/** Separates the parts of a continuation header. */
export const HEADER_SEPARATOR = " \u2014 ";

/** What the running texts of a letter of several pages say. */
export interface Furniture {
  /** The letter's date as it prints ("24 November 2026"). */
  date: string;
  /** The recipient's name (the first line of the address), when there is a recipient. */
  recipient?: string;
}

/**
 * The running texts of the body pages of a letter, page by page: on a letter of two or more body pages, "Page N of M"
 * centred in the bottom margin of every body page, and from the second body page on a continuation header at the left
 * of the top margin: the recipient's name, the date and the page ("Grace Hopper — 24 November 2026 — page 2"; the
 * name is left out when the header would not fit the measure). A letter of one body page gets none. The texts sit in
 * the margins, so they never take room from the body. Pure.
 */
export function furnitureTexts(
  bodyPages: number,
  furniture: Furniture,
  face: FontFace,
  bodySize: number,
  margin: number,
): PlacedText[][] {
  if (bodyPages < 2) return Array.from({ length: bodyPages }, () => []);
  const size = Math.max(MIN_FURNITURE_SIZE, Math.round(bodySize * FURNITURE_SCALE * 2) / 2);
  const measure = LETTER_PAGE.width - 2 * margin;
  const halfCap = (face.capHeight * size) / 2;
  const text = (value: string, x: number, baseline: number): PlacedText => ({
    face: "regular",
    size,
    x,
    baseline,
    text: value,
    tone: "ink",
  });
  return Array.from({ length: bodyPages }, (_, index) => {
    const page = index + 1;
    const footer = `Page ${page} of ${bodyPages}`;
    const texts = [
      text(
        footer,
        (LETTER_PAGE.width - face.widthOf(footer, size)) / 2,
        LETTER_PAGE.height - margin / 2 + halfCap,
      ),
    ];
    if (page > 1) {
      const tail = [furniture.date, `page ${page}`];
      let header = [furniture.recipient, ...tail].filter((part) => part).join(HEADER_SEPARATOR);
      if (face.widthOf(header, size) > measure) header = tail.join(HEADER_SEPARATOR);
      texts.unshift(text(header, margin, margin / 2 + halfCap));
    }
    return texts;
  });
}
