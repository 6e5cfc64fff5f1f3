import { createHash } from "node:crypto";
import type { ComplianceStage, Workflow } from "@mailpiece/forms";
import { BUILTIN_WORKFLOWS } from "@mailpiece/forms";
import { fingerprintBytes } from "@mailpiece/idempotency";
import type { DocumentSource, Issue, NormalizedOrder, Party } from "@mailpiece/orders";
import type { PdfWork } from "@mailpiece/pdf-work";
import type { AddressProvider, BlobStore, Clock, Store } from "@mailpiece/ports";
import { TypesetterError, todayUtc } from "@mailpiece/typesetter/light";
import type { CoreConfig } from "./config.ts";
import type { DocumentCache } from "./document-cache.ts";
import { resolveForm } from "./forms.ts";
import { windowLines } from "./party-view.ts";
import { documentWorkIssue, pdfWorkOf } from "./pdf-work.ts";
import { readUpload, UPLOAD_MESSAGES } from "./uploads.ts";

/**
 * What preparing an order may use: the config, stored uploads, a safe fetcher for allowlisted URLs, and the address
 * provider that resolves address search ids.
 */
export interface DocumentContext {
  config: CoreConfig;
  store: Store;
  blobs: BlobStore;
  clock: Clock;
  /** Downloads a user-supplied URL under the allowlist and size rules; absent: downloads are refused. */
  fetchDocument?: (url: string) => Promise<Uint8Array>;
  /** The order an upload token is being used for, if any (a token serves one order). */
  orderId?: string;
  /** Prepared documents by content, so one letter is typeset once across validate, create and the paid retry. */
  cache?: DocumentCache<ResolvedDocument>;
  /** The workflow forms this deployment offers; default: the built-in ones. */
  workflows?: readonly Workflow[];
  /** Runs typesetting and PDF checks (off the event loop in a server); absent: on the caller's thread. */
  pdf?: PdfWork;
  /** The compliance stage forms are checked at: "machine" for validate, "payment" when paying. */
  stage?: ComplianceStage;
  /**
   * Resolves the address search ids of Address-mode parties into the addresses that print; absent: an order can give
   * its addresses only as manual addresses (Address mode is refused with address_mode_unavailable).
   */
  addresses?: AddressProvider;
}

/** A document ready to print: its bytes, pages and where it came from. */
export interface ResolvedDocument {
  source: DocumentSource["kind"];
  format?: string | null;
  /** Things the buyer should know that do not stop the order (e.g. a form recipient that differs). */
  warnings?: Issue[];
  page_count: number;
  pages: { width_pt: number; height_pt: number }[];
  bytes: Uint8Array;
  /** Lowercase hex SHA-256 of `bytes`, computed once when the document is made: it names the stored blob. */
  sha256: string;
}

export type DocumentResolution = { ok: true; document: ResolvedDocument } | { ok: false; issues: Issue[] };

/** Turns the order's document source into print-ready bytes with an exact page count, or says why it cannot. */
export async function resolveDocument(
  order: NormalizedOrder,
  ctx: DocumentContext,
): Promise<DocumentResolution> {
  const doc = order.document;
  if (!doc) return fail("", "document_source_required", "The order carries no document.");
  switch (doc.kind) {
    case "letter":
      return resolveLetter(order, doc, ctx);
    case "pdf":
      return resolvePdf(order, doc, ctx);
    case "form": {
      const form = await resolveForm(
        order,
        doc,
        ctx.workflows ?? BUILTIN_WORKFLOWS,
        ctx.stage ?? "machine",
        ctx.clock,
        pdfWorkOf(ctx),
      );
      if (!form.ok) return form;
      return {
        ok: true,
        document: {
          source: "form",
          format: null,
          page_count: form.page_count,
          pages: Array.from({ length: form.page_count }, () => ({ width_pt: 612, height_pt: 792 })),
          bytes: form.pdf,
          sha256: sha256Hex(form.pdf),
          warnings: form.warnings,
        },
      };
    }
  }
}

async function resolveLetter(
  order: NormalizedOrder,
  doc: Extract<DocumentSource, { kind: "letter" }>,
  ctx: DocumentContext,
): Promise<DocumentResolution> {
  const signature =
    doc.signature === undefined
      ? undefined
      : doc.signature.mode === "typed"
        ? { mode: "typed" as const, text: doc.signature.text }
        : { mode: "drawn" as const, dataUrl: doc.signature.printDataUrl ?? doc.signature.dataUrl ?? "" };
  const input = {
    body: doc.body,
    ...(doc.title === undefined ? {} : { title: doc.title }),
    format: doc.format,
    // The date line is the day the letter is prepared (the clock's), so the same request typesets alike all day.
    date: todayUtc(new Date(ctx.clock.now())),
    ...(signature === undefined ? {} : { signer_name: order.sender.name }),
    ...(signature === undefined ? {} : { signature }),
    render: doc.render,
    ...windowLines(order.sender, order.recipient),
  };
  // The input is built here in a fixed key order, so its JSON text names it without canonical sorting.
  const key = `letter:${fingerprintBytes(JSON.stringify(input))}`;
  const cached = ctx.cache?.get(key);
  if (cached) return { ok: true, document: cached };
  try {
    const result = await pdfWorkOf(ctx).typesetLetter(input);
    const document: ResolvedDocument = {
      source: "letter",
      format: doc.format,
      page_count: result.page_count,
      // The typesetter sets every page on US letter paper.
      pages: Array.from({ length: result.page_count }, () => ({ width_pt: 612, height_pt: 792 })),
      bytes: result.pdf,
      sha256: sha256Hex(result.pdf),
    };
    ctx.cache?.set(key, document);
    return { ok: true, document };
  } catch (error) {
    if (TypesetterError.isInstance(error)) {
      return fail(letterPath(order, error.field), error.code, error.message);
    }
    const issue = documentWorkIssue(error, "letter");
    if (issue) return { ok: false, issues: [issue] };
    throw error;
  }
}

function letterPath(order: NormalizedOrder, field: string | undefined): string {
  if (field === "recipient" && order.recipient) return partyPath("recipient", order.recipient);
  if (field === "sender") return partyPath("sender", order.sender);
  if (field === "signature") return "letter.signature";
  if (field === "format") return "letter.format";
  return "letter";
}

/**
 * The request field that holds a party's address, for error paths: the manual address, the id of an address
 * resolved from it (what prints comes from the id), or the text of an unresolved one.
 */
export function partyPath(role: "sender" | "recipient", party: Party): string {
  if (party.address.type === "Manual") return `${role}_address_manual`;
  return party.address.resolved ? `${role}_address_id` : `${role}_address_text`;
}

async function resolvePdf(
  order: NormalizedOrder,
  doc: Extract<DocumentSource, { kind: "pdf" }>,
  ctx: DocumentContext,
): Promise<DocumentResolution> {
  const { config } = ctx;
  const source = doc.source;
  switch (source.type) {
    case "data_url": {
      const bytes = decodeBase64(source.base64);
      if (bytes.byteLength > config.maxPdfBytes) {
        return fail(
          "pdf",
          "pdf_too_large",
          `The PDF is ${bytes.byteLength} bytes; the limit is ${config.maxPdfBytes}.`,
        );
      }
      return inspect(order, bytes, "pdf", ctx);
    }
    case "url":
    case "download": {
      const url = source.type === "url" ? source.url : source.download_url;
      const path = source.type === "url" ? "pdf" : "pdf.download_url";
      const host = safeHost(url) ?? "this URL";
      const notAllowed = () =>
        fail(
          path,
          "pdf_host_not_allowed",
          `PDFs are downloaded only from allowlisted HTTPS hosts; ${host} is not one of them. Send the PDF as a data URL or an upload_token instead.`,
        );
      if (!ctx.fetchDocument) return notAllowed();
      try {
        const bytes = await ctx.fetchDocument(url);
        return inspect(order, bytes, path, ctx);
      } catch (error) {
        const code = (error as { code?: unknown }).code;
        const reason = typeof code === "string" ? code : "download_failed";
        if (reason === "host_not_allowed" || reason === "url_not_https") return notAllowed();
        return fail(
          path,
          reason === "too_large" ? "pdf_too_large" : "pdf_download_failed",
          `The PDF at ${host} could not be downloaded (${reason}): ${(error as Error).message}`,
        );
      }
    }
    case "upload_token": {
      const upload = await readUpload(ctx.store, ctx.blobs, ctx.clock, source.upload_token, ctx.orderId);
      if (!upload.ok) return fail("pdf.upload_token", upload.error, UPLOAD_MESSAGES[upload.error]);
      return inspect(order, upload.bytes, "pdf.upload_token", ctx);
    }
  }
}

/**
 * The PDF preflight of a mailpiece: the PDF parses, has at most maxPdfPages pages, and fits the piece (US letter
 * pages for a letter; a postcard's template: two pages, the bleed canvas, a clear address zone). Issues are at `path`.
 */
export async function inspect(
  order: Pick<NormalizedOrder, "mailpiece_type" | "postcard_size">,
  bytes: Uint8Array,
  path: string,
  ctx: Pick<DocumentContext, "config" | "cache" | "pdf">,
): Promise<DocumentResolution> {
  const { config, cache } = ctx;
  const sha256 = sha256Hex(bytes);
  // Keyed by everything the checks read: a postcard that fits one size's canvas does not fit another's.
  const key = ["pdf", order.mailpiece_type, order.postcard_size ?? "-", config.maxPdfPages, sha256].join(":");
  const cached = config.cacheBytes > 0 ? cache?.get(key) : undefined;
  if (cached) return { ok: true, document: cached };
  const work = pdfWorkOf(ctx);
  try {
    const info = await work.inspectPdf(bytes);
    if (info.page_count > config.maxPdfPages) {
      return fail(
        path,
        "pdf_too_many_pages",
        `The PDF has ${info.page_count} pages; at most ${config.maxPdfPages} print.`,
      );
    }
    if (order.mailpiece_type === "letter") {
      const sizeProblem = letterPageProblem(info.pages, path);
      if (sizeProblem) return sizeProblem;
    } else if (order.postcard_size) {
      // The postcard template: two pages, the bleed canvas, and nothing printed in the address zone.
      const check = await work.checkPostcard(bytes, order.postcard_size);
      if (!check.ok) {
        return {
          ok: false,
          issues: check.problems.map((p) => ({
            path,
            code: p.code,
            message: p.page === null ? p.message : `Page ${p.page}: ${p.message}`,
          })),
        };
      }
    }
    const document: ResolvedDocument = {
      source: "pdf",
      page_count: info.page_count,
      pages: info.pages,
      bytes,
      sha256,
    };
    cache?.set(key, document);
    return { ok: true, document };
  } catch (error) {
    if (TypesetterError.isInstance(error)) return fail(path, error.code, error.message);
    const issue = documentWorkIssue(error, path);
    if (issue) return { ok: false, issues: [issue] };
    throw error;
  }
}

function decodeBase64(base64: string): Uint8Array {
  const buffer = Buffer.from(base64, "base64");
  return new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.byteLength);
}

function safeHost(url: string): string | undefined {
  try {
    return new URL(url).hostname.toLowerCase();
  } catch {
    return undefined;
  }
}

function fail(path: string, code: string, message: string): DocumentResolution {
  return { ok: false, issues: [{ path, code, message }] };
}

/** Letters print on US letter paper: every page 8.5 x 11 in (either orientation), within 2 pt. */
const LETTER = { w: 612, h: 792 };
const TOLERANCE_PT = 2;

function letterPageProblem(
  pages: { width_pt: number; height_pt: number }[],
  path: string,
): DocumentResolution | undefined {
  const fits = (p: { width_pt: number; height_pt: number }) =>
    (Math.abs(p.width_pt - LETTER.w) <= TOLERANCE_PT && Math.abs(p.height_pt - LETTER.h) <= TOLERANCE_PT) ||
    (Math.abs(p.width_pt - LETTER.h) <= TOLERANCE_PT && Math.abs(p.height_pt - LETTER.w) <= TOLERANCE_PT);
  const first = pages[0];
  for (let i = 0; i < pages.length; i++) {
    const page = pages[i]!;
    if (fits(page)) continue;
    const size = `${(page.width_pt / 72).toFixed(2)} x ${(page.height_pt / 72).toFixed(2)} in`;
    if (first && i > 0 && fits(first)) {
      return fail(
        path,
        "inconsistent_page_dimensions",
        `Page ${i + 1} is ${size}; page 1 is US letter (8.5 x 11 in). Every page of a letter must be US letter.`,
      );
    }
    return fail(
      path,
      "pdf_page_size_unsupported",
      `Page ${i + 1} is ${size}; letters print on US letter paper (8.5 x 11 in).`,
    );
  }
  return undefined;
}

export function sha256Hex(bytes: Uint8Array): string {
  return createHash("sha256").update(bytes).digest("hex");
}
