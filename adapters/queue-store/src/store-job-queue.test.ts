import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { jobQueueContract } from "@mailpiece/conformance";
import { registerSuite } from "@mailpiece/conformance/vitest";
import type { Clock, JobQueue, LeasedJob, RetryPolicy, Store } from "@mailpiece/ports";
import { manualClock, PortError } from "@mailpiece/ports";
import { createFileStore, createMemoryStore } from "@mailpiece/store-unstorage";
import { afterAll, describe, expect, it } from "vitest";
import { createStoreJobQueue } from "./store-job-queue.ts";

const roots: string[] = [];

async function freshDir(): Promise<string> {
  const root = await mkdtemp(join(tmpdir(), "mailpiece-queue-store-"));
  roots.push(root);
  return join(root, "data");
}

afterAll(async () => {
  for (const root of roots) await rm(root, { recursive: true, force: true });
});

registerSuite(
  jobQueueContract({
    name: "memory",
    async create({ clock }) {
      return createStoreJobQueue({ store: createMemoryStore({ clock }), clock, closeStore: true });
    },
  }),
  {
    // The memory store is neither durable nor shared, so neither is the queue on it.
    notApplicable: [
      "durable: pending, leased and dead jobs survive reopen",
      "shared: among several processes at once, one enqueue wins each key and each job is leased once",
    ],
  },
);

const fileQueues = new WeakMap<JobQueue, { dir: string; clock: Clock }>();

async function openFileQueue(dir: string, clock: Clock): Promise<JobQueue> {
  const queue = createStoreJobQueue({
    store: await createFileStore({ dir, clock }),
    clock,
    closeStore: true,
  });
  fileQueues.set(queue, { dir, clock });
  return queue;
}

registerSuite(
  jobQueueContract({
    name: "file",
    async create({ clock }) {
      return openFileQueue(await freshDir(), clock);
    },
    async reopen(previous) {
      const was = fileQueues.get(previous);
      if (!was) throw new Error("reopen: not a queue of this test file");
      return openFileQueue(was.dir, was.clock);
    },
  }),
  {
    // The file store is durable but held by one process at a time.
    notApplicable: [
      "shared: among several processes at once, one enqueue wins each key and each job is leased once",
    ],
    timeoutMs: 60_000,
  },
);

const Q = "work";
const OWNER = "test-worker";
const DAY = 86_400_000;

/** Wraps a store, counting the calls that read it and those that write it. */
function counting(store: Store) {
  const counts = { reads: 0, writes: 0 };
  const wrapped: Store = {
    name: store.name,
    capabilities: store.capabilities,
    get(key) {
      counts.reads++;
      return store.get(key);
    },
    list(prefix, options) {
      counts.reads++;
      return store.list(prefix, options);
    },
    create(key, value, options) {
      counts.writes++;
      return store.create(key, value, options);
    },
    put(key, value, options) {
      counts.writes++;
      return store.put(key, value, options);
    },
    delete(key, options) {
      counts.writes++;
      return store.delete(key, options);
    },
    close: () => store.close(),
  };
  return { store: wrapped, counts };
}

/**
 * A store whose process is killed after `writes` writes: that write and every call after it fail, and nothing
 * more reaches the store underneath.
 */
function killedAfter(store: Store, writes: number) {
  let done = 0;
  let killed = false;
  const alive = () => {
    if (killed) throw new Error("the process was killed");
  };
  const write = <T>(action: () => Promise<T>): Promise<T> => {
    alive();
    if (done >= writes) {
      killed = true;
      throw new Error("the process was killed");
    }
    done++;
    return action();
  };
  const wrapped: Store = {
    name: store.name,
    capabilities: store.capabilities,
    async get(key) {
      alive();
      return store.get(key);
    },
    async list(prefix, options) {
      alive();
      return store.list(prefix, options);
    },
    async create(key, value, options) {
      return write(() => store.create(key, value, options));
    },
    async put(key, value, options) {
      return write(() => store.put(key, value, options));
    },
    async delete(key, options) {
      return write(() => store.delete(key, options));
    },
    async close() {},
  };
  return { store: wrapped, killed: () => killed };
}

const leaseAll = (queue: JobQueue, leaseMs = 30_000) =>
  queue.lease(Q, { owner: OWNER, limit: 1000, leaseMs });

describe("createStoreJobQueue", () => {
  it("declares the store's capabilities and closes the store only when asked", async () => {
    const memory = createMemoryStore();
    const queue = createStoreJobQueue({ store: memory });
    expect(queue.capabilities).toEqual({ durable: false, shared: false });
    expect(queue.name).toBe("store (memory)");
    await queue.close();
    expect(await memory.get("anything"), "the store is still open").toBeUndefined();
    await expect(queue.enqueue({ queue: Q, key: "k", payload: {} })).rejects.toMatchObject({
      code: "store_unavailable",
    });
    const file = await createFileStore({ dir: await freshDir() });
    const durable = createStoreJobQueue({ store: file, closeStore: true });
    expect(durable.capabilities).toEqual({ durable: true, shared: false });
    await durable.close();
    await expect(file.get("k")).rejects.toMatchObject({ code: "store_unavailable" });
  });

  it("refuses bad numbers and options with a RangeError", async () => {
    const queue = createStoreJobQueue({ store: createMemoryStore(), closeStore: true });
    try {
      for (const options of [
        { owner: OWNER, limit: 0, leaseMs: 1000 },
        { owner: OWNER, limit: 1001, leaseMs: 1000 },
        { owner: OWNER, limit: 1.5, leaseMs: 1000 },
        { owner: OWNER, limit: 1, leaseMs: 0 },
        { owner: OWNER, limit: 1, leaseMs: Number.NaN },
        { owner: "", limit: 1, leaseMs: 1000 },
      ]) {
        await expect(queue.lease(Q, options)).rejects.toBeInstanceOf(RangeError);
      }
      for (const runAt of [-1, Number.NaN, Number.POSITIVE_INFINITY, 1e16]) {
        await expect(queue.enqueue({ queue: Q, key: "k", payload: {}, runAt })).rejects.toBeInstanceOf(
          RangeError,
        );
      }
      expect(await queue.get(Q, "k")).toBeUndefined();
    } finally {
      await queue.close();
    }
    expect(() => createStoreJobQueue({ store: createMemoryStore(), retry: { maxAttempts: 0 } })).toThrow(
      RangeError,
    );
    expect(() => createStoreJobQueue({ store: createMemoryStore(), prefix: "a:b" })).toThrow(RangeError);
  });

  it("a lease round reads the store as often with 10 000 pending jobs not yet due as with 10", async () => {
    const round = async (future: number) => {
      const clock = manualClock();
      const { store, counts } = counting(createMemoryStore({ clock }));
      const queue = createStoreJobQueue({ store, clock, closeStore: true });
      try {
        const later = clock.now() + DAY;
        for (let start = 0; start < future; start += 500) {
          await Promise.all(
            Array.from({ length: Math.min(500, future - start) }, (_, i) =>
              queue.enqueue({
                queue: Q,
                key: `later:${start + i}`,
                payload: { i },
                runAt: later + start + i,
              }),
            ),
          );
        }
        for (let i = 0; i < 10; i++) await queue.enqueue({ queue: Q, key: `now:${i}`, payload: { i } });
        counts.reads = 0;
        counts.writes = 0;
        const leased = await queue.lease(Q, { owner: OWNER, limit: 10, leaseMs: 30_000 });
        expect(leased.map((j) => j.key)).toEqual(Array.from({ length: 10 }, (_, i) => `now:${i}`));
        const full = { ...counts };
        counts.reads = 0;
        counts.writes = 0;
        expect(await queue.lease(Q, { owner: OWNER, limit: 10, leaseMs: 30_000 })).toEqual([]);
        return { full, empty: { ...counts } };
      } finally {
        await queue.close();
      }
    };
    const few = await round(10);
    const many = await round(10_000);
    expect(many).toEqual(few);
    // One page of the index, then one read of each of the ten due jobs; an empty round reads one page.
    expect(few.full.reads).toBe(11);
    expect(few.empty).toEqual({ reads: 1, writes: 0 });
  }, 60_000);

  it("two queues on one store lease each job once between them", async () => {
    const clock = manualClock();
    const store = createMemoryStore({ clock });
    const a = createStoreJobQueue({ store, clock });
    const b = createStoreJobQueue({ store, clock });
    try {
      const enqueued = await Promise.all(
        Array.from({ length: 40 }, (_, i) =>
          (i % 2 ? a : b).enqueue({ queue: Q, key: `k:${i % 20}`, payload: {} }),
        ),
      );
      expect(enqueued.filter((r) => r.created)).toHaveLength(20);
      const seen: string[] = [];
      for (let round = 0; round < 20; round++) {
        const batches = await Promise.all(
          [a, b, a, b].map((q) => q.lease(Q, { owner: OWNER, limit: 3, leaseMs: 1000 })),
        );
        const jobs = batches.flat();
        if (jobs.length === 0) break;
        seen.push(...jobs.map((j) => j.id));
      }
      expect(new Set(seen).size).toBe(seen.length);
      expect(seen).toHaveLength(20);
    } finally {
      await a.close();
      await b.close();
      await store.close();
    }
  });

  it("concurrent lease rounds of one queue pass by the jobs another is taking: no compare-and-set is lost", async () => {
    const clock = manualClock();
    const memory = createMemoryStore({ clock });
    let conflicts = 0;
    const store: Store = {
      ...memory,
      async put(key, value, options) {
        try {
          return await memory.put(key, value, options);
        } catch (error) {
          if (PortError.isInstance(error) && error.code === "version_conflict") conflicts++;
          throw error;
        }
      },
    };
    const queue = createStoreJobQueue({ store, clock, closeStore: true });
    try {
      for (let i = 0; i < 20; i++) await queue.enqueue({ queue: Q, key: `k:${i}`, payload: {} });
      const batches = await Promise.all(
        Array.from({ length: 10 }, (_, i) =>
          queue.lease(Q, { owner: `${OWNER}-${i}`, limit: 2, leaseMs: 1000 + i }),
        ),
      );
      const ids = batches.flat().map((j) => j.id);
      expect(new Set(ids).size).toBe(ids.length);
      expect(ids.length).toBeGreaterThan(0);
      expect(conflicts).toBe(0);
    } finally {
      await queue.close();
    }
  });

  it("a leaser that loses a job to another deletes the entry it wrote for it at once", async () => {
    const clock = manualClock();
    const store = createMemoryStore({ clock });
    // Two queues: the skip of jobs another round of the same queue is taking does not apply between them. Each
    // leaser leases for another time, so a loser's entry is never the winner's.
    const a = createStoreJobQueue({ store, clock });
    const b = createStoreJobQueue({ store, clock });
    try {
      for (let i = 0; i < 30; i++) await a.enqueue({ queue: Q, key: `k:${i}`, payload: {} });
      let leased = 0;
      for (let round = 0; round < 30 && leased < 30; round++) {
        const batches = await Promise.all(
          [a, b, a, b, a, b].map((q, i) =>
            q.lease(Q, { owner: `${OWNER}-${i}`, limit: 2, leaseMs: 60_000 + i }),
          ),
        );
        for (const job of batches.flat()) {
          expect(await (leased % 2 ? a : b).complete(job)).toBe(true);
          leased++;
        }
      }
      expect(leased).toBe(30);
      expect(
        (await store.list("jobs:")).records.map((r) => r.key),
        "no entry is left for a later round",
      ).toEqual([]);
    } finally {
      await a.close();
      await b.close();
      await store.close();
    }
  });

  it("after draining, the index holds no entry: each stale one is deleted by the round that meets it", async () => {
    const clock = manualClock();
    const store = createMemoryStore({ clock });
    const queue = createStoreJobQueue({ store, clock, retry: { maxAttempts: 2 } });
    try {
      for (let i = 0; i < 20; i++) {
        await queue.enqueue({ queue: Q, key: `j:${i}`, payload: {}, runAt: clock.now() + (i % 5) * 1000 });
      }
      await queue.enqueue({ queue: Q, key: "j:0", payload: {}, runAt: clock.now() - 1, moveEarlier: true });
      for (let step = 0; step < 10; step++) {
        clock.advance(1000);
        for (const job of await leaseAll(queue, 1500)) {
          if (step % 3 === 0) await queue.fail(job, { error: "x" });
          else if (step % 3 === 1) await queue.extend(job, 500);
          else await queue.complete(job);
        }
      }
      clock.advance(DAY);
      while ((await leaseAll(queue)).length > 0) {
        clock.advance(DAY);
      }
      const dead = await queue.listDead(Q);
      for (const job of dead.jobs) await queue.discard(job);
      await leaseAll(queue);
      expect((await store.list("jobs:")).records.map((r) => r.key)).toEqual([]);
    } finally {
      await queue.close();
      await store.close();
    }
  });
});

describe("createStoreJobQueue: a crash between any two writes", () => {
  const LEASE_MS = 1000;

  interface Scenario {
    name: string;
    retry?: Partial<RetryPolicy>;
    /** Brings the job `k` to where the change starts, on a healthy queue. */
    setup(queue: JobQueue, clock: ReturnType<typeof manualClock>): Promise<LeasedJob | undefined>;
    /** The change a process is killed in. */
    change(
      queue: JobQueue,
      job: LeasedJob | undefined,
      clock: ReturnType<typeof manualClock>,
    ): Promise<unknown>;
    /** What may become of the job after the crash and a restart. */
    outcomes: Array<"delivered" | "dead" | "absent">;
  }

  const leaseOne = async (queue: JobQueue, leaseMs = LEASE_MS) => {
    const [job] = await queue.lease(Q, { owner: OWNER, limit: 1, leaseMs });
    if (!job) throw new Error("no job was due");
    return job;
  };

  const scenarios: Scenario[] = [
    {
      name: "enqueue",
      setup: async () => undefined,
      change: (queue, _job, clock) =>
        queue.enqueue({ queue: Q, key: "k", payload: {}, runAt: clock.now() + 10 }),
      outcomes: ["delivered", "absent"],
    },
    {
      name: "enqueue with moveEarlier",
      setup: async (queue, clock) => {
        await queue.enqueue({ queue: Q, key: "k", payload: {}, runAt: clock.now() + 10_000 });
        return undefined;
      },
      change: (queue, _job, clock) =>
        queue.enqueue({ queue: Q, key: "k", payload: {}, runAt: clock.now() + 10, moveEarlier: true }),
      outcomes: ["delivered"],
    },
    {
      name: "lease",
      setup: async (queue) => {
        await queue.enqueue({ queue: Q, key: "k", payload: {} });
        return undefined;
      },
      change: (queue) => leaseOne(queue),
      outcomes: ["delivered"],
    },
    {
      name: "lease after the last attempt's lease expired (to dead)",
      retry: { maxAttempts: 1 },
      setup: async (queue, clock) => {
        await queue.enqueue({ queue: Q, key: "k", payload: {} });
        await leaseOne(queue);
        clock.advance(LEASE_MS);
        return undefined;
      },
      change: (queue) => queue.lease(Q, { owner: OWNER, limit: 1, leaseMs: LEASE_MS }),
      outcomes: ["dead"],
    },
    {
      name: "fail",
      setup: async (queue) => {
        await queue.enqueue({ queue: Q, key: "k", payload: {} });
        return leaseOne(queue);
      },
      change: (queue, job, clock) => queue.fail(job as LeasedJob, { error: "x", retryAt: clock.now() + 500 }),
      outcomes: ["delivered"],
    },
    {
      name: "fail of the last attempt (to dead)",
      retry: { maxAttempts: 1 },
      setup: async (queue) => {
        await queue.enqueue({ queue: Q, key: "k", payload: {} });
        return leaseOne(queue);
      },
      change: (queue, job) => queue.fail(job as LeasedJob, { error: "x" }),
      outcomes: ["dead"],
    },
    {
      name: "complete",
      setup: async (queue) => {
        await queue.enqueue({ queue: Q, key: "k", payload: {} });
        return leaseOne(queue);
      },
      change: (queue, job) => queue.complete(job as LeasedJob),
      outcomes: ["delivered", "absent"],
    },
    {
      name: "extend",
      setup: async (queue) => {
        await queue.enqueue({ queue: Q, key: "k", payload: {} });
        return leaseOne(queue);
      },
      change: (queue, job) => queue.extend(job as LeasedJob, 5000),
      outcomes: ["delivered"],
    },
    {
      name: "revive",
      retry: { maxAttempts: 1 },
      setup: async (queue) => {
        await queue.enqueue({ queue: Q, key: "k", payload: {} });
        await queue.fail(await leaseOne(queue), { error: "x" });
        return undefined;
      },
      change: async (queue, _job, clock) => {
        const dead = await queue.get(Q, "k");
        return queue.revive({ queue: Q, key: "k", id: dead?.id ?? "" }, { runAt: clock.now() + 100 });
      },
      outcomes: ["delivered", "dead"],
    },
    {
      name: "discard",
      setup: async (queue) => {
        await queue.enqueue({ queue: Q, key: "k", payload: {}, runAt: Date.UTC(2026, 0, 1) + 100 });
        return undefined;
      },
      change: async (queue) => {
        const job = await queue.get(Q, "k");
        return queue.discard({ queue: Q, key: "k", id: job?.id ?? "" });
      },
      outcomes: ["delivered", "absent"],
    },
  ];

  /**
   * What becomes of `k` on a restarted queue: delivered once when due (and not before), dead and listed, or absent
   * and never delivered. Then checks that the rounds left no index entry behind.
   */
  async function settle(
    queue: JobQueue,
    store: Store,
    clock: ReturnType<typeof manualClock>,
  ): Promise<"delivered" | "dead" | "absent"> {
    const job = await queue.get(Q, "k");
    let outcome: "delivered" | "dead" | "absent";
    if (!job) {
      clock.advance(DAY);
      expect(await leaseAll(queue), "an absent job is never delivered").toEqual([]);
      outcome = "absent";
    } else if (job.state === "dead") {
      clock.advance(DAY);
      expect(await leaseAll(queue), "a dead job is never delivered").toEqual([]);
      outcome = "dead";
    } else {
      const due = job.state === "pending" ? job.runAt : (job.lease?.expiresAt as number);
      if (due > clock.now()) {
        clock.set(due - 1);
        expect(await leaseAll(queue), "the job is not delivered before it is due").toEqual([]);
        clock.set(due);
      }
      const jobs = await leaseAll(queue);
      if (job.state === "leased" && job.attempts >= queue.retry.maxAttempts) {
        expect(jobs).toEqual([]);
        outcome = "dead";
      } else {
        expect(jobs.map((j) => [j.id, j.attempts])).toEqual([[job.id, job.attempts + 1]]);
        expect(await queue.complete(jobs[0] as LeasedJob)).toBe(true);
        outcome = "delivered";
      }
      clock.advance(DAY);
      expect(await leaseAll(queue), "the job is delivered once").toEqual([]);
    }
    const dead = await queue.listDead(Q);
    if (outcome === "dead") {
      expect(dead.jobs.map((j) => j.key)).toEqual(["k"]);
      expect((await queue.get(Q, "k"))?.state).toBe("dead");
      expect((await store.list("jobs:due:")).records, "a dead job has no due entry left").toEqual([]);
      expect((await store.list("jobs:dead:")).records).toHaveLength(1);
    } else {
      expect(dead.jobs).toEqual([]);
      expect(
        (await store.list("jobs:")).records.map((r) => r.key),
        "nothing is left behind",
      ).toEqual([]);
    }
    return outcome;
  }

  for (const scenario of scenarios) {
    it(`in ${scenario.name} leaves a state the next round repairs`, async () => {
      for (let writes = 0; writes < 50; writes++) {
        const clock = manualClock();
        const store = createMemoryStore({ clock });
        const retry = scenario.retry ?? {};
        const healthy = createStoreJobQueue({ store, clock, retry });
        const job = await scenario.setup(healthy, clock);
        const dying = killedAfter(store, writes);
        const doomed = createStoreJobQueue({ store: dying.store, clock, retry });
        let finished = true;
        try {
          await scenario.change(doomed, job, clock);
        } catch (error) {
          if (PortError.isInstance(error)) throw error;
          finished = false;
        }
        const restarted = createStoreJobQueue({ store, clock, retry });
        const outcome = await settle(restarted, store, clock);
        expect(scenario.outcomes, `killed after ${writes} writes`).toContain(outcome);
        await store.close();
        if (finished && !dying.killed()) return;
      }
      throw new Error(`${scenario.name} did not finish within 50 writes`);
    });
  }
});
