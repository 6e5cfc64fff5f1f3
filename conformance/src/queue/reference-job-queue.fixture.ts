/**
 * A deliberately plain JobQueue for the kit's own tests: correct with no fault, so every contract test passes on
 * it, and broken on purpose by each fault. It keeps its jobs in memory, or in one JSON file that several processes
 * share (every call holds a lock directory that `mkdir` takes atomically across processes).
 */
import {
  type Clock,
  DEFAULT_RETRY_POLICY,
  type EnqueueRequest,
  type FailOutcome,
  isValidJobKey,
  isValidQueueName,
  type Job,
  type JobQueue,
  type JobQueueCapabilities,
  type JobRef,
  type LeasedJob,
  type LeaseOptions,
  PortError,
  type RetryPolicy,
  serialiseJson,
  systemClock,
} from "@mailpiece/ports";
import { openSharedFile, type SharedFileAccess, type SharedFileFault } from "../processes/shared-file.ts";

/** Ways to break the reference queue, each of which one contract test must catch. */
export type ReferenceQueueFault =
  | "no name check"
  | "forgets leased keys"
  | "racy enqueue"
  | "keeps completed keys"
  | "moves later too"
  | "leases jobs not yet due"
  | "shares payloads"
  | "racy lease"
  | "no redelivery"
  | "no lease check"
  | "complete keeps the job"
  | "ignores retryAt"
  | "uncapped backoff"
  | "extend does nothing"
  | "never dead"
  | "revive keeps attempts"
  | "reschedule keeps attempts";

export type SharedQueueFault = SharedFileFault;

interface Entry {
  id: string;
  queue: string;
  key: string;
  /** The payload's JSON, or the payload itself with the fault "shares payloads". */
  payload: unknown;
  state: "pending" | "leased" | "dead" | "done";
  runAt: number;
  attempts: number;
  enqueuedAt: number;
  seq: number;
  lease?: { owner: string; token: string; expiresAt: number };
  lastError?: string;
  deadAt?: number;
}

export interface ReferenceQueueData {
  jobs: Record<string, Entry>;
  seq: number;
}

/** Runs `action` on the data; `changed` says whether to keep what it did. */
type Access = SharedFileAccess<ReferenceQueueData>;

const tick = () => new Promise<void>((resolve) => setImmediate(resolve));
const slot = (queue: string, key: string) => `${queue} ${key}`;

export const REFERENCE_RETRY: RetryPolicy = { maxAttempts: 6, backoffBaseMs: 1000, backoffCapMs: 5000 };

export function emptyReferenceData(): ReferenceQueueData {
  return { jobs: {}, seq: 0 };
}

function createReferenceQueue(options: {
  clock: Clock;
  faults: ReadonlySet<ReferenceQueueFault>;
  access: Access;
  name: string;
  capabilities: JobQueueCapabilities;
  retry: RetryPolicy;
  close?: () => Promise<void>;
}): JobQueue {
  const { clock, faults, access, retry } = options;
  const has = (fault: ReferenceQueueFault) => faults.has(fault);
  const checkQueue = (name: unknown) => {
    if (!has("no name check") && !isValidQueueName(name))
      throw new PortError("invalid_key", "invalid queue name");
  };
  const checkKey = (key: unknown) => {
    if (!has("no name check") && !isValidJobKey(key)) throw new PortError("invalid_key", "invalid job key");
  };
  const checkRef = (job: JobRef) => {
    checkQueue(job.queue);
    checkKey(job.key);
  };
  const payloadOf = (entry: Entry): unknown =>
    has("shares payloads") ? entry.payload : JSON.parse(entry.payload as string);
  const view = <P>(entry: Entry): Job<P> => {
    const job: Job<P> = {
      id: entry.id,
      queue: entry.queue,
      key: entry.key,
      payload: payloadOf(entry) as P,
      state: entry.state as Job["state"],
      runAt: entry.runAt,
      attempts: entry.attempts,
      enqueuedAt: entry.enqueuedAt,
    };
    if (entry.lease) job.lease = { owner: entry.lease.owner, expiresAt: entry.lease.expiresAt };
    if (entry.lastError !== undefined) job.lastError = entry.lastError;
    if (entry.deadAt !== undefined) job.deadAt = entry.deadAt;
    return job;
  };
  const leasedView = <P>(entry: Entry): LeasedJob<P> =>
    ({ ...view<P>(entry), lease: { ...(entry.lease as NonNullable<Entry["lease"]>) } }) as LeasedJob<P>;
  const live = (entry: Entry | undefined): Entry | undefined =>
    entry && entry.state !== "done" ? entry : undefined;
  /** The entry `job` names while `job`'s lease is its current one. */
  const holder = (data: ReferenceQueueData, job: LeasedJob): Entry | undefined => {
    const entry = live(data.jobs[slot(job.queue, job.key)]);
    if (!entry || entry.id !== job.id || entry.state !== "leased") return undefined;
    if (!has("no lease check") && entry.lease?.token !== job.lease?.token) return undefined;
    return entry;
  };
  const due = (entry: Entry, now: number): boolean => {
    if (entry.state === "pending") return entry.runAt <= now + (has("leases jobs not yet due") ? 1000 : 0);
    if (entry.state === "leased") return !has("no redelivery") && (entry.lease?.expiresAt ?? 0) <= now;
    return false;
  };
  const bury = (entry: Entry, error: string | undefined, now: number) => {
    entry.state = "dead";
    entry.deadAt = now;
    delete entry.lease;
    if (error !== undefined) entry.lastError = error;
  };

  return {
    name: options.name,
    capabilities: options.capabilities,
    retry,

    async enqueue<P>(request: EnqueueRequest<P>) {
      checkQueue(request.queue);
      checkKey(request.key);
      const serialised = serialiseJson(request.payload);
      if (!serialised.ok) throw new PortError("value_not_serializable", serialised.reason);
      const now = clock.now();
      const runAt = request.runAt ?? now;
      return access(async (data) => {
        const stored = data.jobs[slot(request.queue, request.key)];
        const existing = has("keeps completed keys") ? stored : live(stored);
        if (has("racy enqueue")) await tick();
        const forgotten = has("forgets leased keys") && existing?.state === "leased";
        if (existing && !forgotten) {
          let changed = false;
          if (
            request.moveEarlier &&
            existing.state === "pending" &&
            (runAt < existing.runAt || has("moves later too"))
          ) {
            existing.runAt = runAt;
            changed = true;
          }
          const result = {
            id: existing.id,
            created: false,
            state: existing.state as Job["state"],
            runAt: existing.runAt,
          };
          return { result, changed };
        }
        data.seq += 1;
        const entry: Entry = {
          id: `job-${String(data.seq).padStart(8, "0")}`,
          queue: request.queue,
          key: request.key,
          payload: has("shares payloads") ? request.payload : serialised.json,
          state: "pending",
          runAt,
          attempts: 0,
          enqueuedAt: now,
          seq: data.seq,
        };
        data.jobs[slot(request.queue, request.key)] = entry;
        return { result: { id: entry.id, created: true, state: "pending" as const, runAt }, changed: true };
      });
    },

    async lease<P>(queue: string, lease: LeaseOptions) {
      checkQueue(queue);
      const now = clock.now();
      return access(async (data) => {
        const candidates = Object.values(data.jobs)
          .filter((entry) => entry.queue === queue && due(entry, now))
          .sort((a, b) => a.runAt - b.runAt || a.seq - b.seq);
        if (has("racy lease")) await tick();
        const leased: LeasedJob<P>[] = [];
        for (const entry of candidates) {
          if (leased.length >= lease.limit) break;
          if (entry.state === "leased" && entry.attempts >= retry.maxAttempts && !has("never dead")) {
            bury(entry, undefined, now);
            continue;
          }
          entry.state = "leased";
          entry.attempts += 1;
          entry.lease = { owner: lease.owner, token: crypto.randomUUID(), expiresAt: now + lease.leaseMs };
          leased.push(leasedView<P>(entry));
        }
        return { result: leased, changed: candidates.length > 0 };
      });
    },

    async complete(job) {
      checkRef(job);
      return access(async (data) => {
        const entry = holder(data, job);
        if (!entry) return { result: false, changed: false };
        if (has("complete keeps the job")) {
          if (entry.lease) entry.lease.expiresAt = clock.now();
        } else if (has("keeps completed keys")) {
          entry.state = "done";
        } else {
          delete data.jobs[slot(job.queue, job.key)];
        }
        return { result: true, changed: true };
      });
    },

    async fail(job, failure) {
      checkRef(job);
      const now = clock.now();
      return access(async (data): Promise<{ result: FailOutcome | undefined; changed: boolean }> => {
        const entry = holder(data, job);
        if (!entry) return { result: undefined, changed: false };
        if (entry.attempts >= retry.maxAttempts && !has("never dead")) {
          bury(entry, failure.error, now);
          return { result: { state: "dead" }, changed: true };
        }
        const doubled = retry.backoffBaseMs * 2 ** (entry.attempts - 1);
        const delay = has("uncapped backoff") ? doubled : Math.min(retry.backoffCapMs, doubled);
        const retryAt =
          failure.retryAt !== undefined && !has("ignores retryAt") ? failure.retryAt : now + delay;
        entry.state = "pending";
        entry.runAt = retryAt;
        entry.lastError = failure.error;
        delete entry.lease;
        return { result: { state: "pending", retryAt }, changed: true };
      });
    },

    async reschedule<P>(job: LeasedJob<P>, options: { runAt: number }) {
      checkRef(job);
      return access(async (data) => {
        const entry = holder(data, job);
        if (!entry) return { result: undefined, changed: false };
        entry.state = "pending";
        entry.runAt = options.runAt;
        if (!has("reschedule keeps attempts")) entry.attempts = 0;
        delete entry.lease;
        delete entry.lastError;
        return { result: view<P>(entry), changed: true };
      });
    },

    async extend<P>(job: LeasedJob<P>, ms: number) {
      checkRef(job);
      const now = clock.now();
      return access(async (data) => {
        const entry = holder(data, job);
        if (!entry?.lease) return { result: undefined, changed: false };
        if (!has("extend does nothing")) entry.lease.expiresAt = now + ms;
        return { result: leasedView<P>(entry), changed: true };
      });
    },

    async get<P>(queue: string, key: string) {
      checkQueue(queue);
      checkKey(key);
      return access(async (data) => {
        const entry = live(data.jobs[slot(queue, key)]);
        return { result: entry ? view<P>(entry) : undefined, changed: false };
      });
    },

    async listDead<P>(queue: string, page: { cursor?: string; limit?: number } = {}) {
      checkQueue(queue);
      const limit = Math.min(1000, page.limit ?? 100);
      return access(async (data) => {
        const dead = Object.values(data.jobs)
          .filter(
            (e) =>
              e.queue === queue && e.state === "dead" && (page.cursor === undefined || e.id > page.cursor),
          )
          .sort((a, b) => (a.id < b.id ? -1 : 1));
        const jobs = dead.slice(0, limit).map((e) => view<P>(e));
        const last = jobs.at(-1);
        return {
          result: dead.length > jobs.length && last ? { jobs, cursor: last.id } : { jobs },
          changed: false,
        };
      });
    },

    async revive(job, revival = {}) {
      checkRef(job);
      const now = clock.now();
      return access(async (data) => {
        const entry = live(data.jobs[slot(job.queue, job.key)]);
        if (!entry || entry.id !== job.id || entry.state !== "dead") return { result: false, changed: false };
        entry.state = "pending";
        entry.runAt = revival.runAt ?? now;
        if (!has("revive keeps attempts")) entry.attempts = 0;
        delete entry.deadAt;
        return { result: true, changed: true };
      });
    },

    async discard(job) {
      checkRef(job);
      return access(async (data) => {
        const entry = live(data.jobs[slot(job.queue, job.key)]);
        if (!entry || entry.id !== job.id) return { result: false, changed: false };
        delete data.jobs[slot(job.queue, job.key)];
        return { result: true, changed: true };
      });
    },

    async close() {
      await options.close?.();
    },
  };
}

/** The reference queue in memory; `data` may be passed again to reopen it. */
export function referenceJobQueue(
  clock: Clock,
  faults: ReadonlySet<ReferenceQueueFault> = new Set(),
  data: ReferenceQueueData = emptyReferenceData(),
  capabilities: JobQueueCapabilities = { durable: false, shared: false },
): JobQueue {
  return createReferenceQueue({
    clock,
    faults,
    access: async (action) => (await action(data)).result,
    name: "reference",
    capabilities,
    retry: REFERENCE_RETRY,
  });
}

export interface SharedReferenceQueueOptions {
  dir: string;
  fault?: SharedQueueFault;
  clock?: Clock;
}

/** The reference queue in one JSON file under `dir`, which several processes may open at once. */
export async function openSharedReferenceQueue(options: SharedReferenceQueueOptions): Promise<JobQueue> {
  const access = await openSharedFile(options.dir, "jobs.json", emptyReferenceData, options.fault);
  return createReferenceQueue({
    clock: options.clock ?? systemClock,
    faults: new Set(),
    access,
    name: "shared-reference",
    capabilities: { durable: true, shared: true },
    retry: { ...DEFAULT_RETRY_POLICY },
  });
}
