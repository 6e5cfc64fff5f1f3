import type { JobQueue, LeasedJob, Store } from "@mailpiece/ports";

/** What became of a job's work: over (the job is completed), or to be looked at again from `again` (ms). */
export type JobOutcome = "done" | { again: number };

/** The work of one queue: what to do with each due job's payload. A throw fails the attempt (retried with backoff). */
export interface QueueWork<P> {
  queue: string;
  handle(payload: P): Promise<JobOutcome>;
}

export interface RunQueueOptions {
  /** A name for this process, written into leases. */
  owner: string;
  /**
   * How long this process holds a job without a sign of life; another process takes over after that. The lease is
   * renewed while the job is worked on, so a long step keeps it and a crashed process loses it soon.
   */
  leaseMs: number;
  /** Jobs leased per lease call; a round leases again until the queue has no due job left. Default 8. */
  batch?: number;
  /** Jobs of one batch worked on at once. Default 4. */
  parallel?: number;
}

/**
 * Works through every due job of one queue: leases a batch, hands each payload to `work.handle` (a few at once),
 * then gives each job back: completed when its work is done, due again at the time the handler names (attempts
 * counted afresh), or failed with the queue's backoff when the handler throws. The leases of a batch are renewed
 * while it is worked on. A round reads only due jobs, however many wait for later. Every job of the round is
 * handled even when some fail; the first failure is thrown at the end. Returns how many jobs it worked on.
 */
export async function runQueue<P>(
  jobs: JobQueue,
  work: QueueWork<P>,
  options: RunQueueOptions,
): Promise<number> {
  const batch = options.batch ?? 8;
  const parallel = options.parallel ?? 4;
  const { leaseMs } = options;
  let worked = 0;
  const failures: unknown[] = [];
  for (;;) {
    const leased = await jobs.lease<P>(work.queue, { owner: options.owner, limit: batch, leaseMs });
    worked += leased.length;
    const held = new Map(leased.map((job) => [job.id, job]));
    const renew = setInterval(
      () => {
        for (const job of held.values()) {
          void jobs
            .extend(job, leaseMs)
            .then((renewed) => {
              if (renewed && held.has(job.id)) held.set(job.id, renewed);
            })
            .catch(() => {
              // A renewal that fails leaves the lease to run out; the job is worked on again after it.
            });
        }
      },
      Math.max(1, Math.floor(leaseMs / 3)),
    );
    renew.unref?.();
    try {
      const queue = [...leased];
      await Promise.all(
        Array.from({ length: Math.min(parallel, queue.length) }, async () => {
          for (let job = queue.shift(); job; job = queue.shift()) {
            await finish(jobs, work, job.id, held).catch((error: unknown) => {
              failures.push(error);
            });
          }
        }),
      );
    } finally {
      clearInterval(renew);
    }
    if (leased.length < batch) break;
  }
  if (failures.length > 0) throw failures[0];
  return worked;
}

/** Handles one leased job and gives it back: completed, due again, or failed with backoff. */
async function finish<P>(
  jobs: JobQueue,
  work: QueueWork<P>,
  id: string,
  held: Map<string, LeasedJob<P>>,
): Promise<void> {
  try {
    const outcome = await work.handle(held.get(id)!.payload);
    const job = held.get(id)!;
    held.delete(id);
    if (outcome === "done") await jobs.complete(job);
    else await jobs.reschedule(job, { runAt: outcome.again });
  } catch (error) {
    const job = held.get(id);
    held.delete(id);
    if (job) await jobs.fail(job, { error: error instanceof Error ? error.message : String(error) });
    throw error;
  }
}

/**
 * Takes back a job that is no longer needed (its work was done by the request that noted it). A job a worker holds
 * is taken back too: the worker's completion then finds nothing, which is what it would have done anyway.
 */
export async function dropJob(jobs: JobQueue, queue: string, key: string): Promise<void> {
  const job = await jobs.get(queue, key);
  if (job) await jobs.discard(job);
}

/**
 * Lifts work noted as records under a legacy `prefix` (one record per item, as versions before the job queues kept
 * it) onto a queue: `note` enqueues each item (idempotently), then its record is removed, so a crash between the
 * two only lifts it again. Returns how many it lifted.
 */
export async function liftLegacyNotes<T>(
  store: Store,
  prefix: string,
  note: (value: T) => Promise<unknown>,
): Promise<number> {
  let lifted = 0;
  let cursor: string | undefined;
  do {
    const page = await store.list<T>(prefix, { limit: 200, ...(cursor ? { cursor } : {}) });
    for (const item of page.records) {
      await note(item.value);
      await store.delete(item.key);
      lifted++;
    }
    cursor = page.cursor;
  } while (cursor);
  return lifted;
}
