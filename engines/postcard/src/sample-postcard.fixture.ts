import { PDFDocument, rgb, StandardFonts } from "pdf-lib";
import { photoPng } from "./png.fixture.ts";

export { PDFDocument };

/**
 * A realistic, valid 4x6 postcard: page 1 a full-bleed 1800 x 1200 px photo (300 dpi at 6 x 4 in) with a title;
 * page 2 a heading, an eight-line message, a divider and a small picture, all outside the address zone.
 */
export async function samplePostcardPdf(): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const photo = await doc.embedPng(photoPng(1800, 1200));
  const font = await doc.embedFont(StandardFonts.Helvetica);
  const bold = await doc.embedFont(StandardFonts.HelveticaBold);
  const front = doc.addPage([450, 306]);
  front.drawImage(photo, { x: 0, y: 0, width: 450, height: 306 });
  front.drawText("Greetings from Lake Tahoe", { x: 24, y: 246, size: 28, font: bold, color: rgb(1, 1, 1) });
  const back = doc.addPage([450, 306]);
  back.drawText("Lake Tahoe, June 2026", { x: 24, y: 270, size: 12, font: bold });
  const lines = [
    "Dear Sam,",
    "the lake is as blue as the",
    "brochure promised, and the",
    "water is far colder. We hiked",
    "to Eagle Falls on Tuesday and",
    "rented a kayak yesterday.",
    "Back on the 14th - see you!",
    "Love, Alex",
  ];
  lines.forEach((line, i) => {
    back.drawText(line, { x: 24, y: 246 - i * 15, size: 10, font });
  });
  back.drawLine({
    start: { x: 184, y: 24 },
    end: { x: 184, y: 282 },
    thickness: 0.75,
    color: rgb(0.5, 0.5, 0.5),
  });
  back.drawImage(photo, { x: 340, y: 210, width: 72, height: 48 });
  return doc.save();
}
