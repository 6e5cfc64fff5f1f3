import { storeContract } from "@mailpiece/conformance";
import { registerSuite } from "@mailpiece/conformance/vitest";
import { manualClock } from "@mailpiece/ports";
import type { Storage } from "unstorage";
import { createStorage } from "unstorage";
import { describe, expect, it } from "vitest";
import { createUnstorageStore } from "./unstorage-store.ts";

const capabilities = { durable: false, shared: false };

/** A storage that counts the reads that reach it. */
function counted(): { storage: Storage; reads: () => number } {
  const storage = createStorage();
  let reads = 0;
  const getItemRaw = storage.getItemRaw.bind(storage);
  storage.getItemRaw = ((key: string, options?: unknown) => {
    reads++;
    return getItemRaw(key, options as never);
  }) as Storage["getItemRaw"];
  return { storage, reads: () => reads };
}

function open(cacheBytes: number) {
  const { storage, reads } = counted();
  const clock = manualClock();
  const store = createUnstorageStore({ storage, name: "test", capabilities, clock, cacheBytes });
  return { store, storage, clock, reads };
}

// Answered from memory, the store still keeps every promise of the Store contract.
registerSuite(
  storeContract({
    name: "unstorage with records answered from memory",
    create: async ({ clock }) =>
      createUnstorageStore({
        storage: createStorage(),
        name: "cached",
        capabilities,
        clock,
        cacheBytes: 1 << 20,
      }),
  }),
  {
    notApplicable: [
      "durable: acknowledged writes survive reopen",
      "shared: among several processes at once, one create wins, compare-and-set is exact and no update is lost",
    ],
  },
);

describe("records answered from memory", () => {
  it("reads a record or a missing key once, then answers from memory", async () => {
    const { store, reads } = open(1 << 20);
    await store.put("orders:1", { status: "paid" });
    expect((await store.get("orders:1"))?.value).toEqual({ status: "paid" });
    expect(await store.get("orders:2")).toBeUndefined();
    expect(await store.get("orders:2")).toBeUndefined();
    expect((await store.get("orders:1"))?.value).toEqual({ status: "paid" });
    // put reads once under its lock (to find the version); the gets after it read nothing.
    expect(reads()).toBe(2);
  });

  it("gives every caller its own copy: a changed result does not change the record", async () => {
    const { store } = open(1 << 20);
    await store.put("orders:1", { steps: ["paid"] });
    const first = await store.get<{ steps: string[] }>("orders:1");
    first!.value.steps.push("printed");
    expect((await store.get("orders:1"))?.value).toEqual({ steps: ["paid"] });
  });

  it("follows its own writes and deletes, and expires records by their TTL", async () => {
    const { store, clock } = open(1 << 20);
    await store.create("claims:a", 1, { ttlMs: 1000 });
    await store.put("claims:a", 2, { ifVersion: 1, ttlMs: 1000 });
    expect((await store.get("claims:a"))?.value).toBe(2);
    clock.advance(1001);
    expect(await store.get("claims:a")).toBeUndefined();
    await store.put("orders:1", "x");
    await store.delete("orders:1");
    expect(await store.get("orders:1")).toBeUndefined();
  });

  it("keeps within its budget: past it, the least recently used record is read again", async () => {
    const { store, reads } = open(4096);
    for (let i = 0; i < 40; i++) await store.put(`orders:${i}`, { note: "x".repeat(50) });
    const before = reads();
    await store.get("orders:39");
    expect(reads()).toBe(before);
    await store.get("orders:0");
    expect(reads()).toBe(before + 1);
  });

  it("asks the storage again after a write that failed", async () => {
    const { store, storage, reads } = open(1 << 20);
    await store.put("orders:1", "old");
    const setItemRaw = storage.setItemRaw.bind(storage);
    storage.setItemRaw = (async () => {
      throw new Error("disk full");
    }) as Storage["setItemRaw"];
    await expect(store.put("orders:1", "new")).rejects.toThrow();
    storage.setItemRaw = setItemRaw;
    const before = reads();
    expect((await store.get("orders:1"))?.value).toBe("old");
    expect(reads()).toBe(before + 1);
  });
});

describe("records answered from memory, with reads and writes of one key in flight together", () => {
  /** A memory storage where the next read of `key` after `hold()` waits for `release()` after taking its answer. */
  function gatedRead(key: string) {
    const storage = createStorage();
    let gate: Promise<void> | undefined;
    let release = () => {};
    const getItemRaw = storage.getItemRaw.bind(storage);
    storage.getItemRaw = (async (storageKey: string, options?: unknown) => {
      const held = storageKey === key ? gate : undefined;
      if (held) gate = undefined;
      const answer = await getItemRaw(storageKey, options as never);
      if (held) await held;
      return answer;
    }) as Storage["getItemRaw"];
    return {
      storage,
      hold() {
        gate = new Promise<void>((resolve) => {
          release = resolve;
        });
      },
      release: () => release(),
    };
  }

  it("does not keep what a read saw before a write that finished while the read was in flight", async () => {
    const gated = gatedRead("orders:1");
    const store = createUnstorageStore({
      storage: gated.storage,
      name: "test",
      capabilities,
      clock: manualClock(),
      cacheBytes: 1 << 20,
    });
    gated.hold();
    const stale = store.get("orders:1");
    await store.put("orders:1", "paid");
    gated.release();
    expect(await stale).toBeUndefined();
    expect((await store.get("orders:1"))?.value, "the write is what a later read sees").toBe("paid");
  });
});
