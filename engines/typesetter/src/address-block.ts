import { TypesetterError } from "./errors.ts";
import type { FontFace } from "./fonts.ts";
import type { PlacedText } from "./layout-box.ts";
import { normalizeText } from "./normalize-text.ts";
import type { Rect } from "./page-geometry.ts";
import { RECIPIENT_WINDOW, RETURN_WINDOW } from "./page-geometry.ts";

/** Address sizes tried in order, largest first; 8 pt is the smallest that stays legible to postal scanners. */
export const ADDRESS_FONT_SIZES: readonly number[] = [10, 9.5, 9, 8.5, 8];
const SMALLEST_ADDRESS_FONT_SIZE = 8;
/** Distance between address baselines, as a multiple of the font size. */
export const ADDRESS_LEADING = 1.15;

export interface AddressLine {
  text: string;
  size: number;
  x: number;
  /** Baseline, in points down from the top edge of the page. */
  baseline: number;
}

/** The printable lines of an address: normalized, trimmed, empty lines dropped. */
export function addressLines(lines: readonly string[]): string[] {
  return lines.map((line) => normalizeText(line).replace(/\n/g, " ").trim()).filter((line) => line !== "");
}

/**
 * Sets an address block at the top left of its envelope window, at the largest size of ADDRESS_FONT_SIZES at which
 * every line fits the window's width and the block its height (from the first line's ascender to the last line's
 * descender). An address that does not fit even at 8 pt is refused with `address_too_long_for_window`; it is never cut.
 */
export function fitAddressBlock(
  lines: readonly string[],
  face: FontFace,
  window: Rect,
  field: "recipient" | "sender",
): AddressLine[] {
  if (lines.length === 0) return [];
  const heightAt = (size: number): number =>
    face.ascent * size + (lines.length - 1) * ADDRESS_LEADING * size + face.descent * size;
  const widestAt = (size: number): { index: number; width: number } =>
    lines.reduce(
      (widest, line, index) => {
        const width = face.widthOf(line, size);
        return width > widest.width ? { index, width } : widest;
      },
      { index: 0, width: 0 },
    );

  for (const size of ADDRESS_FONT_SIZES) {
    if (heightAt(size) <= window.height && widestAt(size).width <= window.width) {
      return lines.map((text, index) => ({
        text,
        size,
        x: window.x,
        baseline: window.top + face.ascent * size + index * ADDRESS_LEADING * size,
      }));
    }
  }

  const smallest = SMALLEST_ADDRESS_FONT_SIZE;
  const role = field === "recipient" ? "recipient" : "return";
  const height = heightAt(smallest);
  if (height > window.height) {
    throw new TypesetterError(
      "address_too_long_for_window",
      `The ${role} address has ${lines.length} lines, ${inches(height)} in tall at ${smallest} pt; its envelope window is ${inches(window.height)} in tall. Shorten or combine lines.`,
      { field },
    );
  }
  const widest = widestAt(smallest);
  throw new TypesetterError(
    "address_too_long_for_window",
    `Line ${widest.index + 1} of the ${role} address ("${lines[widest.index]}") is ${inches(widest.width)} in wide at ${smallest} pt; its envelope window is ${inches(window.width)} in wide. Abbreviate it or split it over two lines.`,
    { field },
  );
}

/**
 * The return address and the recipient's address of page 1, each fitted into its window of the #10 double-window
 * envelope (`fitAddressBlock`), set in `face` (the role "regular"). Lines already normalised (`addressLines`).
 */
export function windowAddressTexts(
  sender: readonly string[] | undefined,
  recipient: readonly string[] | undefined,
  face: FontFace,
): PlacedText[] {
  const texts: PlacedText[] = [];
  if (sender !== undefined) {
    for (const line of fitAddressBlock(sender, face, RETURN_WINDOW, "sender")) {
      texts.push({ face: "regular", tone: "ink", ...line });
    }
  }
  if (recipient !== undefined) {
    for (const line of fitAddressBlock(recipient, face, RECIPIENT_WINDOW, "recipient")) {
      texts.push({ face: "regular", tone: "ink", ...line });
    }
  }
  return texts;
}

function inches(points: number): string {
  return (points / 72).toFixed(2);
}
