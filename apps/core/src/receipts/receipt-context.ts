import type { BlobStore, Clock, JobQueue, PrintProvider, Store } from "@mailpiece/ports";

/** What an operator may tune about electronic return receipts; every field has a default. */
export interface ReturnReceiptsConfig {
  /** How long a stored receipt's PDF is kept; absent: three calendar years (spec 3's default retention). */
  retentionMs?: number;
  /** How long after its delivery was noted a receipt is looked for before it is unavailable; default 5 days. */
  acquireWithinMs: number;
  /** The shortest wait between two looks at the provider; default 5 minutes. */
  firstLookAfterMs: number;
  /** The longest wait between two looks; default 6 hours. */
  longestLookAfterMs: number;
}

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

export const DEFAULT_RETURN_RECEIPTS_CONFIG: Readonly<ReturnReceiptsConfig> = Object.freeze({
  acquireWithinMs: 5 * DAY,
  firstLookAfterMs: 5 * MINUTE,
  longestLookAfterMs: 6 * HOUR,
});

/** The configuration with defaults filled in; throws RangeError unless every duration is a whole number of ms > 0. */
export function resolveReceiptsConfig(overrides: Partial<ReturnReceiptsConfig> = {}): ReturnReceiptsConfig {
  const config: ReturnReceiptsConfig = { ...DEFAULT_RETURN_RECEIPTS_CONFIG };
  for (const [name, value] of Object.entries(overrides) as [keyof ReturnReceiptsConfig, unknown][]) {
    if (value === undefined) continue;
    if (typeof value !== "number" || !Number.isSafeInteger(value) || value <= 0) {
      throw new RangeError(`returnReceipts.${name} must be a whole number of milliseconds > 0`);
    }
    config[name] = value;
  }
  if (config.firstLookAfterMs > config.longestLookAfterMs) {
    throw new RangeError("returnReceipts.firstLookAfterMs must not exceed longestLookAfterMs");
  }
  return config;
}

/** Until when a receipt stored at `storedAt` is kept. */
export function retentionUntil(config: ReturnReceiptsConfig, storedAt: number): number {
  if (config.retentionMs !== undefined) return storedAt + config.retentionMs;
  const until = new Date(storedAt);
  until.setUTCFullYear(until.getUTCFullYear() + 3);
  return until.getTime();
}

/** What the receipt use cases and their queue work with. */
export interface ReceiptContext {
  store: Store;
  blobs: BlobStore;
  jobs: JobQueue;
  clock: Clock;
  /** The print providers orders are produced by; a receipt is asked of the one its order names. */
  providers: readonly PrintProvider[];
  config: ReturnReceiptsConfig;
  /** Queues the email of a stored receipt whose letter asked for err_delivery email; absent: none is sent. */
  emailReceipt?: (orderId: string) => Promise<void>;
}

/** The queue of receipt work: looking for a delivered letter's receipt, and deleting it after its retention. */
export const RETURN_RECEIPTS_QUEUE = "return-receipts";

/** One job of the receipts queue: `acquire` while a receipt is awaited, `expire` due at its retention's end. */
export interface ReceiptJob {
  task: "acquire" | "expire";
  order_id: string;
}

export const receiptJobKey = (job: ReceiptJob) => `${job.task}:${job.order_id}`;

/** Puts a receipt job on the queue (idempotent by task and order). */
export async function enqueueReceiptJob(ctx: ReceiptContext, job: ReceiptJob, runAt: number): Promise<void> {
  await ctx.jobs.enqueue<ReceiptJob>({
    queue: RETURN_RECEIPTS_QUEUE,
    key: receiptJobKey(job),
    payload: job,
    runAt,
  });
}
