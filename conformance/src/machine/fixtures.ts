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

const FIXED_PDF_DATE = new Date(Date.UTC(2026, 0, 1));

/**
 * A PDF made here, so the suite needs no files: `pages` pages of the given size in points, each saying its number.
 * The same arguments give the same bytes.
 */
export async function makePdf(pages: number, size: [number, number] = [612, 792]): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  // Fixed dates: pdf-lib stamps the time of creation, so two calls a second apart would make different documents.
  doc.setCreationDate(FIXED_PDF_DATE);
  doc.setModificationDate(FIXED_PDF_DATE);
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

/** A complete, in-scope answer set for the mortgage-servicing-error-packet workflow (spec 2, form 1). */
export function mortgageFormFields(): Record<string, unknown> {
  return {
    relationship_to_loan: "Borrower or co-borrower",
    loan_type: "Closed-end residential mortgage",
    request_scope: "Mortgage servicing after closing",
    foreclosure_sale_scheduled: "No",
    active_bankruptcy_or_litigation: "No",
    payment_enclosed: "No",
    letter_date: "2026-03-09",
    sender_name: "Jordan Avery Public",
    sender_address: { line1: "12 Elm Street", city: "Springfield", state: "IL", zip: "62701" },
    property_address: "12 Elm Street, Springfield, IL 62701",
    mortgage_account_number: "0012345678",
    recipient_name: "Acme Mortgage Servicing, Notice of Error Department",
    recipient_address: { line1: "PO Box 4000", city: "Dallas", state: "TX", zip: "75201", countryCode: "US" },
    designated_address_source: "Current mortgage statement",
    designated_address_confirmed: true,
    primary_issue: "Payment misapplied or credited on the wrong date",
    error_description:
      "My February payment of $1,482.10 was received on February 1 but credited on February 20, and a late fee was charged.",
    relevant_dates: "Payment sent January 28, 2026; received February 1, 2026; credited February 20, 2026.",
    requested_correction: "Credit the payment as of February 1, 2026 and reverse the late fee of $74.11.",
    signature: { mode: "typed", text: "Jordan Avery Public" },
    facts_acknowledged: true,
    product_limits_acknowledged: true,
  };
}

/** A certified order carrying the mortgage form, sent to the servicer's designated address. */
export function mortgageFormOrder(
  fields = mortgageFormFields(),
  overrides: Record<string, unknown> = {},
): Record<string, unknown> {
  return letterOrder({
    letter: undefined,
    certified: true,
    sender_name: "Jordan Avery Public",
    sender_address_manual: {
      line1: "12 Elm Street",
      city: "Springfield",
      state: "IL",
      zip: "62701",
      countryCode: "US",
    },
    recipient_name: "Acme Mortgage Servicing, Notice of Error Department",
    recipient_address_manual: {
      line1: "PO Box 4000",
      city: "Dallas",
      state: "TX",
      zip: "75201",
      countryCode: "US",
    },
    form: { slug: "mortgage-servicing-error-packet", fields },
    ...overrides,
  });
}

/** A flower letter for delivery `daysAhead` days from now (moved off Sundays), to a covered ZIP. */
export function flowerLetterRequest(
  overrides: Record<string, unknown> = {},
  daysAhead = 5,
): Record<string, unknown> {
  const day = new Date(Date.now() + daysAhead * 86_400_000);
  if (day.getUTCDay() === 0) day.setUTCDate(day.getUTCDate() + 1);
  return {
    request_id: crypto.randomUUID(),
    buyer_name: "Grace Hopper",
    buyer_email: "grace@example.com",
    note: "Happy birthday, Ada! Thinking of you today.",
    zipcode: "10118",
    product_code: "red-roses-dozen",
    delivery_date: day.toISOString().slice(0, 10),
    customer: { name: "Grace Hopper", email: "grace@example.com", country: "US" },
    recipient: {
      name: "Ada Lovelace",
      phone: "(212) 555-0100",
      address1: "350 Fifth Avenue",
      city: "New York",
      state: "NY",
      zipcode: "10118",
      country: "US",
    },
    allow_substitutions: true,
    ...overrides,
  };
}
