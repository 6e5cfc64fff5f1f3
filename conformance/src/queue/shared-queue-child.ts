/**
 * One of the processes of the shared-queue test: runs each phase the suite asks for on the queue the adapter's test
 * opens, and reports what every call returned.
 */
import type { JobQueue } from "@mailpiece/ports";
import { servePortPhases } from "../processes/port-child.ts";
import {
  type DrainPhaseResult,
  type EnqueuePhaseResult,
  SHARED_QUEUE_PLAN,
  type SharedQueuePhase,
  type SharedQueueResults,
  sharedJobKey,
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

servePortPhases<JobQueue, SharedQueuePhase>("queue", phases);
