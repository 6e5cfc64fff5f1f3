import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { letterOrder, longBody, makePdf, pdfDataUrl } from "@mailpiece/conformance";
import { systemClock } from "@mailpiece/ports";
import { createMemoryBlobStore, createMemoryStore } from "@mailpiece/store-unstorage";
import { describe, expect, it } from "vitest";
import type { CoreConfig } from "./config.ts";
import { defaultCoreConfig } from "./config.ts";
import { validateOrder } from "./validate-order.ts";

const config = defaultCoreConfig();
const ctxOf = (c: CoreConfig) => ({
  config: c,
  store: createMemoryStore(),
  blobs: createMemoryBlobStore(),
  clock: systemClock,
});

describe("validateOrder", () => {
  it("quotes a one-page letter at the floor with the base fee and page lines explaining it", async () => {
    const outcome = await validateOrder(letterOrder(), ctxOf(config));
    expect(outcome.ok).toBe(true);
    if (!outcome.ok || outcome.view.object !== "order_validation")
      throw new Error("expected an order validation");
    expect(outcome.view.document).toEqual({ source: "letter", format: "text", page_count: 1 });
    expect(outcome.view.quote.price_cents).toBe(config.bounds.min_cents);
    const codes = outcome.view.quote.line_items.map((l) => l.code);
    expect(codes).toContain("minimum_charge");
    expect(outcome.view.quote.line_items.reduce((s, l) => s + l.amount_cents, 0)).toBe(
      outcome.view.quote.price_cents,
    );
  });

  it("changes the quote with the typeset page count", async () => {
    const short = await validateOrder(letterOrder({ color: true }), ctxOf(config));
    const long = await validateOrder(letterOrder({ color: true, letter: longBody(80) }), ctxOf(config));
    if (!short.ok || !long.ok) throw new Error("both valid");
    if (short.view.object !== "order_validation" || long.view.object !== "order_validation")
      throw new Error("both order validations");
    expect(long.view.document.page_count).toBeGreaterThan(short.view.document.page_count);
    expect(long.view.quote.subtotal_cents).toBeGreaterThan(short.view.quote.subtotal_cents);
  });

  it("refuses a price above the ceiling with quote_above_ceiling", async () => {
    const tight = defaultCoreConfig({ bounds: { min_cents: 340, max_cents: 400 } });
    const outcome = await validateOrder(letterOrder({ color: true, letter: longBody(80) }), ctxOf(tight));
    expect(outcome.ok).toBe(false);
    if (outcome.ok) return;
    expect(outcome.issues).toEqual([expect.objectContaining({ code: "quote_above_ceiling" })]);
  });

  it("refuses a PDF over the page limit with pdf_too_many_pages", async () => {
    const outcome = await validateOrder(
      letterOrder({ letter: undefined, pdf: pdfDataUrl(await makePdf(200)) }),
      ctxOf(config),
    );
    expect(outcome).toEqual({
      ok: false,
      issues: [expect.objectContaining({ path: "pdf", code: "pdf_too_many_pages" })],
    });
    const ok = await validateOrder(
      letterOrder({ letter: undefined, pdf: pdfDataUrl(await makePdf(199)) }),
      ctxOf(config),
    );
    expect(ok.ok).toBe(true);
  });

  it("refuses a PDF over the size limit with pdf_too_large", async () => {
    const bytes = await makePdf(1);
    const small = defaultCoreConfig({ maxPdfBytes: bytes.byteLength - 1 });
    const outcome = await validateOrder(
      letterOrder({ letter: undefined, pdf: pdfDataUrl(bytes) }),
      ctxOf(small),
    );
    expect(outcome).toEqual({
      ok: false,
      issues: [expect.objectContaining({ path: "pdf", code: "pdf_too_large" })],
    });
  });

  it("refuses an encrypted PDF with pdf_encrypted", async () => {
    const dir = mkdtempSync(join(tmpdir(), "mailpiece-enc-"));
    try {
      writeFileSync(join(dir, "in.pdf"), await makePdf(1));
      execFileSync("qpdf", [
        "--encrypt",
        "user",
        "owner",
        "256",
        "--",
        join(dir, "in.pdf"),
        join(dir, "out.pdf"),
      ]);
      const outcome = await validateOrder(
        letterOrder({ letter: undefined, pdf: pdfDataUrl(readFileSync(join(dir, "out.pdf"))) }),
        ctxOf(config),
      );
      expect(outcome).toEqual({
        ok: false,
        issues: [expect.objectContaining({ path: "pdf", code: "pdf_encrypted" })],
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("downloads PDFs only from allowlisted hosts", async () => {
    const outcome = await validateOrder(
      letterOrder({ letter: undefined, pdf: "https://evil.example.com/a.pdf" }),
      ctxOf(config),
    );
    expect(outcome).toEqual({
      ok: false,
      issues: [expect.objectContaining({ path: "pdf", code: "pdf_host_not_allowed" })],
    });
  });

  it("downloads allowlisted PDFs through the fetcher and maps its refusals to the field", async () => {
    const pdf = await makePdf(2);
    const fetched: string[] = [];
    const ctx = {
      ...ctxOf(config),
      fetchDocument: async (url: string) => {
        fetched.push(url);
        if (url.includes("big")) throw Object.assign(new Error("over the cap"), { code: "too_large" });
        if (url.includes("elsewhere"))
          throw Object.assign(new Error("not listed"), { code: "host_not_allowed" });
        if (url.includes("down")) throw Object.assign(new Error("503"), { code: "http_status" });
        return pdf;
      },
    };
    const ok = await validateOrder(
      letterOrder({ letter: undefined, pdf: "https://files.example.com/a.pdf" }),
      ctx,
    );
    expect(ok.ok && ok.view.document.page_count).toBe(2);
    const byReference = await validateOrder(
      letterOrder({
        letter: undefined,
        pdf: { download_url: "https://files.example.com/b.pdf", file_id: "f1" },
      }),
      ctx,
    );
    expect(byReference.ok).toBe(true);
    expect(fetched).toEqual(["https://files.example.com/a.pdf", "https://files.example.com/b.pdf"]);
    const codeOf = async (url: string) => {
      const outcome = await validateOrder(letterOrder({ letter: undefined, pdf: url }), ctx);
      return outcome.ok ? "ok" : `${outcome.issues[0]!.path}:${outcome.issues[0]!.code}`;
    };
    expect(await codeOf("https://files.example.com/big.pdf")).toBe("pdf:pdf_too_large");
    expect(await codeOf("https://elsewhere.example.com/a.pdf")).toBe("pdf:pdf_host_not_allowed");
    expect(await codeOf("https://files.example.com/down.pdf")).toBe("pdf:pdf_download_failed");
  });

  it("reports an unknown upload token on its field", async () => {
    const outcome = await validateOrder(
      letterOrder({ letter: undefined, pdf: { upload_token: "tok_nope" } }),
      ctxOf(config),
    );
    expect(outcome).toEqual({
      ok: false,
      issues: [expect.objectContaining({ path: "pdf.upload_token", code: "upload_token_invalid" })],
    });
  });

  it("prices proof mail the route cannot carry as an issue on the option", async () => {
    const outcome = await validateOrder(
      letterOrder({
        certified: true,
        recipient_address_manual: {
          line1: "Unter den Linden 77",
          city: "Berlin",
          zip: "10117",
          countryCode: "DE",
        },
        sender_address_manual: {
          line1: "350 Fifth Avenue",
          city: "New York",
          state: "NY",
          zip: "10118",
          countryCode: "US",
        },
      }),
      ctxOf(config),
    );
    expect(outcome.ok).toBe(false);
    if (outcome.ok) return;
    expect(outcome.issues[0]).toMatchObject({ path: "certified", code: "option_unavailable" });
  });
});
