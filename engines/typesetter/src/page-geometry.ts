/** US letter paper and the windows of a #10 double-window envelope, in PDF points (72 per inch). */
export const POINTS_PER_INCH = 72;

export const LETTER_PAGE = { width: 8.5 * POINTS_PER_INCH, height: 11 * POINTS_PER_INCH } as const;

/** A rectangle on the page, `top` measured down from the top edge. */
export interface Rect {
  x: number;
  top: number;
  width: number;
  height: number;
}

/** The return address shows through the upper window: 0.5 in from the left and top, at most 3.25 x 0.875 in. */
export const RETURN_WINDOW: Rect = { x: 0.5 * 72, top: 0.5 * 72, width: 3.25 * 72, height: 0.875 * 72 };

/** The recipient address shows through the lower window: 0.5 in from the left, 2.042 in from the top, 3.5 x 0.875 in. */
export const RECIPIENT_WINDOW: Rect = { x: 0.5 * 72, top: 2.042 * 72, width: 3.5 * 72, height: 0.875 * 72 };

/** On page 1 the body starts below the address area (which ends at 2.917 in), at 3.25 in from the top. */
export const FIRST_PAGE_BODY_TOP = 3.25 * POINTS_PER_INCH;
