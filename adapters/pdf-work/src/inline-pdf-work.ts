import { buildPacket } from "@mailpiece/forms/packet";
import { checkPostcard } from "@mailpiece/postcard";
import { inspectPdf, typesetLetter } from "@mailpiece/typesetter";
import type { PdfWork } from "./pdf-work.ts";
import { closedError } from "./pdf-work-error.ts";

/**
 * PdfWork on the caller's own thread: the engines called directly, with no deadline, queue or thread. For embedding,
 * tests and tiny deployments where a long job may hold the event loop. After `close()` every call rejects with
 * `pdf_work_closed`.
 */
export function createInlinePdfWork(): PdfWork {
  let closed = false;
  const open = (): void => {
    if (closed) throw closedError();
  };
  return {
    async typesetLetter(input) {
      open();
      return typesetLetter(input);
    },
    async inspectPdf(bytes) {
      open();
      return inspectPdf(bytes);
    },
    async checkPostcard(bytes, size, options) {
      open();
      return checkPostcard(bytes, size, options);
    },
    async buildPacket(workflow, input, options) {
      open();
      return buildPacket(workflow, input, options);
    },
    async close() {
      closed = true;
    },
  };
}
