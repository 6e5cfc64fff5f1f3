/**
 * What the shared-queue test asks of each process. Every process runs the same phases at the same time; the suite
 * starts a phase only once every process has finished the one before.
 */

import type { PortOpening } from "../processes/protocol.ts";

/** How another process opens a queue: a module exporting `(options) => JobQueue | Promise<JobQueue>`. */
export type JobQueueOpening = PortOpening;

/** How many processes open the queue besides the suite's own. */
export const SHARED_QUEUE_PROCESSES = 3;

export const SHARED_QUEUE_PLAN = Object.freeze({
  /** The queue every process uses. */
  queue: "contract-shared",
  /** Keys every process enqueues at once: exactly one creator each. */
  keys: 24,
  /** Lease loops each process runs at once while draining the queue. */
  leasers: 2,
  /** Jobs per lease call. */
  limit: 3,
  /** Long enough that no lease expires during the test, on any process's clock. */
  leaseMs: 3_600_000,
});

export const sharedJobKey = (i: number) => `shared:${i}`;

export const SHARED_QUEUE_PHASES = ["enqueue", "drain"] as const;
export type SharedQueuePhase = (typeof SHARED_QUEUE_PHASES)[number];

export interface EnqueuePhaseResult {
  enqueued: Array<{ i: number; created: boolean; id: string }>;
}
export interface DrainPhaseResult {
  /** Every job a lease of this process returned, in order. */
  leased: Array<{ key: string; id: string; attempts: number }>;
  /** What `complete` answered for each of them. */
  completed: boolean[];
}

export interface SharedQueueResults {
  enqueue: EnqueuePhaseResult;
  drain: DrainPhaseResult;
}
