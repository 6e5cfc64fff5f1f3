import { PDFDocument, StandardFonts } from "pdf-lib";

/** Request fixtures the machine suite sends. Each call returns a fresh object with a new request_id. */

export function manualAddress(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    line1: "1600 Pennsylvania Ave NW",
    city: "Washington",
    state: "DC",
    zip: "20500",
    countryCode: "US",
    ...overrides,
  };
}

export function letterOrder(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    request_id: crypto.randomUUID(),
    buyer_name: "Ada Buyer",
    buyer_email: "ada@example.com",
    sender_name: "Zoë Łukasz-Müller",
    sender_address_type: "Manual",
    sender_address_manual: manualAddress({
      line1: "350 Fifth Avenue",
      city: "New York",
      state: "NY",
      zip: "10118",
    }),
    recipient_name: "Grace Recipient",
    recipient_address_type: "Manual",
    recipient_address_manual: manualAddress(),
    letter:
      "Dear Grace,\n\nThank you for the kind note. This letter was printed and posted for me.\n\nBest wishes",
    ...overrides,
  };
}

/** A PDF made here, so the suite needs no files: `pages` pages of the given size in points. */
export async function makePdf(pages: number, size: [number, number] = [612, 792]): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  for (let i = 0; i < pages; i++) {
    const page = doc.addPage(size);
    page.drawText(`Page ${i + 1}`, { x: 36, y: size[1] / 2, size: 12, font });
  }
  return doc.save();
}

export function pdfDataUrl(bytes: Uint8Array): string {
  return `data:application/pdf;base64,${Buffer.from(bytes).toString("base64")}`;
}

export function longBody(paragraphs: number): string {
  const paragraph =
    "This paragraph is long enough to wrap across several lines of a printed letter, so that the typesetter has to measure words, break lines and carry the text over to the next page when the page is full.";
  return Array.from({ length: paragraphs }, (_, i) => `${i + 1}. ${paragraph}`).join("\n\n");
}
