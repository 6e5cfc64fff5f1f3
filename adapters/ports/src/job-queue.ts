/**
 * The JobQueue port: background work (fulfilment of paid orders, payment reconciliation, webhook delivery, email)
 * as jobs that workers lease, run and complete. Delivery is at least once: a worker that dies mid-job loses its
 * lease and the job runs again, so every job MUST be safe to run twice.
 *
 * Contracts. An adapter MUST satisfy every sentence below; each has a named test in the conformance kit
 * (`@mailpiece/conformance`, `jobQueueContract`).
 *
 * Names and payloads
 * - A queue name MUST match `QUEUE_NAME_PATTERN` and a job key `JOB_KEY_PATTERN`; every method MUST reject any other
 *   with `PortError` code `invalid_key` and change nothing. `enqueue` MUST reject a payload that is not
 *   JSON-serialisable with code `value_not_serializable` and change nothing.
 *
 * Enqueue
 * - `enqueue` MUST be idempotent by queue and key: while a job with that key is pending, leased or dead, it MUST
 *   change nothing and answer `created: false` with that job's id and state. Keys of different queues are apart.
 * - Under any number of concurrent `enqueue`s of one key, exactly one MUST answer `created: true`, every one the
 *   same id.
 * - Once a job is complete (or discarded) its key MUST be free: `enqueue` makes a new job with a new id, so that one
 *   order can be scheduled again under the same key for its next step.
 * - With `moveEarlier`, an `enqueue` whose key holds a pending job due later MUST move that job to the new `runAt`,
 *   keeping its id and payload. It MUST never move a job later, nor touch a leased or dead one.
 *
 * Leasing
 * - `lease` MUST return only jobs of its queue whose `runAt` is at or before now on the queue's clock, at most
 *   `limit`, the earliest `runAt` first and, for one `runAt`, in the order they were enqueued (within one process).
 * - A leased job MUST carry its key, its payload as enqueued (a copy: changing it changes nothing stored), its
 *   `runAt` and its attempt number: 1 on its first delivery, one more on each later one.
 * - A leased job MUST NOT be returned by any `lease`, from any caller or process, until its lease expires.
 * - A job whose lease expires without `complete` or `fail` MUST be delivered again, as its next attempt.
 *
 * Lease holders
 * - `complete`, `fail`, `extend` and `reschedule` MUST act only for the job's current lease. They succeed as long as no other
 *   lease has been taken on the job, even after the lease has expired; afterwards, and once the job is complete,
 *   dead or discarded, `complete` MUST answer false, `fail`, `extend` and `reschedule` undefined, and change nothing.
 * - `complete` MUST remove the job.
 * - `fail` MUST make the job pending again at `retryAt` when given, else at now + `backoffDelay(attempts, retry)`:
 *   `retry.backoffBaseMs` doubled for each attempt after the first, at most `retry.backoffCapMs`, without jitter.
 * - `extend(job, ms)` MUST keep the lease until now + `ms`.
 * - `reschedule(job, { runAt })` MUST make the job pending again at `runAt` with no attempts counted, keeping its id,
 *   key and payload: work that went well so far and goes on later (an order in production, asked about again).
 *
 * Dead jobs
 * - When attempt number `retry.maxAttempts` fails, or its lease expires, the job MUST become dead: never leased
 *   again, its key still taken, listed by `listDead`.
 * - `revive` MUST make a dead job pending again with no attempts counted; `discard` MUST remove a job in any state
 *   and free its key.
 *
 * Durability
 * - An adapter that declares `durable: true` MUST keep every acknowledged change across a restart (pending jobs,
 *   leases with their owner and expiry, dead jobs), and if its process is killed at any moment, every job whose
 *   `enqueue` was acknowledged MUST still be delivered or dead.
 * - An adapter that declares `shared: true` MUST keep all of the above among several processes using it at once.
 */
export interface JobQueue {
  /** A short name for logs and reports, e.g. `store (memory)`. */
  readonly name: string;
  readonly capabilities: JobQueueCapabilities;
  /** When a failed job runs again and when it is given up. */
  readonly retry: RetryPolicy;

  /** Adds a job unless its key is taken; answers the job that holds the key either way. */
  enqueue<P = unknown>(job: EnqueueRequest<P>): Promise<EnqueueResult>;
  /** Leases up to `limit` due jobs of `queue` to `owner` for `leaseMs` milliseconds. */
  lease<P = unknown>(queue: string, options: LeaseOptions): Promise<LeasedJob<P>[]>;
  /** Removes a leased job once its work is done. False when the lease is no longer the job's current one. */
  complete(job: LeasedJob): Promise<boolean>;
  /** Gives a leased job back for a later attempt, or to the dead jobs after its last one. */
  fail(job: LeasedJob, options: FailOptions): Promise<FailOutcome | undefined>;
  /** Gives a leased job back to run again at `runAt`, its attempts counted from none: its work goes on later. */
  reschedule<P = unknown>(job: LeasedJob<P>, options: { runAt: number }): Promise<Job<P> | undefined>;
  /** Keeps a lease until now + `ms`; answers the job with its new expiry. */
  extend<P = unknown>(job: LeasedJob<P>, ms: number): Promise<LeasedJob<P> | undefined>;

  /** The job that holds `key`, whatever its state; undefined when none does. */
  get<P = unknown>(queue: string, key: string): Promise<Job<P> | undefined>;
  /** The dead jobs of `queue`, a page at a time (`limit` 1 to 1000, default 100). */
  listDead<P = unknown>(queue: string, options?: { cursor?: string; limit?: number }): Promise<JobPage<P>>;
  /** Makes a dead job pending again at `runAt` (default now), with no attempts counted. False if it is not dead. */
  revive(job: JobRef, options?: { runAt?: number }): Promise<boolean>;
  /** Removes a job in any state and frees its key. False when no job with this id holds the key. */
  discard(job: JobRef): Promise<boolean>;

  /** Releases timers and connections. The queue MUST NOT be used afterwards. */
  close(): Promise<void>;
}

export interface JobQueueCapabilities {
  /** Acknowledged changes survive a restart and a crash. */
  durable: boolean;
  /** Several processes may use one queue at once and every contract still holds. */
  shared: boolean;
}

/** When a failed job runs again, and how often before it is dead. */
export interface RetryPolicy {
  /** Deliveries before a job is dead: its attempt number `maxAttempts` is the last. At least 1. */
  maxAttempts: number;
  /** The delay after a first failed attempt, in milliseconds; doubled for each further one. */
  backoffBaseMs: number;
  /** The longest delay between attempts, in milliseconds. */
  backoffCapMs: number;
}

/** 20 attempts, 1 s after the first failure, doubling to at most 1 h: about 10 hours of retries in all. */
export const DEFAULT_RETRY_POLICY: Readonly<RetryPolicy> = Object.freeze({
  maxAttempts: 20,
  backoffBaseMs: 1000,
  backoffCapMs: 3_600_000,
});

/** The delay before the next attempt after attempt number `attempts` (1 or more) failed. */
export function backoffDelay(attempts: number, policy: RetryPolicy): number {
  const exponent = Math.max(0, Math.floor(attempts) - 1);
  return Math.min(policy.backoffCapMs, policy.backoffBaseMs * 2 ** exponent);
}

export type JobState = "pending" | "leased" | "dead";

export interface EnqueueRequest<P = unknown> {
  queue: string;
  /** Identifies the job within its queue while it is pending, leased or dead, e.g. `order:o_1:fulfil`. */
  key: string;
  /** JSON-serialisable. */
  payload: P;
  /** Milliseconds since the epoch, on the queue's clock, from which the job may be leased; default now. */
  runAt?: number;
  /** When the key holds a pending job due later than `runAt`, move that job to `runAt`. */
  moveEarlier?: boolean;
}

export interface EnqueueResult {
  /** The id of the job that holds the key: the new one, or the one already there. */
  id: string;
  created: boolean;
  /** That job's state and due time after the call. */
  state: JobState;
  runAt: number;
}

export interface LeaseOptions {
  /** Who holds the lease, e.g. a worker's host and pid; kept with the job for operators. */
  owner: string;
  /** The most jobs to lease: 1 to 1000. */
  limit: number;
  /** How long the lease holds, in milliseconds (more than 0). */
  leaseMs: number;
}

export interface FailOptions {
  /** What went wrong, for operators; kept with the job (at most 2000 characters). */
  error: string;
  /** When to run the job again; default now + the backoff. Ignored after the last attempt. */
  retryAt?: number;
}

export type FailOutcome = { state: "pending"; retryAt: number } | { state: "dead" };

/** Which job: its queue, its key and its id (a key may hold another job later). */
export interface JobRef {
  queue: string;
  key: string;
  id: string;
}

/** A job as the queue holds it. */
export interface Job<P = unknown> extends JobRef {
  payload: P;
  state: JobState;
  /** When the job is (pending) or was (leased, dead) due. */
  runAt: number;
  /** Deliveries so far. */
  attempts: number;
  /** When the job was enqueued, on the clock of the process that enqueued it. */
  enqueuedAt: number;
  /** Present while the job is leased. */
  lease?: { owner: string; expiresAt: number };
  /** The error of the last failed attempt. */
  lastError?: string;
  /** When the job became dead. */
  deadAt?: number;
}

/** A job as `lease` hands it to its lease holder, who passes it back to `complete`, `fail` or `extend`. */
export interface LeasedJob<P = unknown> extends Job<P> {
  state: "leased";
  /** `token` identifies this lease; no other lease of the job has the same. */
  lease: { owner: string; expiresAt: number; token: string };
}

export interface JobPage<P = unknown> {
  jobs: Job<P>[];
  /** Present when more may follow; pass it back as `cursor`. */
  cursor?: string;
}

/** Queue names: letters, digits, `.`, `_` and `-`, 1 to 64 characters, starting with a letter or digit. */
export const QUEUE_NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

/** Job keys: Store keys (letters, digits, `.`, `_`, `-`, `:`) of 1 to 200 characters. */
export const JOB_KEY_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,199}$/;

export function isValidQueueName(name: unknown): name is string {
  return typeof name === "string" && QUEUE_NAME_PATTERN.test(name);
}

export function isValidJobKey(key: unknown): key is string {
  return typeof key === "string" && JOB_KEY_PATTERN.test(key);
}
