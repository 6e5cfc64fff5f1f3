/**
 * Test support: letters, small hand-written PDFs and a form workflow. Not part of the package's API (excluded from
 * the published files).
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { FormAttachmentInput } from "@mailpiece/forms";
import { BUILTIN_WORKFLOWS, findWorkflow, loadWorkflow } from "@mailpiece/forms";
import type { HandwrittenInput, LetterInput, PacketWorkflow } from "./pdf-work.ts";

export const RENDER: LetterInput["render"] = { font: "times", font_size: 11, margin_in: 1, paper: "letter" };

export function shortLetter(): LetterInput {
  return {
    format: "markdown",
    title: "Notice of change of address",
    body: "Dear Ms. Rivera,\n\nPlease note my **new address** from April 1.\n\n- Flat 4\n- 12 Elm Street\n\nKind regards,",
    signature: { mode: "typed", text: "Jordan Avery" },
    render: RENDER,
    sender: { lines: ["Jordan Avery", "12 Elm Street", "Springfield, IL 62701"] },
    recipient: { lines: ["Ms. Ana Rivera", "500 Main Street", "Columbus, OH 43215"] },
  };
}

export function shortCard(): HandwrittenInput {
  return {
    message: "Dear Ms. Rivera,\n\nThank you for the warm welcome to the neighbourhood.\n\nJordan",
    style: "neat",
    date: "2026-03-01",
    sender: { lines: ["Jordan Avery", "12 Elm Street", "Springfield, IL 62701"] },
    recipient: { lines: ["Ms. Ana Rivera", "500 Main Street", "Columbus, OH 43215"] },
  };
}

/** A markdown letter of about 19 000 characters (headings, paragraphs, lists, a table): seconds of typesetting. */
export function heavyLetter(): LetterInput {
  const sections: string[] = [];
  for (let i = 1; sections.join("\n\n").length < 19_000; i++) {
    sections.push(
      `## Section ${i}: account history`,
      `On day ${i} the *statement* showed a **charge** that was not made by me. ${"The payment was received on time and credited late, and a fee was charged for it. ".repeat(4)}`,
      `- First item of section ${i}\n- Second item, with *emphasis*\n- Third item`,
      `| Date | Amount | Note |\n|---|---|---|\n| 2026-02-${String((i % 28) + 1).padStart(2, "0")} | $${i}.50 | late fee |`,
    );
  }
  return { format: "markdown", title: "Record of errors", body: sections.join("\n\n"), render: RENDER };
}

/** Drawn content of one page of `handMadePdf`: PDF content operators. */
export interface PageSpec {
  width: number;
  height: number;
  content?: string;
}

/** A small, valid PDF written by hand: one page per spec, each with its MediaBox and content stream. */
export function handMadePdf(pages: PageSpec[]): Uint8Array {
  const objects: string[] = [];
  const kids = pages.map((_, i) => `${3 + i * 2} 0 R`).join(" ");
  objects.push("<< /Type /Catalog /Pages 2 0 R >>");
  objects.push(`<< /Type /Pages /Kids [${kids}] /Count ${pages.length} >>`);
  pages.forEach((page, i) => {
    const content = page.content ?? "";
    objects.push(
      `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 ${page.width} ${page.height}] /Resources << >> /Contents ${4 + i * 2} 0 R >>`,
    );
    objects.push(`<< /Length ${content.length} >>\nstream\n${content}\nendstream`);
  });
  let text = "%PDF-1.4\n";
  const offsets: number[] = [];
  objects.forEach((body, i) => {
    offsets.push(text.length);
    text += `${i + 1} 0 obj\n${body}\nendobj\n`;
  });
  const xref = text.length;
  text += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  for (const offset of offsets) text += `${String(offset).padStart(10, "0")} 00000 n \n`;
  text += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return new TextEncoder().encode(text);
}

/** A 4x6 postcard (450 x 306 pt bleed canvas); `inkInAddressZone` paints a black box where the address goes. */
export function postcard4x6(inkInAddressZone = false): Uint8Array {
  const back = inkInAddressZone ? "0 0 0 rg 250 60 80 40 re f" : "0 0 0 rg 20 200 100 50 re f";
  return handMadePdf([
    { width: 450, height: 306, content: "0.2 0.4 0.8 rg 0 0 450 306 re f" },
    { width: 450, height: 306, content: back },
  ]);
}

/** The court-packet workflow, with a hearing date that must not be in the future (so the clock matters). */
export function datedWorkflow(): PacketWorkflow {
  const court = findWorkflow(BUILTIN_WORKFLOWS, "court-document-mailing-packets");
  if (court === undefined) throw new Error("no built-in court workflow");
  const definition = structuredClone(court) as unknown as { slug: string; fields: unknown[] };
  definition.slug = "court-document-mailing-packets-dated";
  definition.fields.push({
    id: "served_on",
    type: "date",
    label: "Served on",
    required: true,
    not_in_future: true,
  });
  return loadWorkflow(definition);
}

export function courtAnswers(servedOn: string): Record<string, unknown> {
  return {
    document_type: "Motion or application",
    document_title: "Motion to Continue Hearing",
    case_status: "Yes — an existing case",
    case_caption: "Example v. Sample",
    case_number: "2026-CV-00417",
    sender_name: "Riley Sample",
    sender_role: "Defendant, self-represented",
    sender_address: { line1: "12 Elm Street", city: "Springfield", state: "IL", zip: "62701" },
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
    served_on: servedOn,
  };
}

export function pdfAttachment(id: string, fileName: string, bytes: Uint8Array): FormAttachmentInput {
  return {
    id,
    file_name: fileName,
    base64: `data:application/pdf;base64,${Buffer.from(bytes).toString("base64")}`,
  };
}

export const PACKET_ADDRESSES = {
  sender: { lines: ["Riley Sample", "12 Elm Street", "Springfield, IL 62701"] },
  recipient: { lines: ["Clerk of the Court", "200 Court Plaza", "Springfield, IL 62701"] },
};

/** The error a promise rejects with; fails when it resolves. */
export async function rejectionOf(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error("expected the promise to reject, but it resolved");
}

/** Calls `use` with the PDF written to a temporary file (and its folder, for files a tool writes); then removes both. */
function withPdfFile<T>(pdf: Uint8Array, use: (file: string, dir: string) => T): T {
  const dir = mkdtempSync(join(tmpdir(), "mailpiece-pdf-work-"));
  try {
    const file = join(dir, "in.pdf");
    writeFileSync(file, pdf);
    return use(file, dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The text of each page as pdftotext reads it in content order (`-raw`): diagonal text comes letter by letter. */
export function pageTexts(pdf: Uint8Array): string[] {
  const text = withPdfFile(pdf, (file) =>
    execFileSync("pdftotext", ["-enc", "UTF-8", "-raw", file, "-"], { encoding: "utf8" }),
  );
  // pdftotext ends every page with a form feed.
  return text.split("\f").slice(0, -1);
}

/** Where pdftotext finds each word on each page, in the page's shown orientation (`-bbox`), in points. */
export function pageWords(
  pdf: Uint8Array,
): { width: number; height: number; words: { text: string; x: number; y: number }[] }[] {
  const html = withPdfFile(pdf, (file) =>
    execFileSync("pdftotext", ["-enc", "UTF-8", "-bbox", file, "-"], { encoding: "utf8" }),
  );
  return [...html.matchAll(/<page width="([\d.]+)" height="([\d.]+)">([\s\S]*?)<\/page>/g)].map((page) => ({
    width: Number(page[1]),
    height: Number(page[2]),
    words: [
      ...page[3]!.matchAll(
        /<word xMin="([\d.]+)" yMin="([\d.]+)" xMax="([\d.]+)" yMax="([\d.]+)">([^<]*)<\/word>/g,
      ),
    ].map((word) => ({
      text: word[5]!,
      x: (Number(word[1]) + Number(word[3])) / 2,
      y: (Number(word[2]) + Number(word[4])) / 2,
    })),
  }));
}

/** The PDF encrypted by qpdf (AES-256) with the given user password ("" for an owner password only). */
export function encrypted(pdf: Uint8Array, userPassword: string): Uint8Array {
  return withPdfFile(pdf, (file, dir) => {
    const locked = join(dir, "locked.pdf");
    execFileSync("qpdf", ["--encrypt", userPassword, "owner-secret", "256", "--", file, locked]);
    return new Uint8Array(readFileSync(locked));
  });
}
