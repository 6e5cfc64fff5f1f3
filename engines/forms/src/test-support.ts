/**
 * Test support: complete valid answer sets for the three built-in workflows and small files to attach.
 * Not part of the package's API (excluded from the published files).
 */
import { execFileSync, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { deflateSync } from "node:zlib";
import { PDFDocument, rgb, StandardFonts } from "pdf-lib";
import type { FormAttachmentInput } from "./attachments.ts";
import { BUILTIN_WORKFLOWS } from "./builtin-workflows.ts";
import { findWorkflow } from "./catalog.ts";
import type { FormEvaluation } from "./evaluate-form.ts";
import { evaluateForm } from "./evaluate-form.ts";
import type { Workflow } from "./workflow.ts";

export function builtin(slug: string): Workflow {
  const workflow = findWorkflow(BUILTIN_WORKFLOWS, slug);
  if (workflow === undefined) throw new Error(`no built-in workflow ${slug}`);
  return workflow;
}

export const MORTGAGE = "mortgage-servicing-error-packet";
export const BANK = "bank-fraud-unauthorized-transfer-dispute";
export const COURT = "court-document-mailing-packets";
export const TODAY = "2026-03-10";

export const SENDER_ADDRESS = { line1: "12 Elm Street", city: "Springfield", state: "IL", zip: "62701" };
export const SERVICER_ADDRESS = {
  line1: "PO Box 4000",
  line2: "Notice of Error Dept.",
  city: "Dallas",
  state: "TX",
  zip: "75201-1234",
  countryCode: "US",
};

export function mortgageAnswers(): Record<string, unknown> {
  return {
    relationship_to_loan: "Borrower or co-borrower",
    loan_type: "Closed-end residential mortgage",
    request_scope: "Mortgage servicing after closing",
    foreclosure_sale_scheduled: "No",
    active_bankruptcy_or_litigation: "No",
    payment_enclosed: "No",
    letter_date: "2026-03-09",
    sender_name: "Jordan Avery Public",
    include_co_borrowers: true,
    co_borrower_names: "Casey Public",
    sender_address: { ...SENDER_ADDRESS },
    property_address: "12 Elm Street, Springfield, IL 62701",
    mortgage_account_number: "0012345678",
    phone: "+1 (217) 555-0142",
    email: "jordan@example.com",
    recipient_name: "Acme Mortgage Servicing, Notice of Error Department",
    recipient_address: { ...SERVICER_ADDRESS },
    designated_address_source: "Current mortgage statement",
    designated_address_confirmed: true,
    primary_issue: "Payment misapplied or credited on the wrong date",
    error_description:
      "My February payment of $1,482.10 was received on February 1 but credited on February 20, and a late fee was charged.",
    relevant_dates: "Payment sent January 28, 2026; received February 1, 2026; credited February 20, 2026.",
    include_amount_in_dispute: true,
    amount_in_dispute: "$74.11",
    include_prior_contact: true,
    prior_contact_details: "I called customer service on February 24, 2026 (reference 55-1020).",
    requested_correction: "Credit the payment as of February 1, 2026 and reverse the late fee of $74.11.",
    include_information_request: true,
    information_requested: "The payment history for the account from January 1, 2026 to today.",
    include_attachment_summary: true,
    attachment_summary: "A copy of my bank statement showing the payment.",
    signature: { mode: "typed", text: "Jordan Avery Public" },
    facts_acknowledged: true,
    product_limits_acknowledged: true,
  };
}

export const BANK_DENIED = "Claim denied or provisional credit reversed — request investigation records";

export function bankAnswers(): Record<string, unknown> {
  return {
    relationship_to_account: "Account holder or joint account holder",
    account_use: "Personal consumer account",
    transaction_scope: "Electronic fund transfer from a deposit or prepaid account",
    already_reported_to_bank: "Yes — I already reported it through an immediate channel",
    active_legal_matter: "No",
    physical_enclosure: "No",
    claim_stage: "Initial written error notice after reporting the transfer",
    error_type: "Unauthorized electronic transfer",
    transfer_rail: "Debit card purchase",
    authorization_scope: "I did not initiate or authorize the disputed transfer",
    consumer_received_benefit: "No",
    letter_date: "2026-03-09",
    sender_name: "Morgan Lee Example",
    sender_address: { ...SENDER_ADDRESS },
    account_last_4: "4821",
    phone: "217-555-0199",
    email: "morgan@example.org",
    recipient_name: "First Example Bank, Error Resolution Department",
    recipient_address: { line1: "500 Main Street", city: "Columbus", state: "OH", zip: "43215" },
    dispute_address_source: "Current account statement",
    dispute_address_confirmed: true,
    statement_date: "2026-02-28",
    disputed_transactions: "2026-02-14 debit card purchase, ONLINE STORE 8841, $412.50",
    total_disputed_amount: "412.50",
    why_error: "I did not make this purchase and my card was in my possession the whole time.",
    chronology: "I saw the charge on February 15, 2026 and called the bank the same day to report it.",
    bank_contact_channel: "Phone",
    bank_contact_date: "2026-02-15",
    include_bank_claim_number: true,
    bank_claim_number: "CLM-2026-0042",
    requested_correction: "Credit my account with $412.50 and any related fees.",
    include_attachment_summary: false,
    signature: { mode: "typed", text: "Morgan Lee Example" },
    facts_acknowledged: true,
    immediate_notice_acknowledged: true,
    product_limits_acknowledged: true,
  };
}

export function courtAnswers(): Record<string, unknown> {
  return {
    document_type: "Motion or application",
    document_title: "Motion to Continue Hearing",
    case_status: "Yes — an existing case",
    case_caption: "Example v. Sample",
    case_number: "2026-CV-00417",
    sender_name: "Riley Sample",
    sender_role: "Defendant, self-represented",
    sender_address: { ...SENDER_ADDRESS },
    recipient_company_name: "Circuit Court of Example County",
    recipient_name: "Clerk of the Court, Civil Division",
    recipient_address: { line1: "200 Court Plaza", city: "Springfield", state: "IL", zip: "62701" },
    filing_deadline: "2026-04-01",
    packet_notes: "Please file the enclosed motion in the case above.",
    mail_acceptance_acknowledged: true,
    filing_requirements_acknowledged: true,
    no_physical_enclosures_acknowledged: true,
    service_acknowledged: true,
    not_filed_acknowledged: true,
    not_legal_advice_acknowledged: true,
  };
}

/** A PDF with one page per text, each text drawn on it (Helvetica), of the given size (US letter by default). */
export async function makePdf(texts: string[], size: [number, number] = [612, 792]): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  for (const text of texts) {
    const page = doc.addPage(size);
    page.drawText(text, { x: 40, y: size[1] - 60, size: 14, font, color: rgb(0, 0, 0) });
  }
  return doc.save();
}

export function base64(bytes: Uint8Array): string {
  return Buffer.from(bytes).toString("base64");
}

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

function crc32(bytes: Uint8Array): number {
  let c = 0xffffffff;
  for (const byte of bytes) c = (CRC_TABLE[(c ^ byte) & 0xff] ?? 0) ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

function chunk(type: string, data: Uint8Array): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, "latin1");
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])), 0);
  return Buffer.concat([head, data, crc]);
}

/** A solid-colour RGB PNG of the given size. */
export function makePng(
  width: number,
  height: number,
  colour: [number, number, number] = [20, 60, 200],
): Uint8Array {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.set([8, 2, 0, 0, 0], 8);
  const row = Buffer.alloc(1 + width * 3);
  for (let x = 0; x < width; x++) row.set(colour, 1 + x * 3);
  const raw = Buffer.concat(Array.from({ length: height }, () => row));
  return new Uint8Array(
    Buffer.concat([
      Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
      chunk("IHDR", header),
      chunk("IDAT", deflateSync(raw)),
      chunk("IEND", new Uint8Array()),
    ]),
  );
}

/** A 16 x 8 pixel baseline JPEG. */
export const JPEG_BASE64 =
  "/9j/4AAQSkZJRgABAQEASABIAAD/2wBDABALDA4MChAODQ4SERATGCgaGBYWGDEjJR0oOjM9PDkzODdASFxOQERXRTc4UG1RV19iZ2hnPk1xeXBkeFxlZ2P/2wBDARESEhgVGC8aGi9jQjhCY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2P/wAARCAAIABADASIAAhEBAxEB/8QAHwAAAQUBAQEBAQEAAAAAAAAAAAECAwQFBgcICQoL/8QAtRAAAgEDAwIEAwUFBAQAAAF9AQIDAAQRBRIhMUEGE1FhByJxFDKBkaEII0KxwRVS0fAkM2JyggkKFhcYGRolJicoKSo0NTY3ODk6Q0RFRkdISUpTVFVWV1hZWmNkZWZnaGlqc3R1dnd4eXqDhIWGh4iJipKTlJWWl5iZmqKjpKWmp6ipqrKztLW2t7i5usLDxMXGx8jJytLT1NXW19jZ2uHi4+Tl5ufo6erx8vP09fb3+Pn6/8QAHwEAAwEBAQEBAQEBAQAAAAAAAAECAwQFBgcICQoL/8QAtREAAgECBAQDBAcFBAQAAQJ3AAECAxEEBSExBhJBUQdhcRMiMoEIFEKRobHBCSMzUvAVYnLRChYkNOEl8RcYGRomJygpKjU2Nzg5OkNERUZHSElKU1RVVldYWVpjZGVmZ2hpanN0dXZ3eHl6goOEhYaHiImKkpOUlZaXmJmaoqOkpaanqKmqsrO0tba3uLm6wsPExcbHyMnK0tPU1dbX2Nna4uPk5ebn6Onq8vP09fb3+Pn6/9oADAMBAAIRAxEAPwDEr1uiivRx/wBn5/oc9Dqf/9k=";

export function pdfAttachment(id: string, fileName: string, bytes: Uint8Array): FormAttachmentInput {
  return { id, file_name: fileName, base64: `data:application/pdf;base64,${base64(bytes)}` };
}

/** A drawn signature: a small PNG as a data URL. */
export function drawnSignature(): { mode: "drawn"; dataUrl: string } {
  return { mode: "drawn", dataUrl: `data:image/png;base64,${base64(makePng(120, 40, [10, 10, 10]))}` };
}

/**
 * Reads a PDF back the way a person would: its text by pdftotext (optionally pages first..last), layout kept, or
 * in content-stream order with `raw` (for diagonal text such as a watermark).
 */
export function pdfText(pdf: Uint8Array, pages?: { first: number; last: number }, raw = false): string {
  return withTempPdf(pdf, (file) =>
    execFileSync(
      "pdftotext",
      [
        raw ? "-raw" : "-layout",
        ...(pages === undefined ? [] : ["-f", String(pages.first), "-l", String(pages.last)]),
        file,
        "-",
      ],
      { encoding: "utf8" },
    ),
  );
}

/** What poppler complains about while reading the whole PDF (dangling references, broken tables); "" when clean. */
export function pdfReadErrors(pdf: Uint8Array): string {
  return withTempPdf(pdf, (file) => spawnSync("pdftotext", [file, "-"], { encoding: "utf8" }).stderr.trim());
}

/** The page count pdfinfo reports. */
export function pdfInfoPages(pdf: Uint8Array): number {
  const info = withTempPdf(pdf, (file) => execFileSync("pdfinfo", [file], { encoding: "utf8" }));
  return Number(/^Pages:\s+(\d+)/m.exec(info)?.[1]);
}

/** The PDF encrypted by qpdf (AES-256, empty user password: it opens, but it is encrypted). */
export function encryptPdf(pdf: Uint8Array): Uint8Array {
  return withTempPdf(pdf, (file) => {
    const locked = `${file}.locked.pdf`;
    execFileSync("qpdf", ["--encrypt", "", "owner-secret", "256", "--", file, locked]);
    return new Uint8Array(readFileSync(locked));
  });
}

function withTempPdf<T>(pdf: Uint8Array, use: (file: string) => T): T {
  const dir = mkdtempSync(join(tmpdir(), "mailpiece-forms-"));
  try {
    const file = join(dir, "packet.pdf");
    writeFileSync(file, pdf);
    return use(file);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Evaluates answers at the preview stage with today fixed at TODAY. */
export function evaluate(
  workflow: Workflow,
  fields: Record<string, unknown>,
  attachments?: FormAttachmentInput[],
): FormEvaluation {
  return evaluateForm(
    workflow,
    { fields, ...(attachments === undefined ? {} : { attachments }) },
    {
      stage: "preview",
      today: TODAY,
    },
  );
}

/** Issues as "path code" strings, for exact comparisons. */
export function keys(issues: readonly { path: string; code: string }[]): string[] {
  return issues.map((issue) => `${issue.path} ${issue.code}`);
}
