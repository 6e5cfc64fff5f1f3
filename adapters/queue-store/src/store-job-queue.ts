import type {
  Clock,
  EnqueueRequest,
  EnqueueResult,
  FailOptions,
  FailOutcome,
  Job,
  JobPage,
  JobQueue,
  JobQueueCapabilities,
  JobRef,
  LeasedJob,
  LeaseOptions,
  RetryPolicy,
  Store,
  StoredRecord,
} from "@mailpiece/ports";
import {
  backoffDelay,
  DEFAULT_RETRY_POLICY,
  isValidJobKey,
  isValidQueueName,
  PortError,
  serialiseJson,
  systemClock,
} from "@mailpiece/ports";

export interface StoreJobQueueOptions {
  /** Where the jobs live. The queue declares the store's capabilities as its own. */
  store: Store;
  /** Where time comes from (due times, leases, backoff); defaults to the system clock. */
  clock?: Clock;
  /** Overrides of `DEFAULT_RETRY_POLICY`. */
  retry?: Partial<RetryPolicy>;
  /** The first segment of every record key the queue writes; default `jobs`. */
  prefix?: string;
  /** Whether `close()` closes the store too; default false (the store is usually shared with the rest of the app). */
  closeStore?: boolean;
}

/** One job, as its record in the store holds it. */
interface JobRecord {
  id: string;
  queue: string;
  key: string;
  payload: unknown;
  state: "pending" | "leased" | "dead";
  runAt: number;
  attempts: number;
  enqueuedAt: number;
  lease?: { owner: string; token: string; expiresAt: number };
  lastError?: string;
  deadAt?: number;
}

/** An index entry: the job `id` under `key` is due at `at` while its record is at `version`. */
interface IndexEntry {
  key: string;
  id: string;
  version: number;
  at: number;
}

type Loaded = StoredRecord<JobRecord>;

const NAME = "store-job-queue";
const TAG = `[mailpiece] [${NAME}]`;
const PREFIX_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
/** Due times are written with 16 digits, so that key order is time order up to the largest Date. */
const TIME_DIGITS = 16;
const MAX_TIME = 8.64e15;
const MAX_LIMIT = 1000;
const DEFAULT_PAGE = 100;
const MAX_ERROR_LENGTH = 2000;
const MAX_OWNER_LENGTH = 200;
/** Compare-and-set rounds before a call gives up on a job that keeps changing under it. */
const MAX_RETRIES = 100;

const pad = (at: number) => String(at).padStart(TIME_DIGITS, "0");

/**
 * The JobQueue port on any Store: one record per job, keyed by queue and job key (so `create` makes enqueue
 * idempotent), and an index of the time each job is next due, so that a lease round lists only the due part of the
 * index and never reads a job that is not due.
 *
 * Records, under `prefix` (default `jobs`):
 * - `jobs:job:<queue>:<key>`: the job: payload, state, attempts, lease.
 * - `jobs:due:<queue>:<16-digit time>.<id>.<version>`: the job is due at that time (its runAt while pending, its
 *   lease expiry while leased) as long as its record is at that version. Listing the queue's prefix from the start
 *   gives the jobs in due order; a lease round stops at the first entry later than now.
 * - `jobs:dead:<queue>:<id>.<version>`: the job is dead (at that version), for `listDead`.
 *
 * Every change of a job writes the entry of its next version first, then the record (compare-and-set on its
 * version), then deletes the entries of the version before. A crash between two writes therefore leaves the record
 * with an entry at or before its due time, plus stale entries; a stale entry (its job gone, or at another version
 * or time) is deleted by the lease round that meets it. An entry ahead of its job's version (its change has not
 * reached its compare-and-set, or never will) makes that round write the job again unchanged: the entry is then
 * stale, and a change still under way tries again. A change that loses its compare-and-set deletes the entries it
 * wrote unless they are the winner's. A new job's entry is written once before its record is created (a round may
 * delete it meanwhile, the job being absent) and once after, so that it always has one.
 *
 * Lease rounds running at once in one process pass by the jobs another of them is taking, so that they do not
 * race each other for the same job; rounds in other processes race by compare-and-set.
 */
export function createStoreJobQueue(options: StoreJobQueueOptions): JobQueue {
  const { store } = options;
  const clock = options.clock ?? systemClock;
  const retry = retryPolicy(options.retry);
  const prefix = options.prefix ?? "jobs";
  if (!PREFIX_PATTERN.test(prefix)) {
    throw new RangeError(`${TAG} prefix must be 1 to 64 letters, digits, '.', '_' or '-'; got ${prefix}`);
  }
  const capabilities: JobQueueCapabilities = {
    durable: store.capabilities.durable,
    shared: store.capabilities.shared,
  };
  const life = lifecycle();
  let sequence = 0;
  /** The records of the jobs this queue's lease rounds are taking now: a concurrent round passes them by. */
  const taking = new Set<string>();

  const recordKey = (queue: string, key: string) => `${prefix}:job:${queue}:${key}`;
  const duePrefix = (queue: string) => `${prefix}:due:${queue}:`;
  const dueKey = (queue: string, at: number, id: string, version: number) =>
    `${duePrefix(queue)}${pad(at)}.${id}.${version}`;
  /** The entry a new job gets before its record exists: due at its runAt for version 1, like `dueKey(…, 1)`. */
  const firstKey = (queue: string, at: number, id: string) => `${duePrefix(queue)}${pad(at)}.${id}.0`;
  const deadPrefix = (queue: string) => `${prefix}:dead:${queue}:`;
  const deadKey = (queue: string, id: string, version: number) => `${deadPrefix(queue)}${id}.${version}`;

  const load = (queue: string, key: string) => store.get<JobRecord>(recordKey(queue, key));

  /** Sortable by creation within this process: time, a counter, then randomness against other processes. */
  const newId = () =>
    `${clock.now().toString(36).padStart(9, "0")}${(sequence++ % 36 ** 6).toString(36).padStart(6, "0")}${crypto
      .randomUUID()
      .slice(0, 8)}`;

  const dueOf = (job: JobRecord): number | undefined =>
    job.state === "pending" ? job.runAt : job.state === "leased" ? job.lease?.expiresAt : undefined;

  const isConflict = (error: unknown) => PortError.isInstance(error) && error.code === "version_conflict";

  /** Deletes a record that is of no use any more; a failure leaves it for a later round to delete. */
  const drop = async (key: string): Promise<void> => {
    try {
      await store.delete(key);
    } catch {
      // A stale entry is harmless: the next round that meets it deletes it.
    }
  };

  /** The keys of the index entries of `loaded` at its version: its due entry (and first entry), or its dead entry. */
  const entriesOf = (loaded: Loaded): string[] => {
    const job = loaded.value;
    const keys: string[] = [];
    const due = dueOf(job);
    if (due !== undefined) keys.push(dueKey(job.queue, due, job.id, loaded.version));
    if (loaded.version === 1) keys.push(firstKey(job.queue, job.runAt, job.id));
    if (job.state === "dead") keys.push(deadKey(job.queue, job.id, loaded.version));
    return keys;
  };

  /**
   * What the index entry `entry` is to the job: `live` when it names the job's current version and due time,
   * `ahead` when it names a later version (written by a change before its compare-and-set), else `stale`.
   */
  const judge = (
    loaded: StoredRecord<JobRecord> | undefined,
    entry: IndexEntry,
  ): "live" | "ahead" | "stale" => {
    if (!loaded || loaded.value.id !== entry.id) return "stale";
    if (loaded.version < entry.version) return "ahead";
    if (loaded.version > entry.version) return "stale";
    return dueOf(loaded.value) === entry.at ? "live" : "stale";
  };

  /**
   * Changes the job from `loaded` to `next`: the entry of the next version first, then the record if it is still at
   * `loaded`'s version, then the entries of that version. Undefined when the record had moved on.
   */
  const transition = async (loaded: Loaded, next: JobRecord): Promise<Loaded | undefined> => {
    const version = loaded.version + 1;
    const entry: IndexEntry = { key: next.key, id: next.id, version, at: 0 };
    const due = dueOf(next);
    if (due !== undefined) await store.put(dueKey(next.queue, due, next.id, version), { ...entry, at: due });
    if (next.state === "dead")
      await store.put(deadKey(next.queue, next.id, version), { ...entry, at: next.deadAt });
    let written: Loaded;
    try {
      written = await store.put(recordKey(next.queue, next.key), next, { ifVersion: loaded.version });
    } catch (error) {
      if (!isConflict(error)) throw error;
      // Another change won. The entries written above are stale unless the winner's are the same records.
      const winner = await load(next.queue, next.key);
      if (due !== undefined && judge(winner, { ...entry, at: due }) === "stale") {
        await drop(dueKey(next.queue, due, next.id, version));
      }
      const winnerIsDead =
        winner?.value.id === next.id && winner.version === version && winner.value.state === "dead";
      if (next.state === "dead" && !winnerIsDead) await drop(deadKey(next.queue, next.id, version));
      return undefined;
    }
    for (const key of entriesOf(loaded)) await drop(key);
    return written;
  };

  /** Removes the job of `loaded` if its record is still at that version. */
  const remove = async (loaded: Loaded): Promise<boolean> => {
    try {
      await store.delete(recordKey(loaded.value.queue, loaded.value.key), { ifVersion: loaded.version });
    } catch (error) {
      if (isConflict(error)) return false;
      throw error;
    }
    for (const key of entriesOf(loaded)) await drop(key);
    return true;
  };

  /**
   * Reads the job `ref` names and runs `step` on it, again with the job as it is then each time `step` answers
   * `retry` (its compare-and-set lost to another change).
   */
  const withJob = async <T>(
    ref: JobRef,
    step: (loaded: Loaded | undefined) => Promise<{ done: T } | "retry">,
  ): Promise<T> => {
    for (let round = 0; round < MAX_RETRIES; round++) {
      const loaded = await load(ref.queue, ref.key);
      const outcome = await step(loaded && loaded.value.id === ref.id ? loaded : undefined);
      if (outcome !== "retry") return outcome.done;
    }
    throw new PortError(
      "store_unavailable",
      `${TAG} the job ${JSON.stringify(ref.key)} of ${ref.queue} changed ${MAX_RETRIES} times during one call`,
    );
  };

  /** The job `job` names, while `job`'s lease is its current one. */
  const held = (loaded: Loaded | undefined, job: LeasedJob): Loaded | undefined =>
    loaded?.value.state === "leased" && loaded.value.lease?.token === job.lease?.token ? loaded : undefined;

  const view = <P>(job: JobRecord): Job<P> => {
    const out: Job<P> = {
      id: job.id,
      queue: job.queue,
      key: job.key,
      payload: job.payload as P,
      state: job.state,
      runAt: job.runAt,
      attempts: job.attempts,
      enqueuedAt: job.enqueuedAt,
    };
    if (job.lease) out.lease = { owner: job.lease.owner, expiresAt: job.lease.expiresAt };
    if (job.lastError !== undefined) out.lastError = job.lastError;
    if (job.deadAt !== undefined) out.deadAt = job.deadAt;
    return out;
  };

  const leasedView = <P>(job: JobRecord): LeasedJob<P> => {
    const lease = job.lease as NonNullable<JobRecord["lease"]>;
    return { ...view<P>(job), state: "leased", lease: { ...lease } };
  };

  const dead = (job: JobRecord, now: number, error: string | undefined): JobRecord => {
    const { lease: _lease, ...rest } = job;
    const next: JobRecord = { ...rest, state: "dead", deadAt: now };
    if (error !== undefined) next.lastError = error;
    return next;
  };

  const pending = (job: JobRecord, runAt: number, changes: Partial<JobRecord> = {}): JobRecord => {
    const { lease: _lease, deadAt: _deadAt, ...rest } = job;
    return { ...rest, ...changes, state: "pending", runAt };
  };

  /** Leases the job `entry` names, or moves it to the dead jobs after its last attempt; cleans a stale entry. */
  const take = async <P>(
    queue: string,
    entryKey: string,
    entry: IndexEntry,
    now: number,
    options: LeaseOptions,
  ): Promise<LeasedJob<P> | undefined> => {
    let loaded = await load(queue, entry.key);
    let verdict = judge(loaded, entry);
    if (verdict === "ahead" && loaded) {
      // A change that wrote this entry has not written the record: it is under way (it will retry once this
      // rewrite of the unchanged job moves the version on) or its process died. Either way the entry is then stale.
      const rewritten = await transition(loaded, loaded.value);
      if (!rewritten) return undefined;
      loaded = rewritten;
      verdict = judge(loaded, entry);
    }
    if (verdict === "stale") await drop(entryKey);
    if (verdict !== "live" || !loaded) return undefined;
    const job = loaded.value;
    if (job.state === "leased" && job.attempts >= retry.maxAttempts) {
      const error = `attempt ${job.attempts} of ${retry.maxAttempts} did not finish: its lease expired`;
      await transition(loaded, dead(job, now, error));
      return undefined;
    }
    const lease = { owner: options.owner, token: crypto.randomUUID(), expiresAt: now + options.leaseMs };
    const written = await transition(loaded, { ...job, state: "leased", attempts: job.attempts + 1, lease });
    return written ? leasedView<P>(written.value) : undefined;
  };

  /**
   * Answers an enqueue whose key `found` holds: that job as it is, after moving it earlier to `runAt` when asked and
   * it is pending; a new job when it is gone meanwhile.
   */
  const answer = async (
    found: Loaded,
    request: EnqueueRequest<unknown>,
    runAt: number,
  ): Promise<EnqueueResult> => {
    let loaded: Loaded | undefined = found;
    for (let round = 0; round < MAX_RETRIES; round++) {
      if (!loaded) return enqueueNow(request, runAt);
      const job = loaded.value;
      const result: EnqueueResult = { id: job.id, created: false, state: job.state, runAt: job.runAt };
      if (!request.moveEarlier || job.state !== "pending" || runAt >= job.runAt) return result;
      if (await transition(loaded, pending(job, runAt))) return { ...result, runAt };
      loaded = await load(request.queue, request.key);
    }
    throw new PortError(
      "store_unavailable",
      `${TAG} the job ${JSON.stringify(request.key)} of ${request.queue} changed ${MAX_RETRIES} times during one call`,
    );
  };

  const enqueueNow = async (request: EnqueueRequest<unknown>, runAt: number): Promise<EnqueueResult> => {
    const { queue, key } = request;
    const existing = await load(queue, key);
    if (existing) return answer(existing, request, runAt);
    const id = newId();
    const job: JobRecord = {
      id,
      queue,
      key,
      payload: request.payload,
      state: "pending",
      runAt,
      attempts: 0,
      enqueuedAt: clock.now(),
    };
    const entry: IndexEntry = { key, id, version: 1, at: runAt };
    const first = firstKey(queue, runAt, id);
    await store.put(first, entry);
    const created = await store.create(recordKey(queue, key), job);
    if (!created.created) {
      await drop(first);
      return answer(created.record, request, runAt);
    }
    // A round that met the first entry before the record existed may have deleted it: this one it cannot have.
    await store.put(dueKey(queue, runAt, id, 1), entry);
    await drop(first);
    return { id, created: true, state: "pending", runAt };
  };

  return {
    name: `store (${store.name})`,
    capabilities,
    retry,

    enqueue<P>(request: EnqueueRequest<P>): Promise<EnqueueResult> {
      return life.run(async () => {
        assertQueue(request?.queue);
        assertKey(request.key);
        const serialised = serialiseJson(request.payload);
        if (!serialised.ok) {
          throw new PortError(
            "value_not_serializable",
            `${TAG} the payload of ${JSON.stringify(request.key)} is not JSON-serialisable: it holds ${serialised.reason}`,
          );
        }
        const runAt = request.runAt === undefined ? clock.now() : time("runAt", request.runAt);
        return enqueueNow({ ...request, payload: JSON.parse(serialised.json) }, runAt);
      });
    },

    lease<P>(queue: string, options: LeaseOptions): Promise<LeasedJob<P>[]> {
      return life.run(async () => {
        assertQueue(queue);
        const checked = leaseOptions(options);
        const now = clock.now();
        const leased: LeasedJob<P>[] = [];
        // The first page holds as many entries as jobs are wanted (the store reads every entry on a page); later
        // pages, needed only when entries were stale or lost to other leasers, grow.
        let pageSize = checked.limit;
        let cursor: string | undefined;
        for (;;) {
          const page = await store.list<IndexEntry>(
            duePrefix(queue),
            cursor === undefined ? { limit: pageSize } : { limit: pageSize, cursor },
          );
          for (const record of page.records) {
            const entry = record.value;
            if (!isIndexEntry(entry)) continue;
            if (entry.at > now) return leased;
            const job = recordKey(queue, entry.key);
            if (taking.has(job)) continue;
            taking.add(job);
            try {
              const taken = await take<P>(queue, record.key, entry, now, checked);
              if (taken) leased.push(taken);
            } finally {
              taking.delete(job);
            }
            if (leased.length >= checked.limit) return leased;
          }
          if (page.cursor === undefined) return leased;
          cursor = page.cursor;
          pageSize = Math.min(MAX_LIMIT, pageSize * 2);
        }
      });
    },

    complete(job: LeasedJob): Promise<boolean> {
      return life.run(async () => {
        assertRef(job);
        return withJob(job, async (loaded) => {
          const current = held(loaded, job);
          if (!current) return { done: false };
          return (await remove(current)) ? { done: true } : "retry";
        });
      });
    },

    fail(job: LeasedJob, failure: FailOptions): Promise<FailOutcome | undefined> {
      return life.run(async () => {
        assertRef(job);
        const error = String(failure?.error).slice(0, MAX_ERROR_LENGTH);
        const retryAt = failure?.retryAt === undefined ? undefined : time("retryAt", failure.retryAt);
        return withJob<FailOutcome | undefined>(job, async (loaded) => {
          const current = held(loaded, job);
          if (!current) return { done: undefined };
          const now = clock.now();
          const attempts = current.value.attempts;
          if (attempts >= retry.maxAttempts) {
            return (await transition(current, dead(current.value, now, error)))
              ? { done: { state: "dead" } }
              : "retry";
          }
          const at = retryAt ?? now + backoffDelay(attempts, retry);
          const next = pending(current.value, at, { lastError: error });
          return (await transition(current, next)) ? { done: { state: "pending", retryAt: at } } : "retry";
        });
      });
    },

    reschedule<P>(job: LeasedJob<P>, options: { runAt: number }): Promise<Job<P> | undefined> {
      return life.run(async () => {
        assertRef(job);
        const at = time("runAt", options?.runAt);
        return withJob<Job<P> | undefined>(job, async (loaded) => {
          const current = held(loaded, job);
          if (!current) return { done: undefined };
          const { lastError: _error, ...rest } = current.value;
          const written = await transition(current, pending(rest, at, { attempts: 0 }));
          return written ? { done: view<P>(written.value) } : "retry";
        });
      });
    },

    extend<P>(job: LeasedJob<P>, ms: number): Promise<LeasedJob<P> | undefined> {
      return life.run(async () => {
        assertRef(job);
        const duration = positive("ms", ms);
        return withJob(job, async (loaded) => {
          const current = held(loaded, job);
          if (!current?.value.lease) return { done: undefined };
          const lease = { ...current.value.lease, expiresAt: clock.now() + duration };
          const written = await transition(current, { ...current.value, lease });
          return written ? { done: leasedView<P>(written.value) } : "retry";
        });
      });
    },

    get<P>(queue: string, key: string): Promise<Job<P> | undefined> {
      return life.run(async () => {
        assertQueue(queue);
        assertKey(key);
        const loaded = await load(queue, key);
        return loaded ? view<P>(loaded.value) : undefined;
      });
    },

    listDead<P>(queue: string, page: { cursor?: string; limit?: number } = {}): Promise<JobPage<P>> {
      return life.run(async () => {
        assertQueue(queue);
        const limit = pageLimit(page.limit);
        const listed = await store.list<IndexEntry>(
          deadPrefix(queue),
          page.cursor === undefined ? { limit } : { limit, cursor: page.cursor },
        );
        const jobs: Job<P>[] = [];
        for (const record of listed.records) {
          const entry = record.value;
          if (!isIndexEntry(entry)) continue;
          const loaded = await load(queue, entry.key);
          if (!loaded || loaded.value.id !== entry.id || loaded.version > entry.version) {
            await drop(record.key);
          } else if (loaded.version === entry.version && loaded.value.state === "dead") {
            jobs.push(view<P>(loaded.value));
          }
        }
        return listed.cursor === undefined ? { jobs } : { jobs, cursor: listed.cursor };
      });
    },

    revive(ref: JobRef, revival: { runAt?: number } = {}): Promise<boolean> {
      return life.run(async () => {
        assertRef(ref);
        const runAt = revival.runAt === undefined ? undefined : time("runAt", revival.runAt);
        return withJob(ref, async (loaded) => {
          if (loaded?.value.state !== "dead") return { done: false };
          const next = pending(loaded.value, runAt ?? clock.now(), { attempts: 0 });
          return (await transition(loaded, next)) ? { done: true } : "retry";
        });
      });
    },

    discard(ref: JobRef): Promise<boolean> {
      return life.run(async () => {
        assertRef(ref);
        return withJob(ref, async (loaded) => {
          if (!loaded) return { done: false };
          return (await remove(loaded)) ? { done: true } : "retry";
        });
      });
    },

    close(): Promise<void> {
      return life.close(async () => {
        if (options.closeStore) await store.close();
      });
    },
  };
}

function retryPolicy(overrides: Partial<RetryPolicy> | undefined): RetryPolicy {
  const policy = { ...DEFAULT_RETRY_POLICY, ...overrides };
  if (!Number.isSafeInteger(policy.maxAttempts) || policy.maxAttempts < 1) {
    throw new RangeError(
      `${TAG} retry.maxAttempts must be a whole number, 1 or more; got ${policy.maxAttempts}`,
    );
  }
  if (!(policy.backoffBaseMs > 0) || !(policy.backoffCapMs >= policy.backoffBaseMs)) {
    throw new RangeError(
      `${TAG} retry needs 0 < backoffBaseMs <= backoffCapMs; got ${policy.backoffBaseMs} and ${policy.backoffCapMs}`,
    );
  }
  return policy;
}

function assertQueue(name: unknown): asserts name is string {
  if (!isValidQueueName(name)) {
    throw new PortError(
      "invalid_key",
      `${TAG} invalid queue name ${show(name)}: use 1 to 64 letters, digits, '.', '_' or '-', starting with a letter or digit`,
    );
  }
}

function assertKey(key: unknown): asserts key is string {
  if (!isValidJobKey(key)) {
    throw new PortError(
      "invalid_key",
      `${TAG} invalid job key ${show(key)}: use 1 to 200 letters, digits, '.', '_', '-' or ':', starting with a letter or digit`,
    );
  }
}

function assertRef(ref: JobRef): void {
  assertQueue(ref?.queue);
  assertKey(ref.key);
  if (typeof ref.id !== "string") throw new RangeError(`${TAG} a job's id must be a string`);
}

function show(value: unknown): string {
  if (typeof value !== "string") return String(value);
  return JSON.stringify(value.length > 80 ? `${value.slice(0, 80)}…` : value);
}

/** A time in milliseconds since the epoch, as a whole number (rounded up: never due early). */
function time(name: string, value: unknown): number {
  if (typeof value !== "number" || !(value >= 0 && value <= MAX_TIME)) {
    throw new RangeError(
      `${TAG} ${name} must be milliseconds since the epoch, 0 to ${MAX_TIME}; got ${String(value)}`,
    );
  }
  return Math.ceil(value);
}

function positive(name: string, value: unknown): number {
  if (typeof value !== "number" || !(value > 0 && value <= MAX_TIME)) {
    throw new RangeError(`${TAG} ${name} must be a number of milliseconds above 0; got ${String(value)}`);
  }
  return Math.ceil(value);
}

function pageLimit(limit: unknown): number {
  if (limit === undefined) return DEFAULT_PAGE;
  if (typeof limit !== "number" || !Number.isInteger(limit) || limit < 1 || limit > MAX_LIMIT) {
    throw new RangeError(`${TAG} limit must be a whole number from 1 to ${MAX_LIMIT}; got ${String(limit)}`);
  }
  return limit;
}

function leaseOptions(options: LeaseOptions): LeaseOptions {
  const owner = options?.owner;
  if (typeof owner !== "string" || owner.length === 0 || owner.length > MAX_OWNER_LENGTH) {
    throw new RangeError(`${TAG} owner must be a string of 1 to ${MAX_OWNER_LENGTH} characters`);
  }
  return { owner, limit: pageLimit(options.limit), leaseMs: positive("leaseMs", options.leaseMs) };
}

function isIndexEntry(value: unknown): value is IndexEntry {
  const entry = value as Partial<IndexEntry> | null;
  return (
    typeof entry === "object" &&
    entry !== null &&
    typeof entry.key === "string" &&
    typeof entry.id === "string" &&
    typeof entry.version === "number" &&
    typeof entry.at === "number"
  );
}

/** Refuses calls after `close()`, and lets `close()` wait for every call still running. */
function lifecycle() {
  let closing: Promise<void> | undefined;
  const running = new Set<Promise<unknown>>();
  return {
    run<T>(task: () => Promise<T>): Promise<T> {
      if (closing) return Promise.reject(new PortError("store_unavailable", `${TAG} the queue is closed`));
      const promise = Promise.resolve().then(task);
      running.add(promise);
      const done = () => {
        running.delete(promise);
      };
      promise.then(done, done);
      return promise;
    },
    close(release: () => Promise<void>): Promise<void> {
      closing ??= (async () => {
        while (running.size > 0) await Promise.allSettled([...running]);
        await release();
      })();
      return closing;
    },
  };
}
