import { randomUUID } from "node:crypto";
import { jobQueueContract, type RedisServer, startRedisServer } from "@mailpiece/conformance";
import { registerSuite } from "@mailpiece/conformance/vitest";
import type { Clock, JobQueue } from "@mailpiece/ports";
import { createRedisStore } from "@mailpiece/store-redis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createStoreJobQueue } from "./store-job-queue.ts";

let server: RedisServer | undefined;

beforeAll(async () => {
  server = await startRedisServer();
}, 20_000);

afterAll(async () => {
  await server?.stop();
});

function url(): string {
  if (!server) throw new Error("redis-server is not running");
  return server.url;
}

const opened = new WeakMap<JobQueue, { prefix: string; clock: Clock }>();

function open(prefix: string, clock: Clock): JobQueue {
  const queue = createStoreJobQueue({
    store: createRedisStore({ url: url(), prefix, clock }),
    clock,
    closeStore: true,
  });
  opened.set(queue, { prefix, clock });
  return queue;
}

registerSuite(
  jobQueueContract({
    name: "redis",
    async create({ clock }) {
      return open(`test:${randomUUID()}:`, clock);
    },
    async reopen(previous) {
      const was = opened.get(previous);
      if (!was) throw new Error("reopen: not a queue of this test file");
      return open(was.prefix, was.clock);
    },
    sharedOpening(queue) {
      const was = opened.get(queue);
      if (!was) throw new Error("sharedOpening: not a queue of this test file");
      return {
        module: new URL("./redis-job-queue.fixture.ts", import.meta.url).href,
        export: "openRedisJobQueue",
        options: { url: url(), prefix: was.prefix },
      };
    },
  }),
  { timeoutMs: 60_000 },
);

describe("createStoreJobQueue on Redis", () => {
  it("declares the store's capabilities: durable and shared", async () => {
    const queue = open(`test:${randomUUID()}:`, { now: () => Date.now() });
    try {
      expect(queue.capabilities).toEqual({ durable: true, shared: true });
      expect(queue.name).toBe("store (redis)");
    } finally {
      await queue.close();
    }
  });
});
