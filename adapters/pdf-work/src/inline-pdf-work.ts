import type { PdfWork } from "./pdf-work.ts";
import { closedError } from "./pdf-work-error.ts";

/**
 * PdfWork on the caller's own thread: the engines called directly, with no deadline, queue or thread. For embedding,
 * tests and tiny deployments where a long job may hold the event loop. After `close()` every call rejects with
 * `pdf_work_closed`. Each engine is imported the first time a call needs it, so that a process which hands its work
 * to a worker pool never loads the engines (and their fonts and PDF libraries) on its own thread.
 */
export function createInlinePdfWork(): PdfWork {
  let closed = false;
  const open = (): void => {
    if (closed) throw closedError();
  };
  return {
    async typesetLetter(input) {
      open();
      return (await import("@mailpiece/typesetter")).typesetLetter(input);
    },
    async typesetHandwritten(input) {
      open();
      return (await import("@mailpiece/typesetter")).typesetHandwritten(input);
    },
    async inspectPdf(bytes) {
      open();
      return (await import("@mailpiece/typesetter")).inspectPdf(bytes);
    },
    async checkPostcard(bytes, size, options) {
      open();
      return (await import("@mailpiece/postcard")).checkPostcard(bytes, size, options);
    },
    async buildPacket(workflow, input, options) {
      open();
      return (await import("@mailpiece/forms/packet")).buildPacket(workflow, input, options);
    },
    async watermarkPdf(bytes, options) {
      open();
      return (await import("./watermark-pdf.ts")).watermarkPdf(bytes, options);
    },
    async close() {
      closed = true;
    },
  };
}
