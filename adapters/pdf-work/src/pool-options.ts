import { availableParallelism } from "node:os";
import { PdfWorkError } from "./pdf-work-error.ts";

export interface PdfWorkerPoolOptions {
  /** Worker threads at most (each runs one job at a time). Default: 2, or fewer on a machine with fewer cores. */
  threads?: number;
  /**
   * Threads kept started even when idle, so that a request after a quiet spell does not wait for a thread to start
   * and load the typesetter (about a second). Default 1, at most `threads`; 0 lets an idle pool hold no memory.
   */
  minThreads?: number;
  /** Jobs that may wait for a thread. A job beyond them is refused at once with `pdf_work_busy`. Default 64. */
  maxQueue?: number;
  /** Milliseconds a job may take from submission (queue time included) to its result. Default 20 000. */
  deadlineMs?: number;
  /** Milliseconds an idle thread lives before it exits and frees its memory. Default 30 000. */
  idleTimeoutMs?: number;
  /** Megabytes of heap one thread may use; a job that needs more fails with `pdf_work_memory`. Default 1024. */
  maxMemoryMb?: number;
}

export type ResolvedPoolOptions = Required<PdfWorkerPoolOptions>;

export const DEFAULT_THREADS = 2;
export const DEFAULT_MIN_THREADS = 1;
export const DEFAULT_MAX_QUEUE = 64;
export const DEFAULT_DEADLINE_MS = 20_000;
export const DEFAULT_IDLE_TIMEOUT_MS = 30_000;
export const DEFAULT_MAX_MEMORY_MB = 1024;
/** The longest timer Node keeps (about 24.8 days); a longer deadline or idle time would fire at once. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** The options with their defaults, or PdfWorkError("invalid_pdf_work_options") naming the option at fault. */
export function resolvePoolOptions(options: PdfWorkerPoolOptions = {}): ResolvedPoolOptions {
  if (typeof options !== "object" || options === null) {
    throw new PdfWorkError("invalid_pdf_work_options", "The pool options must be an object.", {
      field: "options",
    });
  }
  const threads = integer(options.threads, "threads", 1, Math.min(DEFAULT_THREADS, availableParallelism()));
  const minThreads = integer(options.minThreads, "minThreads", 0, Math.min(DEFAULT_MIN_THREADS, threads));
  if (minThreads > threads) {
    throw new PdfWorkError(
      "invalid_pdf_work_options",
      `options.minThreads must be at most threads (${threads}).`,
      {
        field: "minThreads",
      },
    );
  }
  return {
    threads,
    minThreads,
    maxQueue: integer(options.maxQueue, "maxQueue", 0, DEFAULT_MAX_QUEUE),
    deadlineMs: integer(options.deadlineMs, "deadlineMs", 1, DEFAULT_DEADLINE_MS),
    idleTimeoutMs: integer(options.idleTimeoutMs, "idleTimeoutMs", 0, DEFAULT_IDLE_TIMEOUT_MS),
    maxMemoryMb: integer(options.maxMemoryMb, "maxMemoryMb", 64, DEFAULT_MAX_MEMORY_MB),
  };
}

function integer(value: unknown, field: string, min: number, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== "number" || !Number.isInteger(value) || value < min || value > MAX_TIMER_MS) {
    throw new PdfWorkError(
      "invalid_pdf_work_options",
      `options.${field} must be a whole number from ${min} to ${MAX_TIMER_MS}.`,
      { field },
    );
  }
  return value;
}
