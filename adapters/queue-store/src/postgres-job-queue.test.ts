import { randomUUID } from "node:crypto";
import { jobQueueContract, type PostgresServer, startPostgres } from "@mailpiece/conformance";
import { registerSuite } from "@mailpiece/conformance/vitest";
import type { Clock, JobQueue } from "@mailpiece/ports";
import { createPostgresStore } from "@mailpiece/store-postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createStoreJobQueue } from "./store-job-queue.ts";

let server: PostgresServer | undefined;

beforeAll(async () => {
  server = await startPostgres();
}, 120_000);

afterAll(async () => {
  await server?.stop();
});

function url(): string {
  if (!server) throw new Error("postgres is not running");
  return server.url;
}

const opened = new WeakMap<JobQueue, { tableName: string; clock: Clock }>();

async function open(tableName: string, clock: Clock): Promise<JobQueue> {
  const queue = createStoreJobQueue({
    store: await createPostgresStore({ url: url(), tableName, clock }),
    clock,
    closeStore: true,
  });
  opened.set(queue, { tableName, clock });
  return queue;
}

const uniqueTable = () => `q_${randomUUID().replaceAll("-", "")}`;

// The queue for several processes on PostgreSQL: the embedded queue on the Postgres store, whose create and
// compare-and-set are single statements, so leases stay exclusive across processes.
registerSuite(
  jobQueueContract({
    name: "postgres",
    async create({ clock }) {
      return open(uniqueTable(), clock);
    },
    async reopen(previous) {
      const was = opened.get(previous);
      if (!was) throw new Error("reopen: not a queue of this test file");
      return open(was.tableName, was.clock);
    },
    sharedOpening(queue) {
      const was = opened.get(queue);
      if (!was) throw new Error("sharedOpening: not a queue of this test file");
      return {
        module: new URL("./postgres-job-queue.fixture.ts", import.meta.url).href,
        export: "openPostgresJobQueue",
        options: { url: url(), tableName: was.tableName },
      };
    },
  }),
  { timeoutMs: 120_000 },
);

describe("createStoreJobQueue on PostgreSQL", () => {
  it("declares the store's capabilities: durable and shared", async () => {
    const queue = await open(uniqueTable(), { now: () => Date.now() });
    try {
      expect(queue.capabilities).toEqual({ durable: true, shared: true });
      expect(queue.name).toBe("store (postgres)");
    } finally {
      await queue.close();
    }
  });
});
