import { typesetLetter } from "@mailpiece/typesetter";
import type { PDFDocument, PDFEmbeddedPage } from "pdf-lib";
import { PDFDocument as PdfDocument } from "pdf-lib";

/** US letter, in points. */
export const LETTER = { width: 612, height: 792 } as const;

/** Where the typesetter starts the body on page 1 (3.25 in from the top, below the envelope windows). */
const BODY_TOP_PT = 3.25 * 72;
/** The footer's size: small, and at most three lines (it is at most 300 characters). */
export const FOOTER_FONT_SIZE = 9;
const FOOTER_LINES = 3;
const FOOTER_BAND_PT = FOOTER_LINES * FOOTER_FONT_SIZE * 1.2 + 4;
/** The footer band's top edge above the page bottom: below the body, which ends 1 in above it. */
const FOOTER_TOP_PT = 60;

export type Font = "times" | "helvetica";

/**
 * Sets the footer text with the typesetter (so its font is embedded like the letter's) and returns it as a
 * band that can be drawn at the bottom of any page of `doc`.
 */
export async function embedFooter(doc: PDFDocument, footer: string, font: Font): Promise<PDFEmbeddedPage> {
  const set = await typesetLetter({
    // Packets carry their own footer and date lines: none of the free letter's page furniture.
    furniture: "none",
    body: footer,
    format: "text",
    render: { font, font_size: FOOTER_FONT_SIZE, margin_in: 1, paper: "letter" },
  });
  const source = await PdfDocument.load(set.pdf, { updateMetadata: false });
  const top = LETTER.height - BODY_TOP_PT + 2;
  return doc.embedPage(source.getPage(0), {
    left: 0,
    right: LETTER.width,
    top,
    bottom: top - FOOTER_BAND_PT,
  });
}

/** Draws the footer band on a page, across its bottom. */
export function drawFooter(page: ReturnType<PDFDocument["getPage"]>, band: PDFEmbeddedPage): void {
  page.drawPage(band, { x: 0, y: FOOTER_TOP_PT - band.height });
}

/** A page holding only a watermark (light grey, diagonal), set by the typesetter, to lay beneath other pages. */
export async function embedWatermark(
  doc: PDFDocument,
  watermark: string,
  font: Font,
): Promise<PDFEmbeddedPage> {
  const set = await typesetLetter({
    // Packets carry their own footer and date lines: none of the free letter's page furniture.
    furniture: "none",
    body: "",
    format: "text",
    render: { font, font_size: 12, margin_in: 1, paper: "letter" },
    watermark,
  });
  const source = await PdfDocument.load(set.pdf, { updateMetadata: false });
  return doc.embedPage(source.getPage(0));
}
