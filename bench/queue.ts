import type { JobQueue, Store } from "../adapters/ports/src/index.ts";
import { createStoreJobQueue } from "../adapters/queue-store/src/index.ts";
import { createMemoryStore } from "../adapters/store-unstorage/src/index.ts";
import { EMBEDDED_STORES, type StoreKind } from "./embedded-stores.ts";
import { median, table } from "./lib.ts";

const SECONDS = Number(process.env.BENCH_SECONDS ?? "3");
/** Pending jobs not yet due in the large case. */
const MANY = 100_000;
const FEW = 10;
/** Lease rounds timed per case; the median is reported. */
const ROUNDS = 30;
const LIMIT = 10;
const CALLERS = 10;
const QUEUE = "bench";
const OWNER = "bench-worker";
const PAYLOAD = { orderId: "o_0000000000", step: "fulfil", attempt: { note: "a payload of a typical job" } };

/** Counts the calls that read a store. */
function counted(store: Store): { store: Store; reads(): number } {
  let reads = 0;
  return {
    reads: () => reads,
    store: {
      name: store.name,
      capabilities: store.capabilities,
      get(key) {
        reads++;
        return store.get(key);
      },
      list(prefix, options) {
        reads++;
        return store.list(prefix, options);
      },
      create: (key, value, options) => store.create(key, value, options),
      put: (key, value, options) => store.put(key, value, options),
      delete: (key, options) => store.delete(key, options),
      close: () => store.close(),
    },
  };
}

/** Enqueues `count` jobs due a day from now or later, `batch` at a time. */
async function enqueueFuture(queue: JobQueue, count: number, batch = 500): Promise<void> {
  const later = Date.now() + 86_400_000;
  for (let start = 0; start < count; start += batch) {
    await Promise.all(
      Array.from({ length: Math.min(batch, count - start) }, (_, i) =>
        queue.enqueue({
          queue: QUEUE,
          key: `later:${start + i}`,
          payload: PAYLOAD,
          runAt: later + start + i,
        }),
      ),
    );
  }
}

/** Copies every record under `prefix` from one store to another with plain puts, `batch` at a time. */
async function copyRecords(from: Store, to: Store, prefix: string, batch = 200): Promise<number> {
  let copied = 0;
  let cursor: string | undefined;
  do {
    const page = await from.list(prefix, cursor === undefined ? { limit: 1000 } : { limit: 1000, cursor });
    for (let start = 0; start < page.records.length; start += batch) {
      await Promise.all(page.records.slice(start, start + batch).map((r) => to.put(r.key, r.value)));
    }
    copied += page.records.length;
    cursor = page.cursor;
  } while (cursor !== undefined);
  return copied;
}

/**
 * Puts `future` pending jobs not yet due on the store: through `enqueue` on the memory store; on the file store,
 * whose writes are each synced to disk, by enqueueing them on a memory store and copying its records.
 */
async function seed(kind: StoreKind, store: Store, future: number): Promise<void> {
  if (kind.name === "memory" || future <= FEW) {
    await enqueueFuture(createStoreJobQueue({ store }), future);
    return;
  }
  const scratch = createMemoryStore();
  await enqueueFuture(createStoreJobQueue({ store: scratch }), future);
  const started = performance.now();
  const copied = await copyRecords(scratch, store, "jobs:");
  process.stderr.write(
    `queue bench: copied ${copied} records of ${future} jobs to the ${kind.name} store in ${((performance.now() - started) / 1000).toFixed(0)} s\n`,
  );
  await scratch.close();
}

interface RoundFigures {
  /** Median ms of a round that finds nothing due. */
  idleMs: number;
  /** Median ms of a round that leases `LIMIT` due jobs. */
  fullMs: number;
  /** Store reads (get and list calls) of one round of each kind. */
  idleReads: number;
  fullReads: number;
}

/** Times lease rounds (limit 10) on a store holding `future` pending jobs not yet due. */
async function leaseRounds(kind: StoreKind, future: number): Promise<RoundFigures> {
  const { store, dispose } = await kind.open();
  try {
    await seed(kind, store, future);
    const counter = counted(store);
    const queue = createStoreJobQueue({ store: counter.store });
    const options = { owner: OWNER, limit: LIMIT, leaseMs: 60_000 };
    const idle: number[] = [];
    const full: number[] = [];
    let idleReads = 0;
    let fullReads = 0;
    for (let round = 0; round < ROUNDS + 3; round++) {
      let before = counter.reads();
      let start = performance.now();
      const none = await queue.lease(QUEUE, options);
      if (none.length !== 0) throw new Error("a job was due in the idle round");
      if (round >= 3) idle.push(performance.now() - start);
      idleReads = counter.reads() - before;

      const now = Date.now();
      await Promise.all(
        Array.from({ length: LIMIT }, (_, i) =>
          queue.enqueue({ queue: QUEUE, key: `due:${round}:${i}`, payload: PAYLOAD, runAt: now - 1 }),
        ),
      );
      before = counter.reads();
      start = performance.now();
      const jobs = await queue.lease(QUEUE, options);
      if (round >= 3) full.push(performance.now() - start);
      fullReads = counter.reads() - before;
      if (jobs.length !== LIMIT) throw new Error(`the full round leased ${jobs.length} jobs, not ${LIMIT}`);
      await Promise.all(jobs.map((job) => queue.complete(job)));
    }
    return { idleMs: median(idle), fullMs: median(full), idleReads, fullReads };
  } finally {
    await dispose();
  }
}

/** Runs `callers` loops of `step` for `seconds`; the number of steps done per second. */
async function rate(seconds: number, callers: number, step: (caller: number, n: number) => Promise<number>) {
  const start = performance.now();
  const deadline = start + seconds * 1000;
  let done = 0;
  await Promise.all(
    Array.from({ length: callers }, async (_, caller) => {
      for (let n = 0; performance.now() < deadline; n++) {
        // Awaited first: `done += await …` would read `done` before the await and lose other callers' steps.
        const steps = await step(caller, n);
        done += steps;
      }
    }),
  );
  return done / ((performance.now() - start) / 1000);
}

/** Raw `store.create` of fresh keys per second: the baseline of the cycles. */
async function rawCreates(kind: StoreKind, callers: number, seconds = SECONDS): Promise<number> {
  const { store, dispose } = await kind.open();
  try {
    return await rate(seconds, callers, async (caller, n) => {
      await store.create(`raw:${caller}:${n}`, PAYLOAD);
      return 1;
    });
  } finally {
    await dispose();
  }
}

/** Jobs per second through enqueue, lease (limit 1) and complete, each caller in a loop. */
async function cycles(kind: StoreKind, callers: number, seconds = SECONDS): Promise<number> {
  const { store, dispose } = await kind.open();
  const queue = createStoreJobQueue({ store });
  try {
    return await rate(seconds, callers, async (caller, n) => {
      await queue.enqueue({ queue: QUEUE, key: `cycle:${caller}:${n}`, payload: PAYLOAD });
      // Another caller may lease this caller's job first: every caller completes whichever job it leased.
      const [job] = await queue.lease(QUEUE, { owner: `${OWNER}-${caller}`, limit: 1, leaseMs: 60_000 });
      if (!job) return 0;
      return (await queue.complete(job)) ? 1 : 0;
    });
  } finally {
    await dispose();
  }
}

/**
 * The queue on the Store port: the time of a lease round (limit 10) with 10 and with 100 000 pending jobs not yet
 * due, as a ratio (the queue reads the same records either way; what grows is the store's own listing), and jobs
 * per second through enqueue + lease + complete against raw `store.create` per second, on the memory store and on
 * the file store, measured in the same run.
 */
export async function benchQueue(): Promise<string> {
  const rounds: (string | number)[][] = [
    [
      "store",
      "pending jobs not due",
      "idle round ms",
      "ratio",
      "full round ms (10 leased)",
      "ratio",
      "store reads idle / full",
    ],
  ];
  for (const kind of EMBEDDED_STORES) {
    const few = await leaseRounds(kind, FEW);
    const many = await leaseRounds(kind, MANY);
    for (const [count, figures] of [
      [FEW, few],
      [MANY, many],
    ] as const) {
      rounds.push([
        kind.name,
        count,
        figures.idleMs.toFixed(3),
        (figures.idleMs / few.idleMs).toFixed(2),
        figures.fullMs.toFixed(3),
        (figures.fullMs / few.fullMs).toFixed(2),
        `${figures.idleReads} / ${figures.fullReads}`,
      ]);
    }
  }

  const throughput: (string | number)[][] = [
    [
      "store",
      "callers",
      "raw creates/s (baseline)",
      "jobs/s: enqueue+lease+complete",
      "ratio to raw creates",
    ],
  ];
  for (const kind of EMBEDDED_STORES) {
    // Warm-up, not counted.
    await rawCreates(kind, 1, 0.3);
    await cycles(kind, 1, 0.3);
    for (const callers of [1, CALLERS]) {
      const raw = await rawCreates(kind, callers);
      const jobs = await cycles(kind, callers);
      throughput.push([kind.name, callers, raw.toFixed(0), jobs.toFixed(0), (jobs / raw).toFixed(3)]);
    }
  }

  return [
    `lease rounds: median of ${ROUNDS}, limit ${LIMIT}; ratio to the same round with ${FEW} pending jobs; ` +
      `the ${MANY} jobs are enqueued on the memory store and copied record by record to the file store`,
    table(rounds),
    "",
    `throughput: ${SECONDS} s a case; each job is one enqueue, one lease (limit 1) and one complete`,
    table(throughput),
  ].join("\n");
}
