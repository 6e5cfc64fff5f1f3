/**
 * The handwriting styles of a handwritten card, and the longest message one holds. Data only (no font is loaded
 * here), so `@mailpiece/typesetter/light` can export it to request validators.
 */

/** The styles a handwritten card can be written in. */
export const HANDWRITING_STYLES = ["casual", "neat", "slanted"] as const;

export type HandwritingStyle = (typeof HANDWRITING_STYLES)[number];

/** The style of a card that names none. */
export const DEFAULT_HANDWRITING_STYLE: HandwritingStyle = "casual";

/** How each style is set: its typeface (SIL Open Font License) and its sizes in points, largest first tried. */
export const HANDWRITING_STYLE_FACES: Readonly<
  Record<HandwritingStyle, { typeface: string; size: number; min_size: number }>
> = {
  /** Caveat: a quick, narrow pen hand. */
  casual: { typeface: "Caveat", size: 21, min_size: 15 },
  /** Patrick Hand: upright, rounded print letters. */
  neat: { typeface: "Patrick Hand", size: 19, min_size: 14 },
  /** Kalam: a slanted felt-pen hand. */
  slanted: { typeface: "Kalam", size: 17, min_size: 13 },
};

/**
 * The longest message of a handwritten card, in characters (Unicode code points). A card is one page; 800
 * characters of ordinary prose (a dozen paragraphs included) fit it in every style. A message within the limit that still does not fit (many
 * short lines, very wide letters) is refused when it is typeset (`message_too_long_for_card`), never cut.
 */
export const MAX_HANDWRITTEN_MESSAGE_CHARS = 800;
