export { createInlinePdfWork } from "./inline-pdf-work.ts";
export type {
  CheckPostcardOptions,
  HandwrittenInput,
  LetterInput,
  PacketFormInput,
  PacketOptions,
  PacketResult,
  PacketWorkflow,
  PdfInfo,
  PdfWork,
  PostcardCheck,
  PostcardSize,
  TypesetHandwrittenResult,
  TypesetLetterResult,
  WatermarkOptions,
  WatermarkResult,
} from "./pdf-work.ts";
export type { PdfWorkErrorCode } from "./pdf-work-error.ts";
export { PdfWorkError } from "./pdf-work-error.ts";
export type { PdfWorkerPoolOptions } from "./pool-options.ts";
export {
  DEFAULT_DEADLINE_MS,
  DEFAULT_IDLE_TIMEOUT_MS,
  DEFAULT_MAX_QUEUE,
  DEFAULT_THREADS,
} from "./pool-options.ts";
export { createPdfWorkerPool } from "./worker-pool.ts";
