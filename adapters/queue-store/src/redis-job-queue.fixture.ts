import type { JobQueue, RetryPolicy } from "@mailpiece/ports";
import { createRedisStore } from "@mailpiece/store-redis";
import { createStoreJobQueue } from "./store-job-queue.ts";

export interface RedisJobQueueOptions {
  url: string;
  /** The Redis key prefix of the store, so that each test has its own data. */
  prefix: string;
  retry?: Partial<RetryPolicy>;
}

/** A job queue on a Redis store of its own, as each process of the shared test opens it (system clock). */
export function openRedisJobQueue(options: RedisJobQueueOptions): JobQueue {
  const store = createRedisStore({ url: options.url, prefix: options.prefix });
  return createStoreJobQueue({ store, closeStore: true, ...(options.retry ? { retry: options.retry } : {}) });
}
