import { PDFDocument } from "pdf-lib";
import { TypesetterError } from "./errors.ts";

export interface PdfInfo {
  page_count: number;
  /** Size of each page as it prints: the media box, turned by the page's rotation. */
  pages: { width_pt: number; height_pt: number }[];
  encrypted: boolean;
}

/**
 * Reads the page count and page sizes of a PDF. Refuses bytes that are not a readable PDF with at least one page
 * (`pdf_unreadable`) and encrypted PDFs (`pdf_encrypted`), which print providers cannot process. `encrypted` is
 * therefore always false in a result. Never changes the bytes.
 */
export async function inspectPdf(bytes: Uint8Array): Promise<PdfInfo> {
  if (!(bytes instanceof Uint8Array) || bytes.byteLength === 0) {
    throw new TypesetterError("pdf_unreadable", "The PDF is empty.");
  }
  let doc: PDFDocument;
  try {
    doc = await PDFDocument.load(bytes, {
      ignoreEncryption: true,
      updateMetadata: false,
      throwOnInvalidObject: false,
    });
  } catch (cause) {
    throw new TypesetterError("pdf_unreadable", "The file cannot be read as a PDF.", { cause });
  }
  if (doc.isEncrypted) {
    throw new TypesetterError(
      "pdf_encrypted",
      "The PDF is encrypted or password-protected; remove the protection and send it again.",
    );
  }
  let pages: PdfInfo["pages"];
  try {
    pages = doc.getPages().map((page) => {
      const { width, height } = page.getMediaBox();
      const turned = Math.abs(page.getRotation().angle) % 180 === 90;
      return turned ? { width_pt: height, height_pt: width } : { width_pt: width, height_pt: height };
    });
  } catch (cause) {
    throw new TypesetterError("pdf_unreadable", "The pages of the PDF cannot be read.", { cause });
  }
  if (pages.length === 0) throw new TypesetterError("pdf_unreadable", "The PDF has no pages.");
  return { page_count: pages.length, pages, encrypted: false };
}
