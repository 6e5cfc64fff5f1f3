import { windowAddressTexts } from "./address-block.ts";
import { TypesetterError } from "./errors.ts";
import type { FaceRole, FontFace } from "./fonts.ts";
import type { LetterLayout } from "./layout.ts";
import { watermarkText } from "./layout.ts";
import type { PlacedText } from "./layout-box.ts";
import { baselineIn, lineTexts } from "./layout-box.ts";
import { breakLines } from "./line-break.ts";
import { FIRST_PAGE_BODY_TOP, LETTER_PAGE, POINTS_PER_INCH } from "./page-geometry.ts";

/** Left, right and bottom margin of a handwritten card, in points (1 in). */
export const CARD_MARGIN = 1 * POINTS_PER_INCH;
/** Distance between handwritten baselines, as a multiple of the size: a little looser than print. */
export const HANDWRITING_LEADING = 1.35;

/** The message area: below the envelope windows, inside the margins. */
export const MESSAGE_AREA = {
  x: CARD_MARGIN,
  top: FIRST_PAGE_BODY_TOP,
  width: LETTER_PAGE.width - 2 * CARD_MARGIN,
  height: LETTER_PAGE.height - CARD_MARGIN - FIRST_PAGE_BODY_TOP,
} as const;

export interface HandwrittenLayoutInput {
  /** The message, normalised and trimmed; "\n" breaks a line, blank lines are kept. */
  message: string;
  /** The date as it prints ("24 November 2026"), written at the top right of the message area. */
  date_line: string;
  /** Address lines, normalised (see `addressLines`). */
  sender: readonly string[];
  recipient: readonly string[];
  watermark?: string;
  /** The sizes to try, in points, largest first: the message is set at the first at which it fits. */
  sizes: readonly number[];
  /** The style's name, for the refusal's message. */
  style: string;
}

/**
 * Lays out a handwritten card on one US letter page for the #10 double-window envelope: the return address and the
 * recipient's address in the windows, as a letter has them (set in the "regular" face, fitted by
 * `fitAddressBlock`), and below them, from 3.25 in down to the 1 in bottom margin and 1 in from each side, the date
 * at the top right and, a line below it, the message, both in the handwriting face ("signature"), wrapped at spaces,
 * its line breaks and blank lines kept. The message is set at the first of `sizes` at which all of it fits; a message
 * that does not fit at the last one is refused with `message_too_long_for_card` (field "message"), never cut. The
 * watermark, if any, is set as on a letter (face "bold"). Pure: measurement only, no PDF.
 */
export function layoutHandwritten(
  input: HandwrittenLayoutInput,
  faces: Readonly<Record<FaceRole, FontFace>>,
): { layout: LetterLayout; size: number } {
  const hand = faces.signature;
  const handFaces = { regular: hand, bold: hand, italic: hand, "bold-italic": hand };
  const runs = [{ text: input.message, style: "regular" as const }];
  let smallest: { size: number; lines: number; capacity: number } | undefined;
  for (const size of input.sizes) {
    const lead = size * HANDWRITING_LEADING;
    const lines = breakLines(runs, handFaces, size, MESSAGE_AREA.width);
    // The date line and the blank line under it come first.
    const capacity = Math.floor(MESSAGE_AREA.height / lead + 1e-9) - 2;
    if (lines.length > capacity) {
      smallest = { size, lines: lines.length, capacity };
      continue;
    }
    const baseline = baselineIn(hand, size, lead);
    const texts: PlacedText[] = [];
    const dateX = MESSAGE_AREA.x + MESSAGE_AREA.width - hand.widthOf(input.date_line, size);
    texts.push(handText(input.date_line, dateX, size, MESSAGE_AREA.top + baseline));
    lines.forEach((line, index) => {
      const top = MESSAGE_AREA.top + (index + 2) * lead;
      for (const text of lineTexts(line, MESSAGE_AREA.x, size, top + baseline)) {
        texts.push({ ...text, face: "signature" });
      }
    });
    texts.unshift(...windowAddressTexts(input.sender, input.recipient, faces.regular));
    const watermark = input.watermark?.trim();
    if (watermark) texts.unshift(watermarkText(watermark, faces.bold));
    return { layout: { pages: [{ texts, images: [], rules: [] }] }, size };
  }
  const at = smallest ?? { size: Number.NaN, lines: 0, capacity: 0 };
  throw new TypesetterError(
    "message_too_long_for_card",
    `The message takes ${at.lines} lines at ${at.size} pt, the smallest size of the ${input.style} style; the card holds ${at.capacity}. Shorten it or use fewer line breaks.`,
    { field: "message" },
  );
}

function handText(text: string, x: number, size: number, baseline: number): PlacedText {
  return { face: "signature", size, x, baseline, text, tone: "ink" };
}
