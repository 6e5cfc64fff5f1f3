import { fileURLToPath } from "node:url";
import { Piscina } from "piscina";
import { fromWireError } from "./engine-errors.ts";
import type { PdfWork } from "./pdf-work.ts";
import { closedError, PdfWorkError } from "./pdf-work-error.ts";
import type { PdfWorkerPoolOptions, ResolvedPoolOptions } from "./pool-options.ts";
import { resolvePoolOptions } from "./pool-options.ts";
import { sendableBytes } from "./transfer.ts";
import type { WorkerOperation, WorkerReply, WorkerTasks } from "./wire.ts";

/**
 * The job module the threads load: the sibling of this module, so TypeScript sources load the TypeScript jobs and
 * a built `dist/` loads the built ones.
 */
const TASKS_URL = new URL(
  /\.[cm]?ts$/.test(new URL(import.meta.url).pathname) ? "./worker-tasks.ts" : "./worker-tasks.js",
  import.meta.url,
).href;
/** The thread entry is plain JavaScript and ships in `src/`; `../src/` reaches it from `src/` and from `dist/`. */
const WORKER_FILE = fileURLToPath(new URL("../src/worker.mjs", import.meta.url));

/** Megabytes of young generation (new objects) per thread. */
const YOUNG_GENERATION_MB = 12;

/** Weight of the newest job in the running average of job durations (for `retryAfterSeconds`). */
const AVERAGE_WEIGHT = 0.2;

/**
 * Heavy PDF work in worker threads (piscina), so that no job holds the caller's event loop. Each job has a deadline
 * (`pdf_work_deadline`; a thread running a late job is terminated and a fresh one takes its place), at most
 * `threads` jobs run at once and at most `maxQueue` wait; beyond that a job is refused at once with
 * `pdf_work_busy` and a `retryAfterSeconds`. Threads start on demand and exit after `idleTimeoutMs` without work.
 * Engine errors reach the caller as the engine's own error classes, with their code, field, issues and message.
 *
 * Throws PdfWorkError("invalid_pdf_work_options") for a malformed option.
 */
export function createPdfWorkerPool(options?: PdfWorkerPoolOptions): PdfWork {
  return openPdfWorkerPool(resolvePoolOptions(options));
}

export interface PoolSettings extends ResolvedPoolOptions {
  /** The deadline of one operation's jobs; `deadlineMs` for every operation when absent. */
  deadlineMsFor?: (operation: WorkerOperation) => number;
  /** Given the piscina pool once it exists, to watch its threads. */
  observe?: (piscina: Piscina) => void;
}

/** createPdfWorkerPool with resolved options; the deadline per operation and `observe` are for tests. */
export function openPdfWorkerPool(settings: PoolSettings): PdfWork {
  const piscina = new Piscina({
    filename: WORKER_FILE,
    workerData: { tasks: TASKS_URL },
    minThreads: settings.minThreads,
    maxThreads: settings.threads,
    idleTimeout: settings.idleTimeoutMs,
    concurrentTasksPerWorker: 1,
    // A small young generation: a thread's jobs keep little between them, and each thread's resident memory stays
    // tens of megabytes lower than with V8's default (up to 48 MB of young generation per isolate).
    resourceLimits: {
      maxOldGenerationSizeMb: settings.maxMemoryMb,
      maxYoungGenerationSizeMb: YOUNG_GENERATION_MB,
    },
    // Jobs take milliseconds to seconds; the Atomics fast path for tiny tasks gains nothing here.
    atomics: "disabled",
  });
  // A thread that fails between jobs is replaced by the next job; a job's own failure rejects that job.
  piscina.on("error", () => {});
  settings.observe?.(piscina);

  const capacity = settings.threads + settings.maxQueue;
  const inFlight = new Set<Promise<unknown>>();
  let averageMs: number | undefined;
  let closing: Promise<void> | undefined;

  async function run<K extends WorkerOperation, R>(
    operation: K,
    task: WorkerTasks[K],
    transfer: ArrayBuffer[],
  ): Promise<R> {
    const deadlineMs = settings.deadlineMsFor?.(operation) ?? settings.deadlineMs;
    // On abort piscina drops a queued job, or terminates the thread running it and starts another on demand. A
    // cleared timer (rather than AbortSignal.timeout) leaves nothing behind once the job is done.
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), deadlineMs);
    const started = performance.now();
    const job = piscina.run(task, { name: operation, signal: controller.signal, transferList: transfer });
    inFlight.add(job);
    let reply: WorkerReply<R>;
    try {
      reply = (await job) as WorkerReply<R>;
    } catch (error) {
      if (controller.signal.aborted) {
        const message = `The ${operation} job ran past its deadline of ${deadlineMs} ms.`;
        throw new PdfWorkError("pdf_work_deadline", message, { cause: error });
      }
      if ((error as { code?: unknown } | null)?.code === "ERR_WORKER_OUT_OF_MEMORY") {
        const message = `The ${operation} job needed more than ${settings.maxMemoryMb} MB of memory.`;
        throw new PdfWorkError("pdf_work_memory", message, { cause: error });
      }
      throw new Error(error instanceof Error ? error.message : String(error));
    } finally {
      clearTimeout(timer);
      inFlight.delete(job);
      const took = performance.now() - started;
      averageMs = averageMs === undefined ? took : averageMs + AVERAGE_WEIGHT * (took - averageMs);
    }
    if (!reply.ok) throw fromWireError(reply.error);
    return reply.value;
  }

  /** Refuses a job when the pool is closed or full; the check and the submission happen in one turn. */
  function admit(): void {
    if (closing !== undefined) throw closedError();
    if (inFlight.size >= capacity) {
      // About one job's time, as recent jobs took from submission to result (queue wait included).
      const waitMs = averageMs ?? 1_000;
      const retryAfterSeconds = Math.min(
        Math.max(1, Math.ceil(waitMs / 1_000)),
        Math.max(1, Math.ceil(settings.deadlineMs / 1_000)),
      );
      throw new PdfWorkError(
        "pdf_work_busy",
        `The PDF work pool is busy (${settings.threads} running, ${settings.maxQueue} waiting); retry after ${retryAfterSeconds} s.`,
        { retryAfterSeconds },
      );
    }
  }

  return {
    async typesetLetter(input) {
      admit();
      return run("typesetLetter", { input }, []);
    },
    async typesetHandwritten(input) {
      admit();
      return run("typesetHandwritten", { input }, []);
    },
    async inspectPdf(bytes) {
      admit();
      const sent = sendableBytes(bytes);
      return run("inspectPdf", { bytes: sent.bytes }, sent.transfer);
    },
    async checkPostcard(bytes, size, options) {
      admit();
      const sent = sendableBytes(bytes);
      return run("checkPostcard", { bytes: sent.bytes, size, options }, sent.transfer);
    },
    async buildPacket(workflow, input, options) {
      admit();
      return run("buildPacket", { workflow, input, ...packetOptions(options) }, []);
    },
    async watermarkPdf(bytes, options) {
      admit();
      const sent = sendableBytes(bytes);
      return run("watermarkPdf", { bytes: sent.bytes, options }, sent.transfer);
    },
    close() {
      closing ??= (async () => {
        await Promise.allSettled([...inFlight]);
        await piscina.destroy();
      })();
      return closing;
    },
  };
}

/** The packet options as they cross a thread: a clock is read now and sent as its reading. */
function packetOptions(options: Parameters<PdfWork["buildPacket"]>[2]): {
  options: WorkerTasks["buildPacket"]["options"];
  clockNow?: number;
} {
  if (typeof options !== "object" || options === null || options.clock === undefined) return { options };
  const { clock, ...rest } = options;
  const now = typeof clock?.now === "function" ? clock.now() : Number.NaN;
  // buildPacket refuses a clock without a numeric now(); NaN keeps that refusal in the worker.
  return { options: rest, clockNow: typeof now === "number" ? now : Number.NaN };
}
