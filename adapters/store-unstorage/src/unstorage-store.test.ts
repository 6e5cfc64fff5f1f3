import type { PortErrorCode } from "@mailpiece/ports";
import { manualClock, PortError } from "@mailpiece/ports";
import type { Driver } from "unstorage";
import { createStorage, prefixStorage } from "unstorage";
import { describe, expect, it } from "vitest";
import { toStorageKey } from "./storage-key.ts";
import { createUnstorageStore } from "./unstorage-store.ts";

const capabilities = { durable: false, shared: false };

function open(storage = createStorage(), clock = manualClock()) {
  const store = createUnstorageStore({ storage, name: "test", capabilities, clock, disposeStorage: false });
  return { store, storage, clock };
}

async function codeOf(promise: Promise<unknown>): Promise<PortErrorCode | string> {
  return promise.then(
    () => "resolved",
    (error: unknown) => (PortError.isInstance(error) ? error.code : String(error)),
  );
}

describe("createUnstorageStore", () => {
  it("keeps each record as a JSON envelope {v, updatedAt, expiresAt?, value}", async () => {
    const { store, storage, clock } = open();
    await store.put("orders:1", { status: "paid" }, { ttlMs: 60_000 });
    await store.put("orders:1", { status: "printed" });
    expect(JSON.parse((await storage.getItemRaw("orders:1")) as string)).toEqual({
      v: 2,
      updatedAt: clock.now(),
      value: { status: "printed" },
    });
    await store.create("claims::x", "c", { ttlMs: 5 });
    expect(JSON.parse((await storage.getItemRaw(toStorageKey("claims::x"))) as string)).toEqual({
      v: 1,
      updatedAt: clock.now(),
      expiresAt: clock.now() + 5,
      value: "c",
    });
  });

  it("removes an expired record from the storage once it is read", async () => {
    const { store, storage, clock } = open();
    await store.put("quote:1", "q", { ttlMs: 100 });
    await store.put("quote:2", "q", { ttlMs: 100 });
    clock.advance(100);
    expect(await store.get("quote:1")).toBeUndefined();
    expect((await store.list("quote:")).records).toEqual([]);
    await store.close();
    expect(await storage.getKeys()).toEqual([]);
  });

  it("does not make writes to one key wait for a slow write to another", async () => {
    const memory = createStorage();
    let releaseSlow!: () => void;
    const slowGate = new Promise<void>((resolve) => {
      releaseSlow = resolve;
    });
    const base = memory.getMount("").driver;
    const gated: Driver = {
      ...base,
      async setItemRaw(key, value, opts) {
        if (key === "slow") await slowGate;
        return base.setItemRaw?.(key, value, opts);
      },
    };
    const { store } = open(createStorage({ driver: gated }));
    const slow = store.put("slow", 1);
    expect((await store.put("fast", 2)).version).toBe(1);
    expect((await store.create("fast:other", 3)).created).toBe(true);
    releaseSlow();
    expect((await slow).version).toBe(1);
  });

  it("clamps limit to 1000 and returns a cursor for the rest", async () => {
    const { store } = open();
    for (let i = 0; i < 1002; i++) await store.put(`n:${String(i).padStart(4, "0")}`, i);
    const page = await store.list("n:", { limit: 5000 });
    expect(page.records).toHaveLength(1000);
    expect(page.cursor).toBe("n:0999");
    const rest = await store.list("n:", { limit: 5000, cursor: page.cursor });
    expect(rest.records.map((r) => r.value)).toEqual([1000, 1001]);
    expect(rest.cursor).toBeUndefined();
  });

  it("refuses a prefix or a cursor no key could match", async () => {
    const { store } = open();
    expect(await codeOf(store.list("a/b"))).toBe("invalid_key");
    expect(await codeOf(store.list("a b"))).toBe("invalid_key");
    expect(await codeOf(store.list("a", { cursor: "../x" }))).toBe("invalid_key");
  });

  it("refuses a ttlMs that is not a finite number of milliseconds", async () => {
    const { store } = open();
    for (const ttlMs of [-1, Number.NaN, Number.POSITIVE_INFINITY]) {
      await expect(store.put("k", 1, { ttlMs })).rejects.toThrow(RangeError);
    }
    expect(await store.get("k")).toBeUndefined();
  });

  it("ignores items under the storage it did not write", async () => {
    const { store, storage } = open();
    await storage.setItem("~stray", "x");
    await storage.setItem("a:~b", "x");
    await store.put("a:b", 1);
    expect((await store.list("")).records.map((r) => r.key)).toEqual(["a:b"]);
  });

  it("reports an unreadable record and a failing storage as store_unavailable", async () => {
    const { store, storage } = open();
    await storage.setItemRaw("broken", "{not json");
    await storage.setItemRaw("wrong", JSON.stringify({ v: "one", value: 1 }));
    expect(await codeOf(store.get("broken"))).toBe("store_unavailable");
    expect(await codeOf(store.put("wrong", 2))).toBe("store_unavailable");
    const failing: Driver = {
      hasItem: () => false,
      getItem: () => null,
      getItemRaw: () => Promise.reject(new Error("disk on fire")),
      getKeys: () => [],
    };
    const broken = open(createStorage({ driver: failing })).store;
    const error = await broken.get("k").catch((e: unknown) => e);
    expect(PortError.isInstance(error) && error.code).toBe("store_unavailable");
    expect((error as Error).message).toBe('[mailpiece] [test-store] could not read "k": disk on fire');
  });

  it("works under a prefixStorage, beside other data", async () => {
    const shared = createStorage();
    await shared.setItem("cache:x", "other data");
    const { store } = open(prefixStorage(shared, "records"));
    await store.put("orders:1", { n: 1 });
    expect((await store.list("")).records.map((r) => r.key)).toEqual(["orders:1"]);
    expect((await shared.getKeys()).sort()).toEqual(["cache:x", "records:orders:1"]);
  });
});
