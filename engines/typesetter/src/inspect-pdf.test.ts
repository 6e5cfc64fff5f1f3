import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { degrees, PDFDocument } from "pdf-lib";
import { afterAll, describe, expect, it } from "vitest";
import { TypesetterError } from "./errors.ts";
import { inspectPdf } from "./inspect-pdf.ts";
import { typesetLetter } from "./typeset-letter.ts";

const dir = mkdtempSync(join(tmpdir(), "mailpiece-inspect-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function threePages(): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  doc.addPage([612, 792]);
  doc.addPage([595.28, 841.89]);
  doc.addPage([612, 792]).setRotation(degrees(90));
  return doc.save();
}

async function refusal(bytes: Uint8Array): Promise<TypesetterError> {
  try {
    await inspectPdf(bytes);
  } catch (error) {
    if (TypesetterError.isInstance(error)) return error;
    throw error;
  }
  throw new Error("expected a TypesetterError");
}

function encrypt(bytes: Uint8Array, userPassword: string): Uint8Array {
  const plain = join(dir, `plain-${userPassword || "none"}.pdf`);
  const locked = join(dir, `locked-${userPassword || "none"}.pdf`);
  writeFileSync(plain, bytes);
  execFileSync("qpdf", ["--encrypt", userPassword, "owner-secret", "256", "--", plain, locked]);
  return new Uint8Array(readFileSync(locked));
}

describe("inspectPdf", () => {
  it("counts the pages and reports each page's printed size", async () => {
    const info = await inspectPdf(await threePages());
    expect(info).toEqual({
      page_count: 3,
      pages: [
        { width_pt: 612, height_pt: 792 },
        { width_pt: 595.28, height_pt: 841.89 },
        { width_pt: 792, height_pt: 612 },
      ],
      encrypted: false,
    });
  });

  it("reads a PDF held in a view into a larger buffer, and leaves the bytes untouched", async () => {
    const pdf = await threePages();
    const backing = new Uint8Array(pdf.length + 64);
    backing.set(pdf, 32);
    const view = backing.subarray(32, 32 + pdf.length);
    const before = Buffer.from(view);
    expect((await inspectPdf(view)).page_count).toBe(3);
    expect(Buffer.from(view).equals(before)).toBe(true);
  });

  it("agrees with the typesetter's page count", async () => {
    const body = Array.from({ length: 120 }, (_, index) => `Line ${index + 1}`).join("\n");
    const letter = await typesetLetter({
      body,
      format: "text",
      render: { font: "times", font_size: 12, margin_in: 1, paper: "letter" },
    });
    const info = await inspectPdf(letter.pdf);
    expect(info.page_count).toBe(letter.page_count);
    expect(info.page_count).toBe(3);
    expect(new Set(info.pages.map((page) => `${page.width_pt}x${page.height_pt}`))).toEqual(
      new Set(["612x792"]),
    );
  });

  it.each([
    ["empty bytes", new Uint8Array(0)],
    ["plain text", new TextEncoder().encode("This is not a PDF at all, just words.")],
    ["random bytes", Uint8Array.from({ length: 2048 }, (_, index) => (index * 7919 + 13) % 256)],
    ["a header and nothing else", new TextEncoder().encode("%PDF-1.7\n%%EOF\n")],
  ])("refuses %s as unreadable", async (_name, bytes) => {
    expect((await refusal(bytes)).code).toBe("pdf_unreadable");
  });

  it("refuses a PDF encrypted with a user password", async () => {
    const error = await refusal(encrypt(await threePages(), "user-secret"));
    expect(error.code).toBe("pdf_encrypted");
  });

  it("refuses a PDF encrypted with an owner password only", async () => {
    const error = await refusal(encrypt(await threePages(), ""));
    expect(error.code).toBe("pdf_encrypted");
  });
});
