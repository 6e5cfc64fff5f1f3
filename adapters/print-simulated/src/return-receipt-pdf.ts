import type { PrintAddress } from "@mailpiece/ports";
import { LineCapStyle, PDFDocument, type PDFFont, type PDFPage, rgb, StandardFonts } from "pdf-lib";
import { signaturePath } from "./signature-path.ts";

/** What a simulated electronic return receipt shows. */
export interface ReceiptSheet {
  /** The job's reference at the simulated printer. */
  reference: string;
  /** The article number. */
  trackingNumber: string;
  recipient: PrintAddress;
  /** When the piece was delivered and signed for, in milliseconds since the epoch. */
  signedAt: number;
  deliveryLocation: string;
  signerName: string;
}

const INK = rgb(0.1, 0.1, 0.12);
const GREY = rgb(0.42, 0.42, 0.45);
const PEN = rgb(0.08, 0.16, 0.45);
const WARNING = rgb(0.6, 0.1, 0.1);
const MARGIN = 54;
const PAGE: [number, number] = [612, 792];

/**
 * A one-page US Letter PDF laid out like a carrier's electronic return receipt: the article number, the delivery
 * date, time and place, the address it was sent to, the drawn signature and the signer's printed name, clearly
 * marked as simulated. The same sheet always gives the same bytes: the document dates are the signing time and
 * nothing else varies. Text outside the standard fonts' character set is shown without accents, or as `?`.
 */
export async function returnReceiptPdf(sheet: ReceiptSheet): Promise<Uint8Array> {
  const pdf = await PDFDocument.create({ updateMetadata: false });
  const signed = new Date(sheet.signedAt);
  pdf.setTitle(`Electronic Return Receipt ${sheet.trackingNumber}`);
  pdf.setSubject("Simulated proof of delivery of a certified letter");
  pdf.setProducer("Mailpiece simulated printer");
  pdf.setCreator("Mailpiece simulated printer");
  pdf.setCreationDate(signed);
  pdf.setModificationDate(signed);
  const regular = await pdf.embedFont(StandardFonts.Helvetica);
  const bold = await pdf.embedFont(StandardFonts.HelveticaBold);
  const mono = await pdf.embedFont(StandardFonts.CourierBold);
  const page = pdf.addPage(PAGE);
  /** Draws one line, in a smaller size when it would run past the right margin. */
  const write = (text: string, x: number, y: number, font: PDFFont, size: number, color = INK) => {
    const line = printable(text, font);
    const room = PAGE[0] - MARGIN - x;
    const fitted = Math.min(size, (size * room) / Math.max(font.widthOfTextAtSize(line, size), 1));
    page.drawText(line, { x, y, font, size: fitted, color });
  };

  let y = PAGE[1] - MARGIN - 18;
  write("Electronic Return Receipt", MARGIN, y, bold, 22);
  y -= 20;
  write("Certified Mail - proof of delivery", MARGIN, y, regular, 12, GREY);
  y -= 16;
  write(
    "SIMULATED: issued by the Mailpiece test printer for test mode, not by a postal carrier.",
    MARGIN,
    y,
    regular,
    9,
    WARNING,
  );
  y -= 14;
  rule(page, y);

  const row = (label: string, lines: string[], font: PDFFont, size: number) => {
    y -= 22;
    write(label.toUpperCase(), MARGIN, y, bold, 8, GREY);
    for (const line of lines) {
      y -= size + 5;
      write(line, MARGIN, y, font, size);
    }
  };
  row("Article number", [sheet.trackingNumber], mono, 15);
  row("Delivered", [formatTime(signed)], regular, 12);
  row("Delivery location", [sheet.deliveryLocation], regular, 12);
  row("Addressed to", addressLines(sheet.recipient), regular, 12);
  y -= 18;
  rule(page, y);

  y -= 22;
  write("SIGNATURE", MARGIN, y, bold, 8, GREY);
  const box = { x: MARGIN, width: 300, height: 80 };
  y -= box.height + 6;
  page.drawRectangle({
    x: box.x,
    y,
    width: box.width,
    height: box.height,
    borderColor: GREY,
    borderWidth: 0.5,
  });
  page.drawSvgPath(signaturePath(sheet.reference, sheet.signerName, box.width - 30, box.height - 12), {
    x: box.x + 15,
    y: y + box.height - 6,
    borderColor: PEN,
    borderWidth: 1.4,
    borderLineCap: LineCapStyle.Round,
  });
  y -= 14;
  write("Signature of addressee or agent", MARGIN, y, regular, 8, GREY);
  row("Printed name", [sheet.signerName], bold, 13);
  row("Signed", [formatTime(signed)], regular, 12);

  write(`Mailpiece simulated printer - job ${sheet.reference}`, MARGIN, MARGIN, regular, 8, GREY);
  return pdf.save();
}

function rule(page: PDFPage, y: number): void {
  page.drawLine({
    start: { x: MARGIN, y },
    end: { x: PAGE[0] - MARGIN, y },
    thickness: 0.6,
    color: GREY,
  });
}

function addressLines(address: PrintAddress): string[] {
  const region = [address.city, [address.state, address.postal_code].filter(Boolean).join(" ")].join(", ");
  return [address.name, address.company, address.line1, address.line2, region, address.country].filter(
    (line): line is string => typeof line === "string" && line.trim().length > 0,
  );
}

const DAY = new Intl.DateTimeFormat("en-US", {
  timeZone: "UTC",
  year: "numeric",
  month: "long",
  day: "numeric",
});

/** `January 1, 2026 at 00:00:30 UTC`: in UTC and US English whatever the process's zone and locale. */
function formatTime(date: Date): string {
  return `${DAY.format(date)} at ${date.toISOString().slice(11, 19)} UTC`;
}

const CHARACTER_SETS = new WeakMap<PDFFont, Set<number>>();

/** `text` in characters `font` can show: accents dropped where that helps, anything else as `?`. */
function printable(text: string, font: PDFFont): string {
  let known = CHARACTER_SETS.get(font);
  if (!known) {
    known = new Set(font.getCharacterSet());
    CHARACTER_SETS.set(font, known);
  }
  return [...text.replace(/\s+/g, " ")]
    .map((char) => {
      const shows = (c: string) => known.has(c.codePointAt(0) as number);
      if (shows(char)) return char;
      const plain = char.normalize("NFKD").replace(/[\u0300-\u036f]/g, "");
      return plain.length > 0 && [...plain].every(shows) ? plain : "?";
    })
    .join("");
}
