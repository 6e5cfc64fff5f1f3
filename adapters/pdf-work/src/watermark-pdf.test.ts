import { inspectPdf, TypesetterError } from "@mailpiece/typesetter";
import { degrees, PDFDocument, StandardFonts } from "pdf-lib";
import { describe, expect, it } from "vitest";
import { encrypted, handMadePdf, pageTexts, pageWords, rejectionOf } from "./test-support.ts";
import { watermarkPdf } from "./watermark-pdf.ts";

/** Four pages as clients send them: portrait, landscape, a quarter-turned portrait page and an A4 page with a crop. */
async function mixedPdf(): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  const portrait = doc.addPage([612, 792]);
  portrait.drawText("ORIGINAL PAGE ONE", { x: 72, y: 700, size: 14, font });
  const landscape = doc.addPage([792, 612]);
  landscape.drawText("ORIGINAL PAGE TWO", { x: 72, y: 500, size: 14, font });
  const turned = doc.addPage([612, 792]);
  turned.setRotation(degrees(90));
  turned.drawText("ORIGINAL PAGE THREE", { x: 72, y: 400, size: 14, font });
  const a4 = doc.addPage([595.28, 841.89]);
  a4.setCropBox(40, 60, 500, 700);
  a4.drawText("ORIGINAL PAGE FOUR", { x: 80, y: 600, size: 14, font });
  return doc.save();
}

const MARK = { text: "TEST MODE" };

describe("watermarkPdf", () => {
  it("marks every page and keeps the pages, their sizes and their text", async () => {
    const original = await mixedPdf();
    const marked = await watermarkPdf(original, MARK);
    expect(marked.page_count).toBe(4);
    expect(await inspectPdf(marked.pdf)).toEqual(await inspectPdf(original));
    const texts = pageTexts(marked.pdf);
    expect(texts).toHaveLength(4);
    const names = ["ONE", "TWO", "THREE", "FOUR"];
    texts.forEach((text, index) => {
      // Diagonal text reads back letter by letter.
      expect(text.replace(/\s+/g, "")).toContain("TESTMODE");
      expect(text.replace(/\s+/g, " ")).toContain(`ORIGINAL PAGE ${names[index]}`);
    });
    for (const text of pageTexts(original)) expect(text.replace(/\s+/g, "")).not.toContain("TESTMODE");
  });

  it("centres the mark on the page as it is shown, quarter-turned pages and crop boxes included", async () => {
    const marked = await watermarkPdf(await mixedPdf(), MARK);
    // pdftotext places words as the page is shown, from its top left corner: the centre of each page's visible
    // area there (the A4 page's crop box is 40..540 across and 60..760 up, on a page 841.89 high).
    const centres = [
      { x: 306, y: 396 },
      { x: 396, y: 306 },
      { x: 396, y: 306 },
      { x: 290, y: 841.89 - 410 },
    ];
    const pages = pageWords(marked.pdf);
    expect(pages).toHaveLength(4);
    pages.forEach((page, index) => {
      const letters = page.words.filter((word) => /^[TESMOD]{1,4}$/.test(word.text));
      expect(letters.length).toBeGreaterThanOrEqual(4);
      const centre = {
        x: letters.reduce((sum, word) => sum + word.x, 0) / letters.length,
        y: letters.reduce((sum, word) => sum + word.y, 0) / letters.length,
      };
      expect(Math.abs(centre.x - centres[index]!.x)).toBeLessThan(40);
      expect(Math.abs(centre.y - centres[index]!.y)).toBeLessThan(40);
      // Upright: it reads from the lower left to the upper right as the page is shown.
      const first = letters.find((word) => word.text.startsWith("T"));
      const last = letters.find((word) => word.text.endsWith("E") && word !== first);
      expect(first && last && first.x < last.x && first.y > last.y).toBe(true);
    });
  });

  it("leaves the caller's bytes as they were", async () => {
    const original = await mixedPdf();
    const copy = original.slice();
    await watermarkPdf(original, MARK);
    expect(Buffer.from(original).equals(Buffer.from(copy))).toBe(true);
  });

  it("refuses what is not a readable PDF: pdf_unreadable", async () => {
    for (const bytes of [
      new Uint8Array(),
      new TextEncoder().encode("this is not a PDF at all"),
      "%PDF-1.4" as unknown as Uint8Array,
    ]) {
      const error = await rejectionOf(watermarkPdf(bytes, MARK));
      expect(TypesetterError.isInstance(error)).toBe(true);
      expect(error).toMatchObject({ code: "pdf_unreadable" });
    }
  });

  it("refuses an encrypted PDF: pdf_encrypted", async () => {
    const locked = encrypted(handMadePdf([{ width: 612, height: 792 }]), "user-secret");
    const error = await rejectionOf(watermarkPdf(locked, MARK));
    expect(TypesetterError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ code: "pdf_encrypted" });
  });

  it("refuses a blank mark, with the field at fault", async () => {
    const pdf = handMadePdf([{ width: 612, height: 792 }]);
    for (const text of ["", "   ", 7 as unknown as string]) {
      const error = await rejectionOf(watermarkPdf(pdf, { text }));
      expect(TypesetterError.isInstance(error)).toBe(true);
      expect(error).toMatchObject({ code: "invalid_letter_input", field: "watermark" });
    }
  });
});
