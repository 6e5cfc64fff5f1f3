import type { Issue } from "@mailpiece/orders";
import type { PdfWork } from "@mailpiece/pdf-work";
import { createInlinePdfWork, PdfWorkError } from "@mailpiece/pdf-work";

/** Used when a caller gives no PdfWork: the work runs on the caller's thread (embedding, small tools, tests). */
const INLINE = createInlinePdfWork();

/** The PdfWork of a context, or the inline one. */
export function pdfWorkOf(ctx: { pdf?: PdfWork }): PdfWork {
  return ctx.pdf ?? INLINE;
}

/**
 * A document that could not be prepared within the work limits is a problem of that document: an issue at its
 * field, so the client can simplify it or send a PDF instead. A busy or closed pool is not: that error is thrown on
 * (the surface answers 503 with Retry-After), and nothing was stored.
 */
export function documentWorkIssue(error: unknown, path: string): Issue | undefined {
  if (!PdfWorkError.isInstance(error)) return undefined;
  if (error.code === "pdf_work_deadline") {
    return {
      path,
      code: "document_too_complex",
      message:
        "Preparing this document took longer than this service allows. Simplify it (less nesting, shorter tables and lines) or send it as a PDF.",
    };
  }
  if (error.code === "pdf_work_memory") {
    return {
      path,
      code: "document_too_complex",
      message:
        "Preparing this document needed more memory than this service allows. Simplify it or send a smaller PDF.",
    };
  }
  return undefined;
}

/**
 * When `error` says the document workers cannot take the request now (every thread busy and the queue full, or the
 * server shutting down): how long the client should wait. Surfaces answer 503 with Retry-After; nothing was stored.
 */
export function documentWorkBusy(error: unknown): { retryAfterSeconds: number } | undefined {
  const cause = (error as { cause?: unknown } | null)?.cause;
  for (const candidate of [error, cause]) {
    if (!PdfWorkError.isInstance(candidate)) continue;
    if (candidate.code === "pdf_work_busy") return { retryAfterSeconds: candidate.retryAfterSeconds ?? 1 };
    if (candidate.code === "pdf_work_closed") return { retryAfterSeconds: 5 };
  }
  return undefined;
}
