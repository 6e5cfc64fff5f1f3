import { strict as assert } from "node:assert";
import type { Clock, Job, JobQueue, LeasedJob, LeaseOptions } from "@mailpiece/ports";
import { manualClock, PortError } from "@mailpiece/ports";
import { kitTests, notApplicable, type Suite, type TestBody } from "../kit.ts";
import { type PortProcesses, siblingProgram, startPortProcesses } from "../processes/port-processes.ts";
import { refusalAssertion } from "../refused-with.ts";
import { JOB_QUEUE_REQUIREMENTS } from "./job-queue-requirements.ts";
import {
  type JobQueueOpening,
  SHARED_QUEUE_PHASES,
  SHARED_QUEUE_PLAN,
  SHARED_QUEUE_PROCESSES,
  type SharedQueueResults,
  sharedJobKey,
} from "./shared-queue-plan.ts";

export type { JobQueueOpening } from "./shared-queue-plan.ts";

const rejectsWithCode = refusalAssertion(PortError);

/** The names of the JobQueue contract tests, one per MUST sentence of the port. Skip lists are typed by it. */
export const JOB_QUEUE_CONTRACT_NAMES = [
  "rejects invalid queue names, keys and payloads",
  "enqueue is idempotent by queue and key while the job is pending, leased or dead",
  "enqueue: exactly one of 20 concurrent enqueues of one key creates the job",
  "a completed job's key is free: enqueue makes a new job",
  "enqueue with moveEarlier moves a pending job earlier, never later",
  "lease returns only due jobs of its queue, at most limit, earliest runAt first",
  "a leased job carries its key, a copy of its payload, its runAt and its attempt number",
  "leases are exclusive: concurrent leasers never receive one job while its lease holds",
  "an expired lease is delivered again as the next attempt",
  "a stale lease holder's complete, fail and extend change nothing",
  "complete removes the job",
  "fail makes the job pending again at retryAt",
  "fail without retryAt backs off: the base delay doubled per attempt, at most the cap",
  "extend keeps the lease until now + ms",
  "reschedule makes the job pending again at runAt with no attempts counted, keeping its id and payload",
  "after maxAttempts the job is dead: never leased again, its key taken, listed by listDead",
  "revive makes a dead job pending again; discard removes a job in any state and frees its key",
  "durable: pending, leased and dead jobs survive reopen",
  "shared: among several processes at once, one enqueue wins each key and each job is leased once",
] as const;

export type JobQueueContractName = (typeof JOB_QUEUE_CONTRACT_NAMES)[number];

export interface JobQueueContractContext {
  /** A manual clock starting at 2026-01-01; the queue MUST read time from it. Tests advance it instead of sleeping. */
  clock: Clock & { advance(ms: number): void };
}

export interface JobQueueContractOptions {
  /** Shown in reports, e.g. `store (file)`. */
  name?: string;
  /** Opens a new, empty queue on `ctx.clock`. Every test opens its own queue and closes it when done. */
  create(ctx: JobQueueContractContext): Promise<JobQueue>;
  /**
   * Opens the jobs of `previous` again, as a restarted process would, on the same clock. The suite has closed
   * `previous` before calling it. Required when the queue declares `durable: true`.
   */
  reopen?(previous: JobQueue): Promise<JobQueue>;
  /**
   * How other processes open the jobs of `queue` while it is open: a module, its exported opener and JSON options.
   * The suite starts several processes (`node --import tsx`) that enqueue and lease the same jobs at once.
   * Required when the queue declares `shared: true`.
   */
  sharedOpening?(queue: JobQueue): JobQueueOpening | Promise<JobQueueOpening>;
  /** Tests that cannot apply to the adapter, left out of the suite; a name the kit does not have is refused. */
  disable?: readonly JobQueueContractName[];
}

type TestClock = JobQueueContractContext["clock"];
/** A test's body on the queue it opened: throws on failure, or answers `notApplicable(reason)`. */
type QueueBody = (queue: JobQueue, clock: TestClock) => ReturnType<TestBody>;

const NOT_DURABLE = "the queue declares durable: false";
const NOT_SHARED = "the queue declares shared: false";

const Q = "contract";
const OTHER = "contract-other";
const OWNER = "contract-worker";
const LEASE_MS = 30_000;

const leaseFrom = (
  queue: JobQueue,
  name: string,
  options: Partial<LeaseOptions> = {},
): Promise<LeasedJob[]> => queue.lease(name, { owner: OWNER, limit: 100, leaseMs: LEASE_MS, ...options });

/** Leases the one due job of `name`, failing unless there is exactly one and it is `id` (when given). */
async function leaseOnly(queue: JobQueue, name: string, id?: string, leaseMs = LEASE_MS): Promise<LeasedJob> {
  const jobs = await leaseFrom(queue, name, { leaseMs });
  assert.equal(jobs.length, 1, `one job of ${name} is due; lease returned ${describeJobs(jobs)}`);
  const [job] = jobs as [LeasedJob];
  if (id !== undefined) assert.equal(job.id, id, `the due job of ${name} is ${id}`);
  return job;
}

async function assertNothingDue(queue: JobQueue, name: string, why: string): Promise<void> {
  const jobs = await leaseFrom(queue, name);
  assert.deepEqual(describeJobs(jobs), "[]", `${why}: lease returned ${describeJobs(jobs)}`);
}

function describeJobs(jobs: ReadonlyArray<Job>): string {
  return `[${jobs.map((j) => `${j.key} (attempt ${j.attempts})`).join(", ")}]`;
}

/**
 * Takes the job `id` of queue `name` (its only due job) through `retry.maxAttempts` failed attempts; answers the
 * last attempt's lease, which `fail` then ended by making the job dead.
 */
async function failUntilDead(
  queue: JobQueue,
  clock: TestClock,
  name: string,
  id: string,
): Promise<LeasedJob> {
  const max = queue.retry.maxAttempts;
  for (let attempt = 1; ; attempt++) {
    const job = await leaseOnly(queue, name, id);
    assert.equal(job.attempts, attempt, `attempt ${attempt} is delivered as attempt ${attempt}`);
    const outcome = await queue.fail(job, { error: `attempt ${attempt} failed`, retryAt: clock.now() });
    if (attempt < max) {
      assert.deepEqual(outcome, { state: "pending", retryAt: clock.now() }, `attempt ${attempt} of ${max}`);
    } else {
      assert.deepEqual(
        outcome,
        { state: "dead" },
        `the failure of attempt ${max} of ${max} makes the job dead`,
      );
      return job;
    }
  }
}

/** Follows `listDead` cursors to the end; fails if the listing does not end. */
async function listAllDead(queue: JobQueue, name: string, limit?: number): Promise<Job[]> {
  const jobs: Job[] = [];
  let cursor: string | undefined;
  for (let pages = 0; pages < 1000; pages++) {
    const options: { limit?: number; cursor?: string } = {};
    if (limit !== undefined) options.limit = limit;
    if (cursor !== undefined) options.cursor = cursor;
    const page = await queue.listDead(name, options);
    if (limit !== undefined)
      assert.ok(page.jobs.length <= limit, `listDead returns at most limit ${limit} jobs`);
    jobs.push(...page.jobs);
    cursor = page.cursor;
    if (cursor === undefined) return jobs;
  }
  assert.fail(`listDead(${name}) did not end after 1000 pages`);
}

/**
 * The JobQueue contract: one named test per MUST sentence of `JobQueue` (adapters/ports/src/job-queue.ts). The
 * durability and sharing tests answer not applicable for a queue that declares `durable: false` or `shared: false`.
 */
export function jobQueueContract(options: JobQueueContractOptions): Suite<JobQueueContractName> {
  const withQueue =
    (body: QueueBody): TestBody =>
    async () => {
      const clock = manualClock();
      const queue = await options.create({ clock });
      try {
        return await body(queue, clock);
      } finally {
        await queue.close();
      }
    };

  const tests: Record<JobQueueContractName, TestBody> = {
    "rejects invalid queue names, keys and payloads": withQueue(async (queue, clock) => {
      const kept = await queue.enqueue({ queue: Q, key: "keep", payload: { kept: true } });
      const badQueues: unknown[] = [
        "",
        ":a",
        "a:b",
        "-a",
        ".a",
        "a b",
        "a/b",
        "a\n",
        "é",
        `a${"b".repeat(64)}`,
        5,
        undefined,
        null,
      ];
      const badKeys: unknown[] = [
        "",
        ":a",
        "-a",
        "a b",
        "a/b",
        "a?b",
        "../x",
        "é",
        `a${"b".repeat(200)}`,
        7,
        null,
      ];
      const leased = await leaseOnly(queue, Q, kept.id, 1000);
      for (const raw of badQueues) {
        const name = raw as string;
        const label = JSON.stringify(raw) ?? String(raw);
        await rejectsWithCode(
          () => queue.enqueue({ queue: name, key: "k", payload: {} }),
          "invalid_key",
          `enqueue to queue ${label}`,
        );
        await rejectsWithCode(() => leaseFrom(queue, name), "invalid_key", `lease(${label})`);
        await rejectsWithCode(() => queue.get(name, "k"), "invalid_key", `get(${label})`);
        await rejectsWithCode(() => queue.listDead(name), "invalid_key", `listDead(${label})`);
        const foreign = { ...leased, queue: name };
        await rejectsWithCode(() => queue.complete(foreign), "invalid_key", `complete of a job of ${label}`);
        await rejectsWithCode(() => queue.fail(foreign, { error: "x" }), "invalid_key", `fail (${label})`);
        await rejectsWithCode(() => queue.extend(foreign, 1000), "invalid_key", `extend (${label})`);
        await rejectsWithCode(() => queue.discard(foreign), "invalid_key", `discard (${label})`);
        await rejectsWithCode(() => queue.revive(foreign), "invalid_key", `revive (${label})`);
      }
      for (const raw of badKeys) {
        const key = raw as string;
        const label = JSON.stringify(raw) ?? String(raw);
        await rejectsWithCode(
          () => queue.enqueue({ queue: Q, key, payload: {} }),
          "invalid_key",
          `enqueue with key ${label}`,
        );
        await rejectsWithCode(() => queue.get(Q, key), "invalid_key", `get(${Q}, ${label})`);
        const foreign = { ...leased, key };
        await rejectsWithCode(() => queue.complete(foreign), "invalid_key", `complete of key ${label}`);
        await rejectsWithCode(() => queue.discard(foreign), "invalid_key", `discard of key ${label}`);
      }
      const cycle: Record<string, unknown> = {};
      cycle.self = cycle;
      const badPayloads: Array<[string, unknown]> = [
        ["a function", () => 1],
        ["a bigint", { amount: 10n }],
        ["a cycle", cycle],
        ["undefined", undefined],
      ];
      for (const [label, payload] of badPayloads) {
        await rejectsWithCode(
          () => queue.enqueue({ queue: Q, key: "bad-payload", payload }),
          "value_not_serializable",
          `enqueue with ${label} in its payload`,
        );
      }
      assert.equal(await queue.get(Q, "bad-payload"), undefined, "a refused payload enqueues nothing");
      assert.equal(await queue.get(Q, "k"), undefined, "refused calls enqueue nothing");
      const keep = await queue.get(Q, "keep");
      assert.equal(keep?.state, "leased", "refused calls leave the existing job as it was");
      assert.equal(keep?.lease?.expiresAt, leased.lease.expiresAt);
      clock.advance(1000);
      const again = await leaseOnly(queue, Q, kept.id);
      assert.equal(again.attempts, 2, "only the job enqueued before is ever due");
      assert.ok(await queue.complete(again));
      await assertNothingDue(queue, Q, "nothing else was enqueued");
    }),

    "enqueue is idempotent by queue and key while the job is pending, leased or dead": withQueue(
      async (queue, clock) => {
        const key = "order:o_1:fulfil";
        const runAt = clock.now() + 1000;
        const first = await queue.enqueue({ queue: Q, key, payload: { v: 1 }, runAt });
        assert.deepEqual(
          first,
          { id: first.id, created: true, state: "pending", runAt },
          "the first enqueue",
        );
        assert.equal(typeof first.id, "string");
        const repeat = await queue.enqueue({ queue: Q, key, payload: { v: 2 }, runAt: clock.now() });
        assert.deepEqual(
          repeat,
          { id: first.id, created: false, state: "pending", runAt },
          "a repeat while pending answers the pending job and changes nothing, not even its runAt",
        );
        const other = await queue.enqueue({ queue: OTHER, key, payload: { v: 3 }, runAt });
        assert.equal(other.created, true, "the same key in another queue is another job");
        assert.notEqual(other.id, first.id);
        const pending = await queue.get(Q, key);
        assert.deepEqual(pending?.payload, { v: 1 }, "the pending job keeps its payload");
        assert.equal(pending?.id, first.id);
        await assertNothingDue(queue, Q, "the repeat did not make the job due sooner");
        clock.advance(1000);
        const leased = await leaseOnly(queue, Q, first.id);
        assert.deepEqual(leased.payload, { v: 1 });
        const whileLeased = await queue.enqueue({ queue: Q, key, payload: { v: 4 } });
        assert.deepEqual(
          whileLeased,
          { id: first.id, created: false, state: "leased", runAt },
          "a repeat while leased answers the leased job",
        );
        await assertNothingDue(queue, Q, "a repeat while leased adds no job");
        assert.ok(await queue.complete(leased));

        const doomed = await queue.enqueue({ queue: Q, key: "order:o_2:fulfil", payload: { v: 5 } });
        await failUntilDead(queue, clock, Q, doomed.id);
        const whileDead = await queue.enqueue({ queue: Q, key: "order:o_2:fulfil", payload: { v: 6 } });
        assert.equal(whileDead.created, false, "a repeat while dead adds no job");
        assert.equal(whileDead.id, doomed.id);
        assert.equal(whileDead.state, "dead");
        await assertNothingDue(queue, Q, "a repeat while dead makes nothing due");
        assert.deepEqual((await queue.get(Q, "order:o_2:fulfil"))?.payload, { v: 5 });
        const otherJob = await leaseOnly(queue, OTHER, other.id);
        assert.deepEqual(otherJob.payload, { v: 3 });
      },
    ),

    "enqueue: exactly one of 20 concurrent enqueues of one key creates the job": withQueue(async (queue) => {
      for (const key of ["race:a", "race:b"]) {
        const results = await Promise.all(
          Array.from({ length: 20 }, (_, i) => queue.enqueue({ queue: Q, key, payload: { i } })),
        );
        const created = results.flatMap((r, i) => (r.created ? [i] : []));
        assert.equal(created.length, 1, `exactly one of 20 concurrent enqueues of ${key} creates it`);
        const ids = new Set(results.map((r) => r.id));
        assert.equal(ids.size, 1, `all 20 answer the same id; got ${[...ids].join(", ")}`);
        const job = await leaseOnly(queue, Q, results[0]?.id);
        assert.deepEqual(
          job.payload,
          { i: created[0] },
          "the job holds the payload of the enqueue that made it",
        );
        assert.ok(await queue.complete(job));
        await assertNothingDue(queue, Q, `only one job of ${key} exists`);
      }
    }),

    "a completed job's key is free: enqueue makes a new job": withQueue(async (queue, clock) => {
      const key = "order:o_1:step";
      const first = await queue.enqueue({ queue: Q, key, payload: { step: "print" } });
      const job = await leaseOnly(queue, Q, first.id);
      assert.equal(await queue.complete(job), true);
      const next = await queue.enqueue({ queue: Q, key, payload: { step: "post" }, runAt: clock.now() + 10 });
      assert.equal(next.created, true, "the key of a completed job is free");
      assert.notEqual(next.id, first.id, "the new job has a new id");
      assert.equal(next.state, "pending");
      clock.advance(10);
      const second = await leaseOnly(queue, Q, next.id);
      assert.deepEqual(second.payload, { step: "post" });
      assert.equal(second.attempts, 1, "the new job starts at attempt 1");
      assert.equal(second.lastError, undefined);
    }),

    "enqueue with moveEarlier moves a pending job earlier, never later": withQueue(async (queue, clock) => {
      const t0 = clock.now();
      const key = "reconcile:p_1";
      const first = await queue.enqueue({ queue: Q, key, payload: { v: 1 }, runAt: t0 + 10_000 });
      const later = await queue.enqueue({
        queue: Q,
        key,
        payload: { v: 2 },
        runAt: t0 + 20_000,
        moveEarlier: true,
      });
      assert.deepEqual(
        later,
        { id: first.id, created: false, state: "pending", runAt: t0 + 10_000 },
        "moveEarlier never moves a job later",
      );
      const plain = await queue.enqueue({ queue: Q, key, payload: { v: 3 }, runAt: t0 + 5000 });
      assert.equal(plain.runAt, t0 + 10_000, "without moveEarlier an earlier runAt changes nothing");
      const moved = await queue.enqueue({
        queue: Q,
        key,
        payload: { v: 4 },
        runAt: t0 + 5000,
        moveEarlier: true,
      });
      assert.deepEqual(
        moved,
        { id: first.id, created: false, state: "pending", runAt: t0 + 5000 },
        "moveEarlier moves the pending job to the earlier runAt",
      );
      const stored = await queue.get(Q, key);
      assert.equal(stored?.runAt, t0 + 5000);
      assert.deepEqual(stored?.payload, { v: 1 }, "the moved job keeps its payload");
      clock.advance(4999);
      await assertNothingDue(queue, Q, "the moved job is not due before its new runAt");
      clock.advance(1);
      const job = await leaseOnly(queue, Q, first.id);
      assert.equal(job.runAt, t0 + 5000);
      assert.deepEqual(job.payload, { v: 1 });
      const whileLeased = await queue.enqueue({ queue: Q, key, payload: {}, runAt: t0, moveEarlier: true });
      assert.equal(whileLeased.state, "leased", "moveEarlier leaves a leased job leased");
      assert.equal(whileLeased.runAt, t0 + 5000, "moveEarlier does not touch a leased job");
      const still = await queue.get(Q, key);
      assert.equal(still?.state, "leased");
      assert.equal(still?.lease?.expiresAt, job.lease.expiresAt, "the lease is untouched");
      await assertNothingDue(queue, Q, "moveEarlier does not release a leased job");
      assert.ok(await queue.complete(job), "the lease holder still completes the job");
    }),

    "lease returns only due jobs of its queue, at most limit, earliest runAt first": withQueue(
      async (queue, clock) => {
        const t0 = clock.now();
        const ids = new Map<string, string>();
        const add = async (key: string, runAt: number, name = Q) => {
          const result = await queue.enqueue({ queue: name, key, payload: { key }, runAt });
          ids.set(key, result.id);
        };
        await add("a", t0 + 300);
        await add("b", t0 + 100);
        await add("c", t0 + 200);
        await add("d", t0 + 100);
        await add("e", t0 + 1000);
        await add("f", t0, OTHER);
        await add("g", t0 + 100);
        clock.advance(300);
        const first = await leaseFrom(queue, Q, { limit: 2 });
        assert.deepEqual(
          first.map((j) => j.key),
          ["b", "d"],
          "limit 2: the two earliest due jobs, in enqueue order for one runAt",
        );
        for (const job of first) {
          assert.equal(job.state, "leased");
          assert.equal(job.queue, Q);
          assert.equal(job.id, ids.get(job.key));
          assert.equal(job.lease.owner, OWNER);
          assert.equal(job.lease.expiresAt, clock.now() + LEASE_MS, "the lease holds for leaseMs from now");
          assert.equal(typeof job.lease.token, "string");
        }
        const second = await leaseFrom(queue, Q, { limit: 10 });
        assert.deepEqual(
          second.map((j) => j.key),
          ["g", "c", "a"],
          "then the rest of the due jobs, earliest runAt first; the job due later is not returned",
        );
        await assertNothingDue(queue, Q, "a job due at t0 + 1000 is not due at t0 + 300");
        clock.advance(699);
        await assertNothingDue(queue, Q, "a job due at t0 + 1000 is not due at t0 + 999");
        clock.advance(1);
        assert.deepEqual(
          (await leaseFrom(queue, Q)).map((j) => j.key),
          ["e"],
          "a job is due at its runAt exactly",
        );
        assert.deepEqual(
          (await leaseFrom(queue, OTHER)).map((j) => j.key),
          ["f"],
          "each queue leases only its own jobs",
        );
      },
    ),

    "a leased job carries its key, a copy of its payload, its runAt and its attempt number": withQueue(
      async (queue, clock) => {
        const payload = { order: "o_1", pages: [1, 2, 3], recipient: { name: "Ada", lines: ["1 Main St"] } };
        const enqueuedAt = clock.now();
        const runAt = enqueuedAt + 50;
        const result = await queue.enqueue({ queue: Q, key: "fulfil:o_1", payload, runAt });
        payload.pages.push(4);
        clock.advance(60);
        const job = await leaseOnly(queue, Q, result.id, 1000);
        const original = { order: "o_1", pages: [1, 2, 3], recipient: { name: "Ada", lines: ["1 Main St"] } };
        assert.equal(job.key, "fulfil:o_1");
        assert.equal(job.queue, Q);
        assert.deepEqual(
          job.payload,
          original,
          "the payload as enqueued; changing the caller's object changed nothing",
        );
        assert.equal(job.runAt, runAt);
        assert.equal(job.attempts, 1, "the first delivery is attempt 1");
        assert.equal(job.enqueuedAt, enqueuedAt);
        (job.payload as typeof original).recipient.name = "changed";
        (job.payload as typeof original).pages.length = 0;
        const stored = await queue.get<typeof original>(Q, "fulfil:o_1");
        assert.deepEqual(stored?.payload, original, "changing a leased job's payload changes nothing stored");
        (stored as Job<typeof original>).payload.order = "changed";
        clock.advance(1000);
        const again = await leaseOnly(queue, Q, result.id);
        assert.deepEqual(again.payload, original, "the next delivery carries the payload as enqueued");
        assert.equal(again.attempts, 2, "the second delivery is attempt 2");
        assert.equal(again.runAt, runAt, "runAt is when the job was due");
      },
    ),

    "leases are exclusive: concurrent leasers never receive one job while its lease holds": withQueue(
      async (queue, clock) => {
        const count = 30;
        const created = await Promise.all(
          Array.from({ length: count }, (_, i) =>
            queue.enqueue({ queue: Q, key: `exclusive:${i}`, payload: { i }, runAt: clock.now() - i }),
          ),
        );
        const seen: LeasedJob[] = [];
        for (let round = 0; round < 50 && seen.length < count; round++) {
          const batches = await Promise.all(
            Array.from({ length: 6 }, (_, leaser) =>
              leaseFrom(queue, Q, { owner: `leaser-${leaser}`, limit: 3 }),
            ),
          );
          seen.push(...batches.flat());
          if (batches.every((b) => b.length === 0)) break;
        }
        const seenIds = seen.map((j) => j.id);
        const duplicates = seenIds.filter((id, i) => seenIds.indexOf(id) !== i);
        assert.deepEqual(duplicates, [], "no job is leased twice while its lease holds");
        assert.deepEqual(
          [...seenIds].sort(),
          created.map((r) => r.id).sort(),
          `concurrent leasers lease all ${count} jobs between them`,
        );
        clock.advance(LEASE_MS - 1);
        await assertNothingDue(queue, Q, "every lease holds until it expires");
        const racing = await Promise.all(Array.from({ length: 4 }, () => leaseFrom(queue, Q)));
        assert.equal(racing.flat().length, 0, "concurrent leasers see no job while its lease holds");
        clock.advance(1);
        const redelivered = (
          await Promise.all(Array.from({ length: 5 }, () => leaseFrom(queue, Q, { limit: 10 })))
        )
          .flat()
          .map((j) => j.id);
        assert.equal(new Set(redelivered).size, redelivered.length, "redelivery too is exclusive");
        assert.equal(redelivered.length, count, "every expired lease is delivered again, once");
      },
    ),

    "an expired lease is delivered again as the next attempt": withQueue(async (queue, clock) => {
      const { id } = await queue.enqueue({ queue: Q, key: "crashy", payload: {} });
      const first = await leaseOnly(queue, Q, id, 1000);
      assert.equal(first.attempts, 1);
      clock.advance(999);
      await assertNothingDue(queue, Q, "the lease holds until it expires");
      clock.advance(1);
      const second = await leaseOnly(queue, Q, id, 2000);
      assert.equal(second.attempts, 2, "the redelivery is attempt 2");
      assert.notEqual(second.lease.token, first.lease.token, "a new lease has a new token");
      assert.equal(second.lease.expiresAt, clock.now() + 2000);
      const during = await queue.get(Q, "crashy");
      assert.equal(during?.state, "leased");
      assert.equal(during?.attempts, 2);
      clock.advance(2000);
      const third = await leaseOnly(queue, Q, id);
      assert.equal(third.attempts, 3, "and again as attempt 3");
    }),

    "a stale lease holder's complete, fail and extend change nothing": withQueue(async (queue, clock) => {
      const { id } = await queue.enqueue({ queue: Q, key: "stale", payload: {} });
      const first = await leaseOnly(queue, Q, id, 1000);
      clock.advance(1000);
      const second = await leaseOnly(queue, Q, id, 5000);
      assert.equal(await queue.complete(first), false, "a stale holder's complete answers false");
      assert.equal(
        await queue.fail(first, { error: "stale" }),
        undefined,
        "a stale holder's fail answers undefined",
      );
      assert.equal(await queue.extend(first, 60_000), undefined, "a stale holder's extend answers undefined");
      const forged = { ...second, lease: { ...second.lease, token: `${second.lease.token}x` } };
      assert.equal(await queue.complete(forged), false, "a lease with another token is not the current one");
      const current = await queue.get(Q, "stale");
      assert.equal(current?.state, "leased", "the job is still leased");
      assert.equal(current?.lease?.expiresAt, clock.now() + 5000, "the current lease is untouched");
      assert.equal(current?.attempts, 2);
      assert.equal(current?.lastError, undefined, "the stale fail recorded nothing");
      await assertNothingDue(queue, Q, "the stale calls released nothing");
      assert.equal(await queue.complete(second), true, "the current holder completes the job");
      assert.equal(await queue.complete(second), false, "a second complete answers false");
      assert.equal(
        await queue.fail(second, { error: "late" }),
        undefined,
        "fail after complete answers undefined",
      );
      assert.equal(await queue.extend(second, 1000), undefined, "extend after complete answers undefined");
      assert.equal(await queue.get(Q, "stale"), undefined, "nothing came back");

      // An expired lease that no one else has taken is still the current one.
      const late = await queue.enqueue({ queue: Q, key: "late", payload: {} });
      const lateJob = await leaseOnly(queue, Q, late.id, 1000);
      clock.advance(5000);
      const extended = await queue.extend(lateJob, 1000);
      assert.equal(
        extended?.lease.expiresAt,
        clock.now() + 1000,
        "extend after expiry, before another lease",
      );
      clock.advance(5000);
      const failed = await queue.fail(lateJob, { error: "late", retryAt: clock.now() + 10 });
      assert.deepEqual(failed, { state: "pending", retryAt: clock.now() + 10 }, "fail after expiry");
      clock.advance(10);
      const again = await leaseOnly(queue, Q, late.id, 1000);
      clock.advance(5000);
      assert.equal(await queue.complete(again), true, "complete after expiry, before another lease");
      await assertNothingDue(queue, Q, "the completed job is gone");
    }),

    "complete removes the job": withQueue(async (queue, clock) => {
      const { id } = await queue.enqueue({ queue: Q, key: "done", payload: { n: 1 } });
      await queue.enqueue({ queue: Q, key: "other", payload: { n: 2 }, runAt: clock.now() + 1 });
      const job = await leaseOnly(queue, Q, id, 1000);
      assert.equal(await queue.complete(job), true);
      assert.equal(await queue.get(Q, "done"), undefined, "a completed job is gone");
      clock.advance(1000);
      const left = await leaseFrom(queue, Q);
      assert.deepEqual(
        left.map((j) => j.key),
        ["other"],
        "a completed job is not delivered again after its lease would have expired",
      );
      assert.deepEqual(await listAllDead(queue, Q), [], "a completed job is not dead");
      assert.ok((await queue.get(Q, "other"))?.state === "leased", "other jobs are untouched");
    }),

    "fail makes the job pending again at retryAt": withQueue(async (queue, clock) => {
      const { id } = await queue.enqueue({ queue: Q, key: "flaky", payload: { p: 1 } });
      const job = await leaseOnly(queue, Q, id);
      const retryAt = clock.now() + 5000;
      const outcome = await queue.fail(job, { error: "printer offline", retryAt });
      assert.deepEqual(outcome, { state: "pending", retryAt });
      const pending = await queue.get(Q, "flaky");
      assert.equal(pending?.state, "pending");
      assert.equal(pending?.runAt, retryAt);
      assert.equal(pending?.attempts, 1, "the failed attempt is counted");
      assert.equal(pending?.lastError, "printer offline");
      assert.equal(pending?.lease, undefined, "a pending job has no lease");
      clock.advance(4999);
      await assertNothingDue(queue, Q, "not due before retryAt");
      clock.advance(1);
      const second = await leaseOnly(queue, Q, id);
      assert.equal(second.attempts, 2);
      assert.equal(second.lastError, "printer offline", "the next attempt sees the last error");
      assert.deepEqual(second.payload, { p: 1 });
      const past = await queue.fail(second, { error: "again", retryAt: clock.now() - 60_000 });
      assert.equal(past?.state, "pending");
      const third = await leaseOnly(queue, Q, id);
      assert.equal(third.attempts, 3, "a retryAt in the past is due at once");
    }),

    "fail without retryAt backs off: the base delay doubled per attempt, at most the cap": withQueue(
      async (queue, clock) => {
        const { maxAttempts, backoffBaseMs, backoffCapMs } = queue.retry;
        assert.ok(
          Number.isSafeInteger(maxAttempts) && maxAttempts >= 1,
          "retry.maxAttempts is a whole number",
        );
        assert.ok(
          backoffBaseMs > 0 && backoffCapMs >= backoffBaseMs,
          "0 < retry.backoffBaseMs <= backoffCapMs",
        );
        const { id } = await queue.enqueue({ queue: Q, key: "backoff", payload: {} });
        let previous = 0;
        let capped = 0;
        for (let attempt = 1; attempt < Math.min(maxAttempts, 40) && capped < 2; attempt++) {
          const job = await leaseOnly(queue, Q, id);
          assert.equal(job.attempts, attempt);
          const outcome = await queue.fail(job, { error: `attempt ${attempt}` });
          const expected = Math.min(backoffCapMs, backoffBaseMs * 2 ** (attempt - 1));
          assert.deepEqual(
            outcome,
            { state: "pending", retryAt: clock.now() + expected },
            `after attempt ${attempt} the delay is min(cap, base * 2^${attempt - 1}) = ${expected} ms`,
          );
          assert.ok(expected >= previous, "delays never shrink");
          previous = expected;
          if (expected === backoffCapMs) capped++;
          clock.advance(expected - 1);
          await assertNothingDue(queue, Q, `attempt ${attempt + 1} is not due before its delay`);
          clock.advance(1);
        }
      },
    ),

    "extend keeps the lease until now + ms": withQueue(async (queue, clock) => {
      const { id } = await queue.enqueue({ queue: Q, key: "long", payload: { p: 1 } });
      const job = await leaseOnly(queue, Q, id, 1000);
      clock.advance(800);
      const extended = await queue.extend(job, 5000);
      assert.ok(extended, "the holder extends its lease");
      assert.equal(extended.lease.expiresAt, clock.now() + 5000, "the lease now holds until now + ms");
      assert.equal(extended.id, id);
      assert.equal(extended.attempts, 1, "extend is no new attempt");
      assert.deepEqual(extended.payload, { p: 1 });
      assert.equal((await queue.get(Q, "long"))?.lease?.expiresAt, clock.now() + 5000);
      clock.advance(200);
      await assertNothingDue(queue, Q, "the job is not delivered at the first lease's expiry");
      clock.advance(4799);
      await assertNothingDue(queue, Q, "nor before the extended expiry");
      assert.ok(await queue.extend(job, 100), "the job as first leased still names the lease");
      clock.advance(99);
      await assertNothingDue(queue, Q, "the lease holds until the last extension's expiry");
      clock.advance(1);
      const again = await leaseOnly(queue, Q, id);
      assert.equal(again.attempts, 2, "after the extended lease expires the job is delivered again");
    }),

    "reschedule makes the job pending again at runAt with no attempts counted, keeping its id and payload":
      withQueue(async (queue, clock) => {
        const { id } = await queue.enqueue({ queue: Q, key: "poll", payload: { order: "o_1" } });
        const first = await leaseOnly(queue, Q, id);
        const failed = await queue.fail(first, { error: "the printer did not answer", retryAt: clock.now() });
        assert.equal(failed?.state, "pending");
        const second = await leaseOnly(queue, Q, id);
        assert.equal(second.attempts, 2);
        const later = clock.now() + 5000;
        const moved = await queue.reschedule(second, { runAt: later });
        assert.ok(moved, "the holder reschedules its job");
        assert.equal(moved.state, "pending");
        assert.equal(moved.runAt, later);
        assert.equal(moved.id, id, "the job keeps its id");
        assert.equal(moved.attempts, 0, "a rescheduled job has no attempts counted");
        assert.deepEqual(moved.payload, { order: "o_1" });
        assert.equal(
          await queue.reschedule(second, { runAt: clock.now() }),
          undefined,
          "a second reschedule",
        );
        assert.equal(await queue.complete(second), false, "the lease ended with the reschedule");
        const again = await queue.enqueue({ queue: Q, key: "poll", payload: { order: "o_2" } });
        assert.equal(again.created, false, "the key stays taken while the job is pending");
        clock.advance(4999);
        await assertNothingDue(queue, Q, "nothing is due before runAt");
        clock.advance(1);
        const third = await leaseOnly(queue, Q, id);
        assert.equal(third.attempts, 1, "the next delivery after a reschedule is attempt 1");
        assert.deepEqual(third.payload, { order: "o_1" });
      }),

    "after maxAttempts the job is dead: never leased again, its key taken, listed by listDead": withQueue(
      async (queue, clock) => {
        const max = queue.retry.maxAttempts;
        const doomed = await queue.enqueue({ queue: Q, key: "poison:1", payload: { n: 1 } });
        await failUntilDead(queue, clock, Q, doomed.id);
        const dead = await queue.get(Q, "poison:1");
        assert.equal(dead?.state, "dead");
        assert.equal(dead?.attempts, max, "a dead job keeps its attempt count");
        assert.equal(dead?.lastError, `attempt ${max} failed`);
        assert.equal(dead?.deadAt, clock.now());
        assert.equal(dead?.lease, undefined);
        clock.advance(365 * 24 * 3_600_000);
        await assertNothingDue(queue, Q, "a dead job is never leased again");
        const repeat = await queue.enqueue({ queue: Q, key: "poison:1", payload: {} });
        assert.deepEqual(
          [repeat.created, repeat.id, repeat.state],
          [false, doomed.id, "dead"],
          "a dead job keeps its key",
        );

        // The last attempt's lease expires instead of failing.
        const crashing = await queue.enqueue({ queue: Q, key: "poison:2", payload: { n: 2 } });
        for (let attempt = 1; attempt < max; attempt++) {
          const job = await leaseOnly(queue, Q, crashing.id);
          await queue.fail(job, { error: "x", retryAt: clock.now() });
        }
        const last = await leaseOnly(queue, Q, crashing.id, 1000);
        assert.equal(last.attempts, max);
        clock.advance(1000);
        await assertNothingDue(queue, Q, "a job whose last attempt's lease expired is not delivered again");
        assert.equal((await queue.get(Q, "poison:2"))?.state, "dead", "it is dead");
        assert.equal(await queue.complete(last), false, "its last lease is gone");

        const third = await queue.enqueue({ queue: Q, key: "poison:3", payload: { n: 3 } });
        await failUntilDead(queue, clock, Q, third.id);
        await queue.enqueue({ queue: Q, key: "healthy", payload: {}, runAt: clock.now() + 1_000_000 });
        const listed = await listAllDead(queue, Q, 1);
        assert.deepEqual(
          listed.map((j) => j.key).sort(),
          ["poison:1", "poison:2", "poison:3"],
          "listDead pages through every dead job once, and only dead ones",
        );
        for (const job of listed) {
          assert.equal(job.state, "dead");
          assert.equal(job.queue, Q);
          assert.deepEqual(job.payload, { n: Number(job.key.slice("poison:".length)) });
        }
        assert.deepEqual(await listAllDead(queue, OTHER), [], "another queue has no dead jobs");
      },
    ),

    "revive makes a dead job pending again; discard removes a job in any state and frees its key": withQueue(
      async (queue, clock) => {
        const doomed = await queue.enqueue({ queue: Q, key: "revive", payload: { r: 1 } });
        await failUntilDead(queue, clock, Q, doomed.id);
        const ref = { queue: Q, key: "revive", id: doomed.id };
        assert.equal(await queue.revive({ ...ref, id: `${doomed.id}x` }), false, "revive of another id");
        assert.equal(await queue.revive(ref, { runAt: clock.now() + 1000 }), true);
        const revived = await queue.get(Q, "revive");
        assert.equal(revived?.state, "pending");
        assert.equal(revived?.attempts, 0, "a revived job has no attempts counted");
        assert.equal(revived?.runAt, clock.now() + 1000);
        assert.deepEqual(await listAllDead(queue, Q), [], "a revived job is no longer dead");
        assert.equal(await queue.revive(ref), false, "revive of a job that is not dead answers false");
        clock.advance(1000);
        const job = await leaseOnly(queue, Q, doomed.id);
        assert.equal(job.attempts, 1, "the revived job's next delivery is attempt 1");
        assert.deepEqual(job.payload, { r: 1 });
        assert.equal(await queue.revive(ref), false, "revive of a leased job answers false");
        const outcome = await queue.fail(job, { error: "still broken", retryAt: clock.now() });
        assert.equal(
          outcome?.state,
          queue.retry.maxAttempts > 1 ? "pending" : "dead",
          "a revived job has all its attempts again",
        );

        const pending = await queue.enqueue({
          queue: Q,
          key: "cancel:pending",
          payload: {},
          runAt: clock.now() + 5,
        });
        const leasedRef = await queue.enqueue({ queue: OTHER, key: "cancel:leased", payload: {} });
        const leased = await leaseOnly(queue, OTHER, leasedRef.id);
        const dead = await queue.enqueue({ queue: OTHER, key: "cancel:dead", payload: {} });
        await failUntilDead(queue, clock, OTHER, dead.id);
        assert.equal(
          await queue.discard({ queue: Q, key: "cancel:pending", id: `${pending.id}x` }),
          false,
          "discard of another id changes nothing",
        );
        assert.equal((await queue.get(Q, "cancel:pending"))?.id, pending.id);
        assert.equal(await queue.discard({ queue: Q, key: "cancel:pending", id: pending.id }), true);
        assert.equal(await queue.discard(leased), true, "a leased job can be discarded");
        assert.equal(await queue.discard({ queue: OTHER, key: "cancel:dead", id: dead.id }), true);
        assert.equal(
          await queue.discard({ queue: OTHER, key: "cancel:dead", id: dead.id }),
          false,
          "only once",
        );
        assert.equal(await queue.discard({ queue: Q, key: "never", id: "none" }), false, "an absent job");
        for (const [name, key] of [
          [Q, "cancel:pending"],
          [OTHER, "cancel:leased"],
          [OTHER, "cancel:dead"],
        ] as const) {
          assert.equal(await queue.get(name, key), undefined, `${key} is gone`);
        }
        assert.equal(
          await queue.complete(leased),
          false,
          "the holder of a discarded job's lease completes nothing",
        );
        assert.deepEqual(await listAllDead(queue, OTHER), [], "a discarded dead job is no longer listed");
        clock.advance(LEASE_MS);
        await assertNothingDue(queue, OTHER, "discarded jobs are never delivered");
        const leftInQ = await leaseFrom(queue, Q);
        assert.deepEqual(
          leftInQ.map((j) => j.key),
          queue.retry.maxAttempts > 1 ? ["revive"] : [],
          "only the revived job remains due in its queue",
        );
        for (const [name, key] of [
          [Q, "cancel:pending"],
          [OTHER, "cancel:leased"],
          [OTHER, "cancel:dead"],
        ] as const) {
          const again = await queue.enqueue({ queue: name, key, payload: { again: true } });
          assert.equal(again.created, true, `the key ${key} of a discarded job is free`);
        }
      },
    ),

    "durable: pending, leased and dead jobs survive reopen": async () => {
      const clock = manualClock();
      const queue = await options.create({ clock });
      let current: JobQueue | undefined = queue;
      try {
        if (!options.reopen) {
          assert.equal(
            queue.capabilities.durable,
            false,
            "this queue declares durable: true; pass reopen to jobQueueContract so the suite can check that jobs survive a restart",
          );
          return notApplicable(NOT_DURABLE);
        }
        if (!queue.capabilities.durable) return notApplicable(NOT_DURABLE);
        const t0 = clock.now();
        const dead = await queue.enqueue({ queue: Q, key: "d:dead", payload: { d: 1 } });
        await failUntilDead(queue, clock, Q, dead.id);
        const pending = await queue.enqueue({
          queue: Q,
          key: "d:pending",
          payload: { p: 1 },
          runAt: t0 + 10_000,
        });
        const failed = await queue.enqueue({ queue: Q, key: "d:failed", payload: { f: 1 } });
        const failedJob = await leaseOnly(queue, Q, failed.id);
        await queue.fail(failedJob, { error: "before restart", retryAt: t0 + 5000 });
        const leasedRef = await queue.enqueue({ queue: OTHER, key: "d:leased", payload: { l: 1 } });
        const leased = await leaseOnly(queue, OTHER, leasedRef.id, 60_000);
        const done = await queue.enqueue({ queue: OTHER, key: "d:done", payload: {} });
        assert.ok(await queue.complete(await leaseOnly(queue, OTHER, done.id)));
        current = undefined;
        await queue.close();
        current = await options.reopen(queue);

        const p = await current.get(Q, "d:pending");
        assert.deepEqual(
          [p?.id, p?.state, p?.runAt, p?.attempts, p?.payload],
          [pending.id, "pending", t0 + 10_000, 0, { p: 1 }],
          "a pending job survives",
        );
        const f = await current.get(Q, "d:failed");
        assert.deepEqual(
          [f?.state, f?.runAt, f?.attempts, f?.lastError],
          ["pending", t0 + 5000, 1, "before restart"],
          "a failed job survives with its attempts and error",
        );
        const l = await current.get(OTHER, "d:leased");
        assert.deepEqual(
          [l?.state, l?.lease?.owner, l?.lease?.expiresAt],
          ["leased", OWNER, leased.lease.expiresAt],
          "a lease survives with its owner and expiry",
        );
        assert.equal((await current.get(Q, "d:dead"))?.state, "dead", "a dead job survives");
        assert.deepEqual(
          (await listAllDead(current, Q)).map((j) => j.id),
          [dead.id],
          "dead jobs are listed after reopen",
        );
        assert.equal(await current.get(OTHER, "d:done"), undefined, "a completed job stays gone");
        assert.equal(
          (await current.enqueue({ queue: Q, key: "d:pending", payload: {} })).created,
          false,
          "keys stay taken",
        );
        await assertNothingDue(current, OTHER, "the lease taken before the restart still holds");
        assert.equal(await current.complete(leased), true, "the lease holder completes after the restart");
        clock.advance(10_000);
        assert.deepEqual(
          (await leaseFrom(current, Q)).map((j) => j.key),
          ["d:failed", "d:pending"],
          "pending jobs become due on time after reopen, earliest first",
        );
      } finally {
        await current?.close();
      }
    },

    "shared: among several processes at once, one enqueue wins each key and each job is leased once":
      async () => {
        const clock = manualClock();
        const queue = await options.create({ clock });
        let processes: PortProcesses<SharedQueueResults> | undefined;
        try {
          if (!queue.capabilities.shared) return notApplicable(NOT_SHARED);
          assert.ok(
            options.sharedOpening,
            "this queue declares shared: true; pass sharedOpening to jobQueueContract so the suite can open it from other processes",
          );
          processes = await startPortProcesses<SharedQueueResults>(
            siblingProgram(import.meta.url, "shared-queue-child"),
            "queue",
            await options.sharedOpening(queue),
            SHARED_QUEUE_PROCESSES,
          );
          const results = {} as { [P in keyof SharedQueueResults]: SharedQueueResults[P][] };
          for (const phase of SHARED_QUEUE_PHASES) {
            (results as Record<string, unknown>)[phase] = await processes.run(phase);
          }
          await processes.close();
          processes = undefined;
          await checkShared(queue, results);
        } finally {
          processes?.kill();
          await queue.close();
        }
      },
  };

  return {
    name: options.name ? `job queue contract (${options.name})` : "job queue contract",
    tests: kitTests(JOB_QUEUE_CONTRACT_NAMES, tests, JOB_QUEUE_REQUIREMENTS, options.disable),
  };
}

/** Checks what the processes of the shared test saw, and what the queue holds after them. */
async function checkShared(
  queue: JobQueue,
  results: { [P in keyof SharedQueueResults]: SharedQueueResults[P][] },
): Promise<void> {
  const { keys, queue: name } = SHARED_QUEUE_PLAN;
  const ids = new Map<string, string>();
  for (let i = 0; i < keys; i++) {
    const seen = results.enqueue.map((r) => r.enqueued.find((e) => e.i === i));
    const winners = seen.filter((e) => e?.created);
    assert.equal(
      winners.length,
      1,
      `enqueue(${sharedJobKey(i)}) from ${SHARED_QUEUE_PROCESSES} processes at once: exactly one creates the job, got ${winners.length}`,
    );
    const id = winners[0]?.id as string;
    for (const entry of seen) {
      assert.equal(entry?.id, id, `enqueue(${sharedJobKey(i)}): every process answers the winner's id`);
    }
    ids.set(sharedJobKey(i), id);
  }
  const leased = results.drain.flatMap((r) => r.leased);
  const counts = new Map<string, number>();
  for (const job of leased) counts.set(job.id, (counts.get(job.id) ?? 0) + 1);
  const twice = [...counts].filter(([, n]) => n > 1).map(([id]) => id);
  assert.deepEqual(twice, [], "no job is leased by two processes while its lease holds");
  assert.deepEqual(
    [...counts.keys()].sort(),
    [...ids.values()].sort(),
    `the processes lease all ${keys} jobs between them`,
  );
  for (const job of leased) {
    assert.equal(job.id, ids.get(job.key), `${job.key} is leased under the id enqueue answered`);
    assert.equal(job.attempts, 1, `${job.key} is delivered once: attempt 1`);
  }
  const completed = results.drain.flatMap((r) => r.completed);
  assert.ok(
    completed.every((c) => c),
    "every lease holder completes its jobs: no other process took them meanwhile",
  );
  for (const key of ids.keys()) {
    assert.equal(await queue.get(name, key), undefined, `${key}, completed in another process, is gone here`);
  }
}
