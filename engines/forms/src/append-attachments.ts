import type { PDFDocument, PDFEmbeddedPage, PDFPage } from "pdf-lib";
import { degrees, PDFRef, PDFDocument as PdfDocument } from "pdf-lib";
import type { CheckedAttachment } from "./attachments.ts";
import { decodeBase64 } from "./base64.ts";
import { FormsError } from "./errors.ts";
import { joinPath } from "./issues.ts";
import { LETTER } from "./page-overlays.ts";

/** Images are placed within this margin of a US letter page. */
const IMAGE_MARGIN_PT = 36;
/** Sizes within this many points of US letter count as US letter. */
const SIZE_TOLERANCE_PT = 1;

/**
 * Appends the attached copies to the packet, in the order given: PDF pages copied one for one (fillable fields
 * flattened first, so their values print; pages of another size scaled to fit US letter and centred), and each
 * PNG or JPEG image on a page of its own, scaled down to fit within 0.5 in margins and centred, never enlarged.
 * With `watermark`, every appended page carries it beneath its content.
 * Throws FormsError("attachment_unreadable") for a file that cannot be read or an encrypted PDF.
 */
export async function appendAttachments(
  doc: PDFDocument,
  files: readonly CheckedAttachment[],
  watermark?: PDFEmbeddedPage,
): Promise<void> {
  for (const file of files) {
    const bytes = decodeBase64(file.base64);
    if (file.kind === "pdf") await appendPdf(doc, file, bytes, watermark);
    else await appendImage(doc, file, bytes, watermark);
  }
}

function unreadable(file: CheckedAttachment, message: string, cause?: unknown): FormsError {
  const path = joinPath("form.attachments", file.index);
  return new FormsError("attachment_unreadable", message, {
    issues: [{ path, code: "attachment_unreadable", message }],
    cause,
  });
}

async function appendPdf(
  doc: PDFDocument,
  file: CheckedAttachment,
  bytes: Uint8Array,
  watermark: PDFEmbeddedPage | undefined,
): Promise<void> {
  let source: PDFDocument;
  try {
    source = await PdfDocument.load(bytes, { ignoreEncryption: true, updateMetadata: false });
  } catch (cause) {
    throw unreadable(file, `"${file.file_name}" cannot be read as a PDF.`, cause);
  }
  if (source.isEncrypted) {
    throw unreadable(
      file,
      `"${file.file_name}" is encrypted or password-protected; send it without protection.`,
    );
  }
  try {
    await copyPages(doc, source, file, watermark);
  } catch (cause) {
    if (FormsError.isInstance(cause)) throw cause;
    throw unreadable(file, `The pages of "${file.file_name}" cannot be read.`, cause);
  }
}

async function copyPages(
  doc: PDFDocument,
  source: PDFDocument,
  file: CheckedAttachment,
  watermark: PDFEmbeddedPage | undefined,
): Promise<void> {
  const pages = source.getPages();
  if (pages.length === 0) throw unreadable(file, `"${file.file_name}" has no pages.`);
  try {
    const form = source.getForm();
    if (form.getFields().length > 0) form.flatten();
  } catch {
    // A form pdf-lib cannot flatten keeps its widgets; copied pages still carry their appearances.
  }
  for (const page of pages) dropDanglingAnnotations(page);
  for (const [index, page] of pages.entries()) {
    const { width, height, angle } = printedSize(page);
    const isLetter =
      Math.abs(width - LETTER.width) <= SIZE_TOLERANCE_PT &&
      Math.abs(height - LETTER.height) <= SIZE_TOLERANCE_PT;
    if (isLetter && angle === 0 && watermark === undefined) {
      const [copied] = await doc.copyPages(source, [index]);
      if (copied !== undefined) doc.addPage(copied);
      continue;
    }
    const target = newLetterPage(doc, watermark);
    // A page without content streams is blank: it stays a blank page.
    if (page.node.Contents() === undefined) continue;
    placeEmbedded(target, await doc.embedPage(page), angle);
  }
}

async function appendImage(
  doc: PDFDocument,
  file: CheckedAttachment,
  bytes: Uint8Array,
  watermark: PDFEmbeddedPage | undefined,
): Promise<void> {
  let image: Awaited<ReturnType<PDFDocument["embedPng"]>>;
  try {
    image = file.kind === "png" ? await doc.embedPng(bytes) : await doc.embedJpg(bytes);
  } catch (cause) {
    throw unreadable(
      file,
      `"${file.file_name}" cannot be read as a ${file.kind.toUpperCase()} image.`,
      cause,
    );
  }
  if (!(image.width > 0 && image.height > 0))
    throw unreadable(file, `"${file.file_name}" is an empty image.`);
  const page = newLetterPage(doc, watermark);
  const scale = Math.min(
    1,
    (LETTER.width - 2 * IMAGE_MARGIN_PT) / image.width,
    (LETTER.height - 2 * IMAGE_MARGIN_PT) / image.height,
  );
  const width = image.width * scale;
  const height = image.height * scale;
  page.drawImage(image, { x: (LETTER.width - width) / 2, y: (LETTER.height - height) / 2, width, height });
}

/** Removes annotation references to objects that no longer exist (flattening deletes the widgets it drew). */
function dropDanglingAnnotations(page: PDFPage): void {
  const annotations = page.node.Annots();
  if (annotations === undefined) return;
  for (let i = annotations.size() - 1; i >= 0; i--) {
    const entry = annotations.get(i);
    if (entry instanceof PDFRef && page.doc.context.lookup(entry) === undefined) annotations.remove(i);
  }
}

function newLetterPage(doc: PDFDocument, watermark: PDFEmbeddedPage | undefined): PDFPage {
  const page = doc.addPage([LETTER.width, LETTER.height]);
  if (watermark !== undefined) page.drawPage(watermark, { x: 0, y: 0 });
  return page;
}

/** The size a page prints at (its crop box, turned by its rotation) and its rotation in degrees (0, 90, 180, 270). */
function printedSize(page: PDFPage): { width: number; height: number; angle: number } {
  const angle = (((page.getRotation().angle % 360) + 360) % 360) as number;
  const { width, height } = page.getSize();
  return angle === 90 || angle === 270 ? { width: height, height: width, angle } : { width, height, angle };
}

/**
 * Draws an embedded page on a US letter page, turned by the source page's rotation, scaled to fit (never
 * enlarged) and centred.
 */
function placeEmbedded(target: PDFPage, embedded: PDFEmbeddedPage, angle: number): void {
  const turned = angle === 90 || angle === 270;
  const printedWidth = turned ? embedded.height : embedded.width;
  const printedHeight = turned ? embedded.width : embedded.height;
  const scale = Math.min(1, LETTER.width / printedWidth, LETTER.height / printedHeight);
  const w = printedWidth * scale;
  const h = printedHeight * scale;
  const left = (LETTER.width - w) / 2;
  const bottom = (LETTER.height - h) / 2;
  // A page with /Rotate r shows its content turned clockwise by r; drawing turns counter-clockwise, so use -r.
  const origin =
    angle === 90
      ? { x: left, y: bottom + h }
      : angle === 180
        ? { x: left + w, y: bottom + h }
        : angle === 270
          ? { x: left + w, y: bottom }
          : { x: left, y: bottom };
  target.drawPage(embedded, {
    x: origin.x,
    y: origin.y,
    xScale: scale,
    yScale: scale,
    rotate: degrees(-angle),
  });
}
