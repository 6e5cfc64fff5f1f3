import { randomUUID } from "node:crypto";
import {
  BLOB_STORE_GET_STREAM_TESTS,
  BLOB_STORE_PUT_STREAM_TESTS,
  blobStoreContract,
  type RedisServer,
  startRedisServer,
  storeContract,
} from "@mailpiece/conformance";
import { registerSuite } from "@mailpiece/conformance/vitest";
import type { BlobStore, Clock, Store } from "@mailpiece/ports";
import { manualClock, PortError } from "@mailpiece/ports";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createRedisBlobStore } from "./redis-blob-store.ts";
import { createRedisStore } from "./redis-store.ts";

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

const uniquePrefix = (): string => `test:${randomUUID()}:`;

const stores = new WeakMap<Store, { prefix: string; clock: Clock }>();
registerSuite(
  storeContract({
    name: "redis",
    async create({ clock }) {
      const prefix = uniquePrefix();
      const store = createRedisStore({ url: url(), prefix, clock });
      stores.set(store, { prefix, clock });
      return store;
    },
    async reopen(previous) {
      const opened = stores.get(previous);
      if (!opened) throw new Error("reopen: not a store of this test file");
      const store = createRedisStore({ url: url(), ...opened });
      stores.set(store, opened);
      return store;
    },
    sharedOpening(store) {
      const opened = stores.get(store);
      if (!opened) throw new Error("sharedOpening: not a store of this test file");
      return {
        module: new URL("./redis-store.ts", import.meta.url).href,
        export: "createRedisStore",
        options: { url: url(), prefix: opened.prefix },
      };
    },
  }),
  { timeoutMs: 60_000 },
);

const blobPrefixes = new WeakMap<BlobStore, string>();
registerSuite(
  blobStoreContract({
    name: "redis",
    async create() {
      const prefix = uniquePrefix();
      const blobs = createRedisBlobStore({ url: url(), prefix });
      blobPrefixes.set(blobs, prefix);
      return blobs;
    },
    async reopen(previous) {
      const prefix = blobPrefixes.get(previous);
      if (prefix === undefined) throw new Error("reopen: not a blob store of this test file");
      const blobs = createRedisBlobStore({ url: url(), prefix });
      blobPrefixes.set(blobs, prefix);
      return blobs;
    },
  }),
  { notApplicable: [...BLOB_STORE_PUT_STREAM_TESTS, ...BLOB_STORE_GET_STREAM_TESTS], timeoutMs: 120_000 },
);

describe("createRedisStore", () => {
  it("declares that it is durable and shared", async () => {
    const store = createRedisStore({ url: url(), prefix: uniquePrefix() });
    const blobs = createRedisBlobStore({ url: url(), prefix: uniquePrefix() });
    try {
      expect(store.capabilities).toEqual({ durable: true, shared: true });
      expect(blobs.capabilities).toEqual({ durable: true, shared: true });
    } finally {
      await store.close();
      await blobs.close();
    }
  });

  it("two stores on separate connections: exactly one of 50 concurrent creates wins", async () => {
    const prefix = uniquePrefix();
    const clock = manualClock();
    const a = createRedisStore({ url: url(), prefix, clock });
    const b = createRedisStore({ url: url(), prefix, clock });
    try {
      const results = await Promise.all(
        Array.from({ length: 50 }, (_, i) => (i % 2 === 0 ? a : b).create("claim", { i })),
      );
      const winners = results.filter((r) => r.created);
      expect(winners).toHaveLength(1);
      const winner = winners[0]?.record.value;
      for (const result of results) expect(result.record.value).toEqual(winner);
      expect((await b.get("claim"))?.value).toEqual(winner);
    } finally {
      await a.close();
      await b.close();
    }
  });

  it("two stores on separate connections: exactly one of 50 concurrent compare-and-sets wins", async () => {
    const prefix = uniquePrefix();
    const a = createRedisStore({ url: url(), prefix });
    const b = createRedisStore({ url: url(), prefix });
    try {
      await a.put("race", { writer: -1 });
      const outcomes = await Promise.allSettled(
        Array.from({ length: 50 }, (_, i) => (i % 2 === 0 ? a : b).put("race", { i }, { ifVersion: 1 })),
      );
      const winners = outcomes.filter((o) => o.status === "fulfilled");
      expect(winners).toHaveLength(1);
      for (const outcome of outcomes) {
        if (outcome.status === "rejected") {
          expect(PortError.isInstance(outcome.reason) && outcome.reason.code).toBe("version_conflict");
        }
      }
      const record = await a.get("race");
      expect(record?.version).toBe(2);
      expect(record?.value).toEqual(winners[0]?.status === "fulfilled" ? winners[0].value.value : undefined);
    } finally {
      await a.close();
      await b.close();
    }
  });

  it("sets a Redis expiry on records written with ttlMs, and none on others", async () => {
    const prefix = uniquePrefix();
    const client = new Redis(url());
    const store = createRedisStore({ client, prefix, expiryGraceMs: 0 });
    try {
      await store.put("ttl", "x", { ttlMs: 60_000 });
      await store.put("plain", "y");
      const pttl = await client.pttl(`${prefix}r:ttl`);
      expect(pttl).toBeGreaterThan(50_000);
      expect(pttl).toBeLessThanOrEqual(60_000);
      expect(await client.pttl(`${prefix}r:plain`)).toBe(-1);
      await store.put("ttl", "z");
      expect(await client.pttl(`${prefix}r:ttl`)).toBe(-1);
    } finally {
      await store.close();
      expect(client.status).toBe("ready");
      await client.quit();
    }
  });

  it("drops index entries of records Redis has already removed", async () => {
    const prefix = uniquePrefix();
    const client = new Redis(url());
    const store = createRedisStore({ client, prefix });
    try {
      await store.put("a", 1);
      await store.put("b", 2);
      await client.del(`${prefix}r:a`);
      const page = await store.list("");
      expect(page.records.map((r) => r.key)).toEqual(["b"]);
      expect(await client.zrange(`${prefix}index`, "0", "-1")).toEqual(["b"]);
    } finally {
      await store.close();
      await client.quit();
    }
  });

  it("reports an unreachable server as store_unavailable", async () => {
    const client = new Redis("redis://127.0.0.1:1", { maxRetriesPerRequest: 0, lazyConnect: true });
    client.on("error", () => undefined);
    const quick = createRedisStore({ client, prefix: uniquePrefix() });
    try {
      await expect(quick.get("a")).rejects.toMatchObject({ code: "store_unavailable" });
    } finally {
      await quick.close();
      client.disconnect();
    }
  });
});
