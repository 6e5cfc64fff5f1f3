import { inspectPdf, TypesetterError, typesetLetter } from "@mailpiece/typesetter";
import type { PDFEmbeddedPage, PDFPage } from "pdf-lib";
import { BlendMode, degrees, PDFDocument } from "pdf-lib";

/** What `watermarkPdf` sets on every page. */
export interface WatermarkOptions {
  /** The mark, one line (e.g. "TEST MODE"); set as the typesetter sets a letter's watermark. */
  text: string;
}

/** The marked PDF: its bytes and page count (the same pages as the original, in the same order). */
export interface WatermarkResult {
  pdf: Uint8Array;
  page_count: number;
}

/** The page the typesetter sets a watermark on: US letter, in points. */
const MARK_PAGE = { width: 612, height: 792 } as const;

/**
 * Sets `options.text` diagonally on every page of a PDF, over its content: the typesetter's own watermark (the
 * light grey, bold, diagonal line a letter's `watermark` prints), typeset once on an empty page and laid over each
 * page, fitted to the page's visible area (its crop box) and turned with the page's rotation so that it reads the
 * same way as the page. It is blended by multiplying, so it darkens blank paper and never hides what is printed
 * beneath it. Text extraction reads it on every page. The original's pages, sizes and content are kept.
 *
 * Throws TypesetterError: `pdf_unreadable` (not a PDF that can be read, or no pages), `pdf_encrypted`, or the
 * typesetter's refusal of the text (`invalid_letter_input` or `character_unsupported`, field "watermark").
 */
export async function watermarkPdf(bytes: Uint8Array, options: WatermarkOptions): Promise<WatermarkResult> {
  const text = typeof options?.text === "string" ? options.text.trim() : "";
  if (text === "") {
    throw new TypesetterError("invalid_letter_input", "The watermark text must be a non-empty string.", {
      field: "watermark",
    });
  }
  // The typesetter's intake refuses what cannot be marked, with its own errors: bytes that are not a readable PDF,
  // a PDF without pages, an encrypted one.
  await inspectPdf(bytes);
  const doc = await PDFDocument.load(bytes, {
    ignoreEncryption: true,
    updateMetadata: false,
    throwOnInvalidObject: false,
  });
  const pages = doc.getPages();
  const mark = await embedMark(doc, text);
  try {
    for (const page of pages) drawMark(page, mark);
  } catch (cause) {
    throw new TypesetterError("pdf_unreadable", "The pages of the PDF cannot be marked.", { cause });
  }
  const pdf = await doc.save({ useObjectStreams: false, objectsPerTick: Number.POSITIVE_INFINITY });
  return { pdf, page_count: pages.length };
}

/** The typesetter's watermark alone on a letter page (no date, address or body), embedded in `doc`. */
async function embedMark(doc: PDFDocument, text: string): Promise<PDFEmbeddedPage> {
  const set = await typesetLetter({
    furniture: "none",
    body: "",
    format: "text",
    render: { font: "times", font_size: 11, margin_in: 1, paper: "letter" },
    watermark: text,
  });
  const source = await PDFDocument.load(set.pdf, { updateMetadata: false });
  return doc.embedPage(source.getPage(0));
}

/**
 * Lays the mark over a page: scaled to fit the crop box as the page shows (width and height swap on a page turned
 * a quarter), centred on it, and turned by the page's rotation so that a viewer that turns the page shows it
 * upright. The page's existing content is wrapped in its own graphics state first (pdf-lib does that when it adds
 * to a page), so whatever state that content leaves cannot move or recolour the mark.
 */
function drawMark(page: PDFPage, mark: PDFEmbeddedPage): void {
  const box = page.getCropBox();
  const turn = (((page.getRotation().angle % 360) + 360) % 360) as number;
  const quarter = turn === 90 || turn === 270;
  const shownWidth = quarter ? box.height : box.width;
  const shownHeight = quarter ? box.width : box.height;
  const scale = Math.min(shownWidth / MARK_PAGE.width, shownHeight / MARK_PAGE.height);
  // The mark's centre, after scaling and turning about its lower left corner, must land on the box's centre.
  const half = { x: (MARK_PAGE.width * scale) / 2, y: (MARK_PAGE.height * scale) / 2 };
  const radians = (turn * Math.PI) / 180;
  const cos = Math.cos(radians);
  const sin = Math.sin(radians);
  const x = box.x + box.width / 2 - (half.x * cos - half.y * sin);
  const y = box.y + box.height / 2 - (half.x * sin + half.y * cos);
  page.drawPage(mark, {
    x,
    y,
    xScale: scale,
    yScale: scale,
    rotate: degrees(turn),
    blendMode: BlendMode.Multiply,
  });
}
