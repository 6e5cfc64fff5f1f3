import { defineError } from "@mailpiece/errors";

/**
 * Stable error codes of the PDF work pool. Apps map them to HTTP in one place.
 * - `pdf_work_deadline`: the job ran past its deadline (counted from submission, queue time included); a worker
 *   running it is terminated and replaced.
 * - `pdf_work_busy`: every thread is busy and the queue is full; `retryAfterSeconds` says when to try again.
 * - `pdf_work_closed`: the pool was closed and takes no more jobs.
 * - `pdf_work_memory`: the job needed more memory than a worker thread may use (a decompression bomb, say); the
 *   thread is ended and replaced.
 * - `invalid_pdf_work_options`: an option of `createPdfWorkerPool` is malformed; `field` names it.
 */
export type PdfWorkErrorCode =
  | "pdf_work_deadline"
  | "pdf_work_busy"
  | "pdf_work_closed"
  | "pdf_work_memory"
  | "invalid_pdf_work_options";

const BasePdfWorkError = defineError<PdfWorkErrorCode>("PdfWorkError");

/** The one error class of the pdf-work package. `code` is a stable wire contract; `message` is for people. */
export class PdfWorkError extends BasePdfWorkError {
  /** For `pdf_work_busy`: whole seconds to wait before trying again, 1 or more. */
  readonly retryAfterSeconds: number | undefined;
  /** For `invalid_pdf_work_options`: the option at fault ("threads", "maxQueue", "deadlineMs", "idleTimeoutMs"). */
  readonly field: string | undefined;

  constructor(
    code: PdfWorkErrorCode,
    message: string,
    options: { retryAfterSeconds?: number; field?: string; cause?: unknown } = {},
  ) {
    super(code, message, options.cause === undefined ? {} : { cause: options.cause });
    this.retryAfterSeconds = options.retryAfterSeconds;
    this.field = options.field;
  }

  /** True for any PdfWorkError, also one created by another copy of this package. */
  static override isInstance(value: unknown): value is PdfWorkError {
    return BasePdfWorkError.isInstance(value);
  }
}

/** The error for a call made after `close()`. */
export function closedError(): PdfWorkError {
  return new PdfWorkError("pdf_work_closed", "The PDF work pool is closed and takes no more jobs.");
}
