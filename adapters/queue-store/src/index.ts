export type { StoreJobQueueOptions } from "./store-job-queue.ts";
export { createStoreJobQueue } from "./store-job-queue.ts";
