import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import type { Issue } from "@mailpiece/orders";
import type { PdfWork } from "@mailpiece/pdf-work";
import type { BlobStore, Clock, IdGenerator, Store } from "@mailpiece/ports";
import type { CoreConfig } from "../config.ts";
import type { DocumentKeeper } from "../document-retention.ts";
import { keepDocumentFor } from "../document-retention.ts";
import { CoreError, invalidRequest } from "../errors.ts";
import { documentBlobKey } from "../open-mailing.ts";
import { documentWorkIssue, pdfWorkOf } from "../pdf-work.ts";
import { updateRecord } from "../records.ts";
import type { Principal } from "../workspaces/workspaces.ts";

/** A document of the Projects API (spec 3): declared, uploaded once with PUT, then completed by its preflight. */
export interface ProjectDocumentRecord {
  id: string;
  workspace_id: string;
  mode: Principal["mode"];
  content_type: "application/pdf";
  byte_size: number;
  /** The page count given with the intent, checked again at completion. */
  declared_page_count?: number;
  state: "awaiting_upload" | "uploaded" | "ready";
  /** SHA-256 of the upload secret of the upload URL (the secret itself is shown once). */
  upload_secret_sha256: string;
  expires_at: number;
  sha256?: string;
  page_count?: number;
  created_at: number;
  updated_at: number;
}

/** What a client sees of a document. */
export interface ProjectDocumentView {
  object: "document";
  id: string;
  status: ProjectDocumentRecord["state"];
  content_type: "application/pdf";
  byte_size: number;
  page_count: number | null;
  sha256: string | null;
  created_at: string;
  expires_at: string | null;
}

/** The answer to an upload intent: where to PUT the bytes, until when. */
export interface UploadIntentView {
  document_id: string;
  /** Relative to the deployment's base URL; the surface makes it absolute. */
  upload_path: string;
  upload_method: "PUT";
  expires_at: string;
  required_headers: { "content-type": "application/pdf"; "content-length": string };
}

export interface ProjectDocumentContext {
  store: Store;
  blobs: BlobStore;
  clock: Clock;
  ids: IdGenerator;
  config: CoreConfig;
  pdf?: PdfWork;
  /** Records who holds each document, for its collection after retention; absent: nothing is recorded. */
  documents?: DocumentKeeper;
}

const documentKey = (id: string) => `projects_documents:${id}`;
const DOCUMENT_ID = /^doc_[0-9a-f]{32}$/;
/** An intent nobody uploads to is forgotten a day after its upload URL expired. */
const ABANDONED_MS = 24 * 60 * 60 * 1000;

const sha256Hex = (value: Uint8Array | string) => createHash("sha256").update(value).digest("hex");

/**
 * An upload intent: a document of the caller's workspace and mode, and a temporary upload URL (PUT, the declared
 * size and type only). Throws validation_failed with every issue.
 */
export async function createUploadIntent(
  ctx: ProjectDocumentContext,
  principal: Principal,
  body: unknown,
): Promise<UploadIntentView> {
  const input = isObject(body) ? body : {};
  const issues: { path: string; code: string; message: string }[] = [];
  if (!isObject(body))
    issues.push({ path: "", code: "invalid_body", message: "The body must be a JSON object." });
  for (const key of Object.keys(input)) {
    if (!["content_type", "byte_size", "page_count"].includes(key)) {
      issues.push({
        path: key,
        code: "unknown_field",
        message: `${key} is not a field of an upload intent.`,
      });
    }
  }
  if (input.content_type !== "application/pdf") {
    issues.push({
      path: "content_type",
      code: "unsupported_content_type",
      message: "content_type must be application/pdf: documents are PDFs.",
    });
  }
  const max = ctx.config.maxPdfBytes;
  if (
    !Number.isSafeInteger(input.byte_size) ||
    (input.byte_size as number) < 1 ||
    (input.byte_size as number) > max
  ) {
    issues.push({
      path: "byte_size",
      code: "invalid_byte_size",
      message: `byte_size must be the PDF's exact size in bytes, an integer from 1 to ${max}.`,
    });
  }
  if (input.page_count !== undefined && !isPageCount(input.page_count, ctx.config.maxPdfPages)) {
    issues.push({
      path: "page_count",
      code: "invalid_page_count",
      message: `page_count must be an integer from 1 to ${ctx.config.maxPdfPages}.`,
    });
  }
  if (issues.length > 0) throw requestProblems(issues);
  const now = ctx.clock.now();
  const secret = randomBytes(32).toString("base64url");
  const record: ProjectDocumentRecord = {
    id: `doc_${ctx.ids.uuid().replaceAll("-", "")}`,
    workspace_id: principal.workspace_id,
    mode: principal.mode,
    content_type: "application/pdf",
    byte_size: input.byte_size as number,
    ...(input.page_count === undefined ? {} : { declared_page_count: input.page_count as number }),
    state: "awaiting_upload",
    upload_secret_sha256: sha256Hex(secret),
    expires_at: now + ctx.config.uploadTtlMs,
    created_at: now,
    updated_at: now,
  };
  await ctx.store.create(documentKey(record.id), record, { ttlMs: ctx.config.uploadTtlMs + ABANDONED_MS });
  return {
    document_id: record.id,
    upload_path: `/api/v1/documents/${record.id}/upload?token=${secret}`,
    upload_method: "PUT",
    expires_at: new Date(record.expires_at).toISOString(),
    required_headers: { "content-type": "application/pdf", "content-length": String(record.byte_size) },
  };
}

/**
 * The PUT of an upload URL: the bytes of the declared size and type, once, before the URL expires. The upload
 * secret authorizes it (compared in constant time); a wrong one is not_found, as for an unknown document.
 */
export async function uploadDocument(
  ctx: ProjectDocumentContext,
  input: { document_id: string; token: string; content_type: string | null; bytes: Uint8Array },
): Promise<ProjectDocumentView> {
  const found = DOCUMENT_ID.test(input.document_id)
    ? (await ctx.store.get<ProjectDocumentRecord>(documentKey(input.document_id)))?.value
    : undefined;
  if (!found || !sameSecret(found.upload_secret_sha256, input.token)) {
    throw new CoreError("not_found", "No document takes an upload at this URL.");
  }
  const refuse = (code: string, message: string) =>
    new CoreError("validation_failed", message, { issues: [{ path: "body", code, message }] });
  if (found.state !== "awaiting_upload")
    throw refuse("upload_already_filled", "This document was already uploaded.");
  if (found.expires_at <= ctx.clock.now()) {
    throw refuse("upload_url_expired", "This upload URL has expired; create a new upload intent.");
  }
  if ((input.content_type ?? "").split(";")[0]!.trim().toLowerCase() !== "application/pdf") {
    throw refuse("content_type_mismatch", "The upload's Content-Type must be application/pdf, as declared.");
  }
  if (input.bytes.byteLength !== found.byte_size) {
    throw refuse(
      "byte_size_mismatch",
      `The upload has ${input.bytes.byteLength} bytes; the intent declared ${found.byte_size}.`,
    );
  }
  if (!Buffer.from(input.bytes.subarray(0, 5)).toString("latin1").startsWith("%PDF-")) {
    throw refuse("upload_not_pdf", "The upload is not a PDF: it does not start with %PDF-.");
  }
  const sha256 = sha256Hex(input.bytes);
  // Held as long as the document's record can be; a quote or an order made from it holds it longer.
  await keepDocumentFor(ctx, sha256, ctx.clock.now() + ctx.config.uploadTtlMs + ABANDONED_MS, input.bytes);
  const updated = await updateRecord<ProjectDocumentRecord>(
    ctx.store,
    documentKey(found.id),
    ctx.clock.now,
    (r) => (r.state === "awaiting_upload" ? { ...r, state: "uploaded", sha256 } : undefined),
  );
  if (updated.sha256 !== sha256) throw refuse("upload_already_filled", "This document was already uploaded.");
  return documentView(updated);
}

/**
 * Completes an uploaded document: the PDF preflight (it parses, its page count is within the limit and equals
 * page_count, and the intent's page_count when one was given). A ready document can back any number of quotes;
 * completing it again with the same page_count answers it again.
 */
export async function completeDocument(
  ctx: ProjectDocumentContext,
  principal: Principal,
  documentId: string,
  body: unknown,
): Promise<ProjectDocumentView> {
  const record = await loadDocument(ctx, principal, documentId);
  const pageCount = isObject(body) ? body.page_count : undefined;
  if (!isPageCount(pageCount, ctx.config.maxPdfPages)) {
    throw requestProblems([
      {
        path: "page_count",
        code: "invalid_page_count",
        message: `page_count is required: the PDF's page count, an integer from 1 to ${ctx.config.maxPdfPages}.`,
      },
    ]);
  }
  if (record.state === "awaiting_upload") {
    throw requestProblems([
      { path: "", code: "document_not_uploaded", message: "Upload the PDF with PUT to upload_url first." },
    ]);
  }
  if (record.state === "ready") {
    if (record.page_count !== pageCount) throw pageCountMismatch(pageCount, record.page_count!);
    return documentView(record);
  }
  const blob = await ctx.blobs.get(documentBlobKey(record.sha256!));
  if (!blob) throw new CoreError("storage_unavailable", "The uploaded PDF cannot be read; try again.");
  let pages: number;
  try {
    pages = (await pdfWorkOf(ctx).inspectPdf(blob.bytes)).page_count;
  } catch (error) {
    const issue = documentWorkIssue(error, "document");
    if (issue) throw requestProblems([issue]);
    throw error;
  }
  if (pages > ctx.config.maxPdfPages) {
    throw requestProblems([
      {
        path: "document",
        code: "pdf_too_many_pages",
        message: `The PDF has ${pages} pages; at most ${ctx.config.maxPdfPages} print.`,
      },
    ]);
  }
  if (pages !== pageCount) throw pageCountMismatch(pageCount, pages);
  if (record.declared_page_count !== undefined && record.declared_page_count !== pages) {
    throw pageCountMismatch(record.declared_page_count, pages);
  }
  const ready = await updateRecord<ProjectDocumentRecord>(
    ctx.store,
    documentKey(record.id),
    ctx.clock.now,
    (r) => (r.state === "uploaded" ? { ...r, state: "ready", page_count: pages } : undefined),
  );
  // A ready document backs quotes for the retention period from its completion, its PDF as long; a quote or an
  // order made from it holds the PDF on its own account.
  const keptMs = ctx.config.documentRetentionMs;
  await keepDocumentFor(ctx, record.sha256!, ctx.clock.now() + keptMs);
  await ctx.store.put(documentKey(ready.id), ready, { ttlMs: keptMs });
  return documentView(ready);
}

/** A document of the caller's workspace and mode; not_found for anything else, also another workspace's. */
export async function loadDocument(
  ctx: Pick<ProjectDocumentContext, "store">,
  principal: Principal,
  documentId: string,
): Promise<ProjectDocumentRecord> {
  const record = DOCUMENT_ID.test(documentId)
    ? (await ctx.store.get<ProjectDocumentRecord>(documentKey(documentId)))?.value
    : undefined;
  if (!record || record.workspace_id !== principal.workspace_id || record.mode !== principal.mode) {
    throw new CoreError("not_found", "No document of this workspace has this id.");
  }
  return record;
}

export function documentView(record: ProjectDocumentRecord): ProjectDocumentView {
  return {
    object: "document",
    id: record.id,
    status: record.state,
    content_type: record.content_type,
    byte_size: record.byte_size,
    page_count: record.page_count ?? null,
    sha256: record.sha256 ?? null,
    created_at: new Date(record.created_at).toISOString(),
    expires_at: record.state === "awaiting_upload" ? new Date(record.expires_at).toISOString() : null,
  };
}

/** validation_failed for these issues of a Projects API request. */
export const requestProblems = (issues: readonly Issue[]) => invalidRequest(issues, "request");

function pageCountMismatch(given: unknown, actual: number): CoreError {
  return requestProblems([
    {
      path: "page_count",
      code: "page_count_mismatch",
      message: `The PDF has ${actual} pages, not ${String(given)}.`,
    },
  ]);
}

function sameSecret(storedSha256: string, token: string): boolean {
  if (typeof token !== "string" || token.length === 0 || token.length > 256) return false;
  const given = Buffer.from(sha256Hex(token), "hex");
  const stored = Buffer.from(storedSha256, "hex");
  return given.length === stored.length && timingSafeEqual(given, stored);
}

function isPageCount(value: unknown, max: number): value is number {
  return Number.isSafeInteger(value) && (value as number) >= 1 && (value as number) <= max;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
