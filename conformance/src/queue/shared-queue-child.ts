/**
 * One of the processes of the shared-queue test: opens the queue as the adapter's test says, runs each phase the
 * suite asks for and reports what every call returned. Run by the suite with `node --import tsx`, an IPC channel
 * open; exits when the channel closes.
 */
import { pathToFileURL } from "node:url";
import type { JobQueue } from "@mailpiece/ports";
import {
  type DrainPhaseResult,
  type EnqueuePhaseResult,
  type FromQueueProcess,
  SHARED_QUEUE_PLAN,
  type SharedQueuePhase,
  type SharedQueueResults,
  sharedJobKey,
  type ToQueueProcess,
} from "./shared-queue-plan.ts";

const range = (n: number) => Array.from({ length: n }, (_, i) => i);

const phases: {
  [P in SharedQueuePhase]: (queue: JobQueue, worker: number) => Promise<SharedQueueResults[P]>;
} = {
  async enqueue(queue, worker): Promise<EnqueuePhaseResult> {
    const enqueued = await Promise.all(
      range(SHARED_QUEUE_PLAN.keys).map(async (i) => {
        const result = await queue.enqueue({
          queue: SHARED_QUEUE_PLAN.queue,
          key: sharedJobKey(i),
          payload: { worker, i },
          // Due on every process's clock.
          runAt: 0,
        });
        return { i, created: result.created, id: result.id };
      }),
    );
    return { enqueued };
  },

  async drain(queue, worker): Promise<DrainPhaseResult> {
    const leased: DrainPhaseResult["leased"] = [];
    const completed: boolean[] = [];
    await Promise.all(
      range(SHARED_QUEUE_PLAN.leasers).map(async (loop) => {
        for (let rounds = 0; rounds < 10_000; rounds++) {
          const jobs = await queue.lease(SHARED_QUEUE_PLAN.queue, {
            owner: `process-${worker}-${loop}`,
            limit: SHARED_QUEUE_PLAN.limit,
            leaseMs: SHARED_QUEUE_PLAN.leaseMs,
          });
          // No lease expires during the test: an empty round means every job is leased or complete.
          if (jobs.length === 0) return;
          for (const job of jobs) {
            leased.push({ key: job.key, id: job.id, attempts: job.attempts });
            completed.push(await queue.complete(job));
          }
        }
        throw new Error("the queue did not drain after 10000 lease rounds");
      }),
    );
    return { leased, completed };
  },
};

let queue: JobQueue | undefined;
let worker = -1;

function send(message: FromQueueProcess): Promise<void> {
  return new Promise((resolve, reject) => {
    if (!process.send) {
      reject(new Error("this process has no IPC channel: the shared-queue test starts it"));
      return;
    }
    process.send(message, undefined, {}, (error) => (error ? reject(error) : resolve()));
  });
}

async function handle(message: ToQueueProcess): Promise<void> {
  switch (message.type) {
    case "open": {
      worker = message.worker;
      const { module, export: name, options } = message.opening;
      const url = module.startsWith("file:") ? module : pathToFileURL(module).href;
      const loaded = (await import(url)) as Record<string, unknown>;
      const open = loaded[name];
      if (typeof open !== "function") throw new Error(`${module} exports no function ${name}`);
      queue = (await open(options)) as JobQueue;
      await send({ type: "ready" });
      return;
    }
    case "phase": {
      if (!queue) throw new Error("a phase was asked for before the queue was opened");
      const run = phases[message.phase] as (queue: JobQueue, worker: number) => Promise<unknown>;
      await send({ type: "done", phase: message.phase, result: await run(queue, worker) });
      return;
    }
    case "close": {
      await queue?.close();
      queue = undefined;
      await send({ type: "closed" });
      process.disconnect();
      return;
    }
  }
}

function describe(error: unknown): string {
  if (error instanceof Error) {
    const code = (error as { code?: unknown }).code;
    return `${error.name}${typeof code === "string" ? ` (${code})` : ""}: ${error.message}`;
  }
  return String(error);
}

let chain: Promise<void> = Promise.resolve();
process.on("message", (message: ToQueueProcess) => {
  chain = chain
    .then(() => handle(message))
    .catch((error: unknown) => send({ type: "failed", message: describe(error) }).catch(() => undefined));
});
process.on("disconnect", () => process.exit(0));
