import { degrees, PDFDocument } from "pdf-lib";
import { beforeAll, describe, expect, it } from "vitest";
import type { FormAttachmentInput } from "./attachments.ts";
import { buildPacket } from "./build-packet.ts";
import { BUILTIN_WORKFLOWS } from "./builtin-workflows.ts";
import { FormsError } from "./errors.ts";
import {
  BANK,
  BANK_DENIED,
  bankAnswers,
  base64,
  builtin,
  COURT,
  courtAnswers,
  drawnSignature,
  encryptPdf,
  JPEG_BASE64,
  MORTGAGE,
  makePdf,
  makePng,
  mortgageAnswers,
  pdfAttachment,
  pdfInfoPages,
  pdfReadErrors,
  pdfText,
  TODAY,
} from "./test-support.ts";

const SENDER = { lines: ["Jordan Avery Public", "12 Elm Street", "Springfield, IL 62701"] };
const RECIPIENT = { lines: ["Acme Mortgage Servicing", "PO Box 4000", "Dallas, TX 75201-1234"] };
const OPTIONS = { sender: SENDER, recipient: RECIPIENT, today: TODAY };

let statement: FormAttachmentInput;
let motion: FormAttachmentInput;
let exhibitA4: FormAttachmentInput;

beforeAll(async () => {
  statement = pdfAttachment(
    "supporting_records",
    "statement.pdf",
    await makePdf(["STATEMENT ONE", "STATEMENT TWO"]),
  );
  motion = pdfAttachment(
    "primary_document",
    "motion.pdf",
    await makePdf(["MOTION ONE", "MOTION TWO", "MOTION THREE"]),
  );
  exhibitA4 = pdfAttachment(
    "supporting_documents",
    "exhibit-a.pdf",
    await makePdf(["EXHIBIT A"], [595, 842]),
  );
});

/** Text of each page, one string per page. */
function pages(pdf: Uint8Array, count: number, raw = false): string[] {
  return Array.from({ length: count }, (_, i) => pdfText(pdf, { first: i + 1, last: i + 1 }, raw));
}

/** Collapses white space so wrapped lines compare as prose. */
const flat = (text: string) => text.replace(/\s+/g, " ");

async function refusal(promise: Promise<unknown>): Promise<FormsError> {
  try {
    await promise;
  } catch (error) {
    expect(FormsError.isInstance(error)).toBe(true);
    return error as FormsError;
  }
  throw new Error("the packet was built");
}

describe("buildPacket", { timeout: 60_000 }, () => {
  it("mortgage: a letter with the answers and the signature, then the attached copies; page_count exact", async () => {
    const attachments = [
      statement,
      { id: "supporting_records", file_name: "photo.png", base64: base64(makePng(1200, 900)) },
      { id: "supporting_records", file_name: "receipt.jpg", base64: JPEG_BASE64 },
    ];
    const { pdf, page_count } = await buildPacket(
      builtin(MORTGAGE),
      { fields: mortgageAnswers(), attachments },
      OPTIONS,
    );
    expect(page_count).toBe(pdfInfoPages(pdf));
    const text = flat(pdfText(pdf));
    for (const expected of [
      "Notice of Servicing Error and Request for Information",
      "March 9, 2026",
      "To Acme Mortgage Servicing, Notice of Error Department:",
      "Re: Mortgage account number 0012345678",
      "Property: 12 Elm Street, Springfield, IL 62701",
      "Co-borrowers: Casey Public",
      "Payment misapplied or credited on the wrong date",
      "credited on February 20, and a late fee was charged",
      "$74.11",
      "I called customer service on February 24, 2026",
      "Credit the payment as of February 1, 2026 and reverse the late fee",
      "The payment history for the account from January 1, 2026 to today.",
      "1. statement.pdf (Supporting records)",
      "3. receipt.jpg (Supporting records)",
      "Phone: +12175550142",
      "Email: jordan@example.com",
      "Sincerely,",
      "Jordan Avery Public",
      "Written and signed by the sender from their own answers. Printed and mailed by Mailpiece.",
    ]) {
      expect(text).toContain(expected);
    }
    // The letter, then the statement's two pages, then one page per image.
    const letterPages = page_count - 4;
    const byPage = pages(pdf, page_count);
    expect(byPage[letterPages]).toContain("STATEMENT ONE");
    expect(byPage[letterPages + 1]).toContain("STATEMENT TWO");
    expect(byPage.slice(letterPages + 2).map((p) => p.trim())).toEqual(["", ""]);
    // The footer prints on every letter page, never on the copies.
    for (const [i, page] of byPage.entries()) {
      expect(page.includes("Printed and mailed by Mailpiece")).toBe(i < letterPages);
    }
  });

  it("mortgage: hidden and unanswered fields print nothing", async () => {
    const fields = mortgageAnswers();
    fields.include_prior_contact = false;
    fields.include_information_request = false;
    delete fields.phone;
    delete fields.email;
    const { pdf } = await buildPacket(builtin(MORTGAGE), { fields }, OPTIONS);
    const text = flat(pdfText(pdf));
    expect(text).toContain("Notice of Servicing Error");
    expect(text).not.toContain("Request for Information");
    expect(text).not.toContain("I called customer service");
    expect(text).not.toContain("Earlier contact");
    expect(text).not.toContain("How to reach me");
    expect(text).not.toContain("Phone:");
  });

  it("bank: the letter for a denied claim, with a drawn signature", async () => {
    const fields = bankAnswers();
    fields.claim_stage = BANK_DENIED;
    fields.bank_response_date = "2026-03-05";
    fields.bank_response_details = "The bank denied the claim and reversed the provisional credit.";
    fields.investigation_records_requested = "Copies of the documents the bank relied on.";
    fields.signature = drawnSignature();
    const { pdf, page_count } = await buildPacket(builtin(BANK), { fields }, OPTIONS);
    expect(page_count).toBe(pdfInfoPages(pdf));
    const text = flat(pdfText(pdf));
    for (const expected of [
      "Request for Investigation Records About an Electronic Transfer Error",
      "Re: Account ending in 4821",
      "Claim number: CLM-2026-0042",
      "I first reported the transfer described below to you on February 15, 2026 (channel: Phone).",
      "Date of your decision: March 5, 2026",
      "The bank denied the claim and reversed the provisional credit.",
      "Authorization: I did not initiate or authorize the disputed transfer",
      "Total amount disputed: $412.50",
      "Copies of the documents the bank relied on.",
    ]) {
      expect(text).toContain(expected);
    }
    const doc = await PDFDocument.load(pdf);
    expect(doc.getPageCount()).toBe(page_count);
  });

  it("bank: the typed signature prints", async () => {
    const { pdf } = await buildPacket(builtin(BANK), { fields: bankAnswers() }, OPTIONS);
    const text = flat(pdfText(pdf));
    expect(text).toContain("Written Notice of an Electronic Transfer Error");
    expect(text).toContain("Morgan Lee Example");
  });

  it("court: a cover sheet, then the primary document, then the supporting documents in the given order", async () => {
    const png = { id: "supporting_documents", file_name: "exhibit-b.png", base64: base64(makePng(300, 200)) };
    const { pdf, page_count } = await buildPacket(
      builtin(COURT),
      { fields: courtAnswers(), attachments: [exhibitA4, png, motion] },
      OPTIONS,
    );
    expect(page_count).toBe(6);
    expect(pdfInfoPages(pdf)).toBe(6);
    const byPage = pages(pdf, 6);
    const cover = flat(byPage[0] ?? "");
    for (const expected of [
      "Document Mailing Cover Sheet",
      "To: Circuit Court of Example County",
      "Attention: Clerk of the Court, Civil Division",
      "Document title: Motion to Continue Hearing",
      "Case status: Yes — an existing case",
      "Case number: 2026-CV-00417",
      "1. motion.pdf (Completed court document)",
      "2. exhibit-a.pdf (Exhibits and supporting documents)",
      "3. exhibit-b.png (Exhibits and supporting documents)",
      "Cover sheet prepared from the sender's answers. Printed and mailed by Mailpiece.",
    ]) {
      expect(cover).toContain(expected);
    }
    expect(byPage.slice(1, 5).map((p) => p.trim())).toEqual([
      "MOTION ONE",
      "MOTION TWO",
      "MOTION THREE",
      "EXHIBIT A",
    ]);
    const doc = await PDFDocument.load(pdf);
    for (const page of doc.getPages()) expect(page.getSize()).toEqual({ width: 612, height: 792 });
  });

  it("court: the cover sheet prints the filing deadline when one is given (in the sender's words, not as a legal claim), and no line when none is", async () => {
    const court = builtin(COURT);
    const { pdf } = await buildPacket(court, { fields: courtAnswers(), attachments: [motion] }, OPTIONS);
    const cover = flat(pages(pdf, 1)[0] ?? "");
    expect(cover).toContain("Filing due date (stated by the sender): April 1, 2026");
    const fields = courtAnswers();
    delete fields.filing_deadline;
    const without = await buildPacket(court, { fields, attachments: [motion] }, OPTIONS);
    const bare = flat(pages(without.pdf, 1)[0] ?? "");
    expect(bare).toContain("Case number: 2026-CV-00417");
    expect(bare).not.toContain("Filing due date");
  });

  it("prints none of a free letter's page furniture: no page numbers, continuation lines or stray date lines", async () => {
    const { pdf } = await buildPacket(
      builtin(COURT),
      { fields: courtAnswers(), attachments: [motion] },
      OPTIONS,
    );
    const text = pages(pdf, 3).map(flat).join(" ");
    expect(text).not.toMatch(/Page \d+ of \d+/);
    expect(text).not.toMatch(/— page \d+/);
    // The typesetter's own date line is "24 November 2026"; packets write their dates in their own words.
    expect(text).not.toMatch(
      /\b\d{1,2} (January|February|March|April|May|June|July|August|September|October|November|December) \d{4}\b/,
    );
  });

  it("puts a watermark on every page, attached copies included", async () => {
    const { pdf, page_count } = await buildPacket(
      builtin(COURT),
      { fields: courtAnswers(), attachments: [motion, exhibitA4] },
      { ...OPTIONS, watermark: "TEST MODE" },
    );
    const byPage = pages(pdf, page_count, true);
    expect(byPage).toHaveLength(5);
    // Diagonal text reads back letter by letter.
    for (const page of byPage) expect(page.replace(/\s+/g, "")).toContain("TESTMODE");
    expect(byPage[1]).toContain("MOTION ONE");
  });

  it("fits other page sizes and rotated pages onto US letter, and prints filled form fields", async () => {
    const doc = await PDFDocument.create();
    const turned = doc.addPage([612, 792]);
    turned.setRotation(degrees(90));
    doc.addPage([792, 612]);
    const formPage = doc.addPage([612, 792]);
    const field = doc.getForm().createTextField("name");
    field.setText("FIELD VALUE 123");
    field.addToPage(formPage, { x: 50, y: 600, width: 300, height: 30 });
    const odd = pdfAttachment("supporting_documents", "odd.pdf", await doc.save());
    const { pdf, page_count } = await buildPacket(
      builtin(COURT),
      { fields: courtAnswers(), attachments: [motion, odd] },
      OPTIONS,
    );
    expect(page_count).toBe(1 + 3 + 3);
    const out = await PDFDocument.load(pdf);
    for (const page of out.getPages()) {
      expect(page.getSize()).toEqual({ width: 612, height: 792 });
      expect(page.getRotation().angle).toBe(0);
    }
    expect(pdfText(pdf, { first: 7, last: 7 })).toContain("FIELD VALUE 123");
    // Flattening deletes the widgets it drew; no page may still point at them.
    expect(pdfReadErrors(pdf)).toBe("");
  });

  it("refuses render values out of range with invalid_options", async () => {
    const error = await refusal(
      buildPacket(
        builtin(MORTGAGE),
        { fields: mortgageAnswers() },
        { ...OPTIONS, render: { font_size: 30 } },
      ),
    );
    expect(error.code).toBe("invalid_options");
  });

  it("is deterministic: the same answers give the same bytes", async () => {
    const input = { fields: mortgageAnswers(), attachments: [statement] };
    const first = await buildPacket(builtin(MORTGAGE), input, OPTIONS);
    const second = await buildPacket(builtin(MORTGAGE), input, OPTIONS);
    expect(Buffer.from(first.pdf).equals(Buffer.from(second.pdf))).toBe(true);
  });

  it("refuses answers evaluateForm refuses, with every issue", async () => {
    const fields = mortgageAnswers();
    delete fields.signature;
    const error = await refusal(buildPacket(builtin(MORTGAGE), { fields }, OPTIONS));
    expect(error.code).toBe("form_invalid");
    expect(error.issues.map((i) => `${i.path} ${i.code}`)).toEqual(["form.fields.signature required"]);
  });

  it("refuses out-of-scope answers before anything is printed", async () => {
    const fields = bankAnswers();
    fields.transaction_scope = "Wire transfer";
    const error = await refusal(buildPacket(builtin(BANK), { fields }, OPTIONS));
    expect(error.code).toBe("form_invalid");
    expect(error.issues.map((i) => i.code)).toEqual(["out_of_scope_wire_transfer"]);
  });

  it("refuses an encrypted or unreadable PDF copy with attachment_unreadable and its path", async () => {
    const locked = pdfAttachment("supporting_records", "locked.pdf", encryptPdf(await makePdf(["SECRET"])));
    const encrypted = await refusal(
      buildPacket(builtin(MORTGAGE), { fields: mortgageAnswers(), attachments: [locked] }, OPTIONS),
    );
    expect(encrypted.code).toBe("attachment_unreadable");
    expect(encrypted.issues.map((i) => i.path)).toEqual(["form.attachments[0]"]);
    const broken = {
      id: "supporting_records",
      file_name: "broken.pdf",
      base64: Buffer.from("%PDF-1.7\nthis is not a pdf").toString("base64"),
    };
    const unreadable = await refusal(
      buildPacket(
        builtin(MORTGAGE),
        { fields: mortgageAnswers(), attachments: [statement, broken] },
        OPTIONS,
      ),
    );
    expect(unreadable.code).toBe("attachment_unreadable");
    expect(unreadable.issues.map((i) => i.path)).toEqual(["form.attachments[1]"]);
  });

  it("refuses text the fonts cannot print, and addresses too long for the window, with packet_unprintable", async () => {
    const fields = mortgageAnswers();
    fields.error_description = "The payment note said 漢字 and was then credited on the wrong date.";
    const glyphs = await refusal(buildPacket(builtin(MORTGAGE), { fields }, OPTIONS));
    expect(glyphs.code).toBe("packet_unprintable");
    expect(glyphs.issues).toEqual([
      expect.objectContaining({ path: "form.fields", code: "character_unsupported" }),
    ]);
    const tall = { lines: Array.from({ length: 12 }, (_, i) => `Line ${i}`) };
    const window = await refusal(
      buildPacket(builtin(MORTGAGE), { fields: mortgageAnswers() }, { ...OPTIONS, recipient: tall }),
    );
    expect(window.code).toBe("packet_unprintable");
    expect(window.issues).toEqual([
      expect.objectContaining({ path: "recipient", code: "address_too_long_for_window" }),
    ]);
  });
});

describe("packet templates give no legal advice", () => {
  const LEGAL =
    /\b(law|laws|legal|legally|statute|regulation|RESPA|CFR|U\.S\.C|liable|liability|entitled|obligated|must respond|within \d+ (business )?days|deadline|valid|binding|proof)\b/i;
  it.each(BUILTIN_WORKFLOWS.map((w) => [w.slug, w] as const))("%s", (_, workflow) => {
    const packet = workflow.packet;
    const texts = [
      ...packet.titles.map((t) => t.text),
      ...packet.sections.flatMap((s) => [s.heading ?? "", ...s.lines]),
      packet.closing ?? "",
      packet.footer,
    ].map((text) => text.replace(/\{\{[^}]*\}\}/g, ""));
    for (const text of texts) expect(text).not.toMatch(LEGAL);
  });
});
