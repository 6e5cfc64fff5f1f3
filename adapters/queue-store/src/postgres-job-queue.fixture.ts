import type { JobQueue, RetryPolicy } from "@mailpiece/ports";
import { createPostgresStore } from "@mailpiece/store-postgres";
import { createStoreJobQueue } from "./store-job-queue.ts";

export interface PostgresJobQueueOptions {
  url: string;
  /** The store's table, so that each test has its own data. */
  tableName: string;
  retry?: Partial<RetryPolicy>;
}

/** A job queue on a Postgres store of its own, as each process of the shared test opens it (system clock). */
export async function openPostgresJobQueue(options: PostgresJobQueueOptions): Promise<JobQueue> {
  const store = await createPostgresStore({ url: options.url, tableName: options.tableName });
  return createStoreJobQueue({ store, closeStore: true, ...(options.retry ? { retry: options.retry } : {}) });
}
