import { mkdir, mkdtemp, rm, unlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import type { Clock, Store } from "@mailpiece/ports";
import { manualClock, PortError } from "@mailpiece/ports";
import type { Storage } from "unstorage";
import { createStorage } from "unstorage";
import { afterAll, beforeEach, describe, expect, it, vi } from "vitest";
import { createFileStore } from "./file-store.ts";
import { keyToPath } from "./fs-key-path.ts";
import { createMemoryStore } from "./memory-store.ts";
import { createUnstorageStore } from "./unstorage-store.ts";

/** Calls that reach the storage under the stores: unstorage's, and the file system's under the file store. */
const calls = vi.hoisted(() => ({ getItemRaw: 0, getKeys: 0, readFile: 0, readdir: 0 }));

vi.mock("unstorage", async (importOriginal) => {
  const actual = await importOriginal<typeof import("unstorage")>();
  const createStorage = ((...args: Parameters<typeof actual.createStorage>) => {
    const storage = actual.createStorage(...args);
    const getItemRaw = storage.getItemRaw.bind(storage);
    const getKeys = storage.getKeys.bind(storage);
    storage.getItemRaw = ((...read: Parameters<Storage["getItemRaw"]>) => {
      calls.getItemRaw++;
      return getItemRaw(...read);
    }) as Storage["getItemRaw"];
    storage.getKeys = ((...list: Parameters<Storage["getKeys"]>) => {
      calls.getKeys++;
      return getKeys(...list);
    }) as Storage["getKeys"];
    return storage;
  }) as typeof actual.createStorage;
  return { ...actual, createStorage };
});

vi.mock("node:fs/promises", async (importOriginal) => {
  const actual = await importOriginal<typeof import("node:fs/promises")>();
  const readFile = ((...args: Parameters<typeof actual.readFile>) => {
    calls.readFile++;
    return actual.readFile(...args);
  }) as typeof actual.readFile;
  const readdir = ((...args: Parameters<typeof actual.readdir>) => {
    calls.readdir++;
    return actual.readdir(...args);
  }) as typeof actual.readdir;
  return { ...actual, readFile, readdir };
});

const resetCalls = () => {
  calls.getItemRaw = 0;
  calls.getKeys = 0;
  calls.readFile = 0;
  calls.readdir = 0;
};

const roots: string[] = [];
async function freshDir(): Promise<string> {
  const root = await mkdtemp(join(tmpdir(), "mailpiece-key-index-"));
  roots.push(root);
  return join(root, "records");
}
afterAll(async () => {
  for (const root of roots) await rm(root, { recursive: true, force: true });
}, 120_000);

const OTHERS = 100_000;
const PAGE = 10;
const pad = (n: number) => String(n).padStart(6, "0");
/** 100 000 keys under other prefixes, half sorting before `m:` and half after, in a scattered order. */
const otherKey = (i: number) => {
  const n = (i * 7919) % OTHERS;
  return n % 2 === 0 ? `a:${pad(n)}` : `z:${pad(n)}`;
};
const pageKeys = Array.from({ length: 25 }, (_, i) => `m:${pad(i)}`);

async function keysOf(store: Store, prefix: string, limit = 7): Promise<string[]> {
  const keys: string[] = [];
  let cursor: string | undefined;
  do {
    const page = await store.list(prefix, cursor === undefined ? { limit } : { limit, cursor });
    keys.push(...page.records.map((r) => r.key));
    cursor = page.cursor;
  } while (cursor !== undefined);
  return keys;
}

/** Lets background work that waits on nothing but the memory storage settle. */
const settle = async () => {
  for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
};

describe("list on the memory store reads only the page's records", () => {
  it("pages through 25 keys among 100 000 others: 10 record reads a page, no key scans", async () => {
    const store = createMemoryStore();
    for (let start = 0; start < OTHERS; start += 1000) {
      await Promise.all(Array.from({ length: 1000 }, (_, i) => store.put(otherKey(start + i), { i })));
    }
    for (const key of [...pageKeys].reverse()) await store.put(key, key);
    resetCalls();
    const first = await store.list("m:", { limit: PAGE });
    expect(first.records.map((r) => r.key)).toEqual(pageKeys.slice(0, PAGE));
    expect(first.cursor).toBe("m:000009");
    expect(calls).toEqual({ getItemRaw: PAGE, getKeys: 0, readFile: 0, readdir: 0 });

    resetCalls();
    const second = await store.list("m:", { limit: PAGE, cursor: first.cursor });
    const third = await store.list("m:", { limit: PAGE, cursor: second.cursor });
    expect([...second.records, ...third.records].map((r) => r.key)).toEqual(pageKeys.slice(PAGE));
    expect(third.cursor).toBeUndefined();
    expect(calls.getItemRaw).toBe(pageKeys.length - PAGE);
    expect(calls.getKeys).toBe(0);

    resetCalls();
    const everything = await store.list("", { limit: PAGE, cursor: "m:000024" });
    expect(everything.records.map((r) => r.key)).toEqual(
      Array.from({ length: PAGE }, (_, i) => `z:${pad(2 * i + 1)}`),
    );
    expect(calls.getItemRaw).toBe(PAGE);
    await store.close();
  }, 120_000);
});

describe("list on the file store reads only the page's records", () => {
  it("opens on 100 000 other records listing their keys once, then reads 10 files a page", async () => {
    const dir = await freshDir();
    const envelope = (value: unknown) => JSON.stringify({ v: 1, updatedAt: 1, value });
    // The records are written as the store would leave them, without its fsyncs, to keep the test quick.
    const write = async (key: string, value: unknown) => {
      const file = join(dir, ...keyToPath(key));
      await writeFile(file, envelope(value));
    };
    for (const key of ["a:x", "m:x", "z:x"])
      await mkdir(dirname(join(dir, ...keyToPath(key))), { recursive: true });
    for (let start = 0; start < OTHERS; start += 1000) {
      await Promise.all(Array.from({ length: 1000 }, (_, i) => write(otherKey(start + i), { i })));
    }
    for (const key of pageKeys) await write(key, key);

    resetCalls();
    const store = await createFileStore({ dir });
    // Opening lists the keys once (besides the walk that removes leftover temporary files) and reads no record.
    expect(calls.getKeys).toBe(1);
    expect(calls.readFile).toBe(0);

    resetCalls();
    const first = await store.list("m:", { limit: PAGE });
    expect(first.records.map((r) => r.key)).toEqual(pageKeys.slice(0, PAGE));
    expect(calls).toEqual({ getItemRaw: PAGE, getKeys: 0, readFile: PAGE, readdir: 0 });

    resetCalls();
    const rest = await keysOf(store, "m:", PAGE);
    expect(rest).toEqual(pageKeys);
    expect(calls.getKeys).toBe(0);
    expect(calls.readdir).toBe(0);
    expect(calls.readFile, "the first page's records are answered from memory now").toBe(
      pageKeys.length - PAGE,
    );
    await store.close();
    await rm(dir, { recursive: true, force: true });
  }, 300_000);
});

/** The same operations on an indexed store and on one that scans the storage's keys, which must agree. */
function scanning(clock: Clock): Store {
  return createUnstorageStore({
    storage: createStorage(),
    name: "scanning",
    capabilities: { durable: false, shared: false },
    clock,
  });
}

type ManualClock = ReturnType<typeof manualClock>;

/** A small deterministic generator, so a failure repeats. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

async function expectSameListings(indexed: Store, reference: Store, next: () => number, label: string) {
  for (const prefix of ["", "o:", "o:1", "t:", "c:", "zz"]) {
    const limit = 1 + Math.floor(next() * 12);
    expect(await keysOf(indexed, prefix, limit), `${label}: list(${JSON.stringify(prefix)})`).toEqual(
      await keysOf(reference, prefix, limit),
    );
  }
}

/**
 * Random puts, creates (some concurrent on one key), deletes, TTLs and clock moves, applied to `indexed` and to a
 * scanning store alike; `reopen` replaces the indexed store now and then.
 */
async function agreeWithScanning(
  open: (clock: ManualClock) => Promise<Store>,
  reopen?: (store: Store, clock: ManualClock) => Promise<Store>,
): Promise<void> {
  const clock = manualClock();
  const next = random(42);
  let indexed = await open(clock);
  const reference = scanning(clock);
  const key = () => {
    const space = ["o:", "o:1", "t:", "c:"][Math.floor(next() * 4)];
    return `${space}${Math.floor(next() * 40)}`;
  };
  for (let round = 0; round < 30; round++) {
    // A batch of concurrent writes to distinct keys, then the same on the reference.
    const batch = new Map<string, (store: Store) => Promise<unknown>>();
    for (let i = 0; i < 12; i++) {
      const target = key();
      const ttlMs = next() < 0.3 ? 1 + Math.floor(next() * 3000) : undefined;
      const options = ttlMs === undefined ? {} : { ttlMs };
      const choice = next();
      const value = { round, i };
      if (choice < 0.4) batch.set(target, (s) => s.put(target, value, options));
      else if (choice < 0.7) batch.set(target, (s) => s.create(target, value, options));
      else batch.set(target, (s) => s.delete(target));
    }
    await Promise.all([...batch.values()].map((op) => op(indexed)));
    await Promise.all([...batch.values()].map((op) => op(reference)));
    // Concurrent creates of one key: one of them creates it, on either store.
    const contested = `c:race-${round % 5}`;
    const [mine, theirs] = await Promise.all([
      Promise.all(Array.from({ length: 8 }, (_, i) => indexed.create(contested, i, { ttlMs: 2000 }))),
      Promise.all(Array.from({ length: 8 }, (_, i) => reference.create(contested, i, { ttlMs: 2000 }))),
    ]);
    expect(mine.filter((r) => r.created).length).toBe(theirs.filter((r) => r.created).length);
    clock.advance(Math.floor(next() * 800));
    await expectSameListings(indexed, reference, next, `round ${round}`);
    if (reopen && round % 7 === 6) {
      indexed = await reopen(indexed, clock);
      await expectSameListings(indexed, reference, next, `round ${round}, reopened`);
    }
  }
  await indexed.close();
  await reference.close();
}

describe("the key index stays right", () => {
  beforeEach(resetCalls);

  it("on the memory store, through writes, deletes, TTL expiry and concurrent creates", async () => {
    await agreeWithScanning(async (clock) => createMemoryStore({ clock }));
  });

  it("on the file store, through the same and through reopening", async () => {
    const dir = await freshDir();
    await agreeWithScanning(
      (clock) => createFileStore({ dir, clock }),
      async (store, clock) => {
        await store.close();
        return createFileStore({ dir, clock });
      },
    );
  }, 120_000);

  it("is rebuilt from the files at open: records added or removed while closed are listed as they are", async () => {
    const dir = await freshDir();
    const first = await createFileStore({ dir });
    for (const key of ["o:1", "o:2", "o:3"]) await first.put(key, key);
    await first.close();
    await unlink(join(dir, ...keyToPath("o:2")));
    await writeFile(join(dir, ...keyToPath("o:4")), JSON.stringify({ v: 3, updatedAt: 1, value: "o:4" }));
    const second = await createFileStore({ dir });
    expect(await keysOf(second, "o:")).toEqual(["o:1", "o:3", "o:4"]);
    expect((await second.get("o:4"))?.version).toBe(3);
    await second.close();
  });

  it("lists each key present for a whole listing once while creates and deletes run during it", async () => {
    const store = createMemoryStore();
    const stay = Array.from({ length: 300 }, (_, i) => `s:${pad(i * 2)}`);
    const leave = Array.from({ length: 100 }, (_, i) => `s:${pad(i * 6 + 1)}`);
    for (const key of [...stay, ...leave]) await store.put(key, key);
    // One listing of up to 1000 reads in several batches; writes land between them.
    const listing = store.list("s:", { limit: 1000 });
    const writes = [
      ...Array.from({ length: 200 }, (_, i) => store.create(`s:${pad(i * 3 + 1)}x`, "new")),
      ...leave.map((key) => store.delete(key)),
    ];
    const [page] = await Promise.all([listing, ...writes]);
    const seen = page.records.map((r) => r.key);
    expect(seen, "in ascending key order, each key once").toEqual([...new Set(seen)].sort());
    for (const key of stay) expect(seen, key).toContain(key);
    expect(page.cursor).toBeUndefined();
    expect(await keysOf(store, "s:", 1000)).toEqual(
      [...stay, ...Array.from({ length: 200 }, (_, i) => `s:${pad(i * 3 + 1)}x`)].sort(),
    );
    await store.close();
  });

  it("skips, then forgets, a key whose write failed", async () => {
    const storage = createStorage();
    const setItemRaw = storage.setItemRaw.bind(storage);
    storage.setItemRaw = (async () => {
      throw new Error("disk full");
    }) as Storage["setItemRaw"];
    const store = createUnstorageStore({
      storage,
      name: "test",
      capabilities: { durable: false, shared: false },
      indexKeys: true,
    });
    await expect(store.put("o:lost", 1)).rejects.toThrow(PortError);
    storage.setItemRaw = setItemRaw;
    await store.put("o:kept", 2);
    resetCalls();
    expect(await keysOf(store, "o:"), "the listing finds no record under the lost key").toEqual(["o:kept"]);
    expect(calls.getItemRaw).toBeGreaterThanOrEqual(2);
    await settle();
    resetCalls();
    expect(await keysOf(store, "o:")).toEqual(["o:kept"]);
    expect(calls.getItemRaw, "the lost key is no longer in the index").toBe(1);
    await store.close();
  });

  it("reads the keys of a storage that already holds records once, before the first call", async () => {
    const storage = createStorage();
    const writer = createUnstorageStore({
      storage,
      name: "writer",
      capabilities: { durable: false, shared: false },
      disposeStorage: false,
    });
    for (const key of ["o:2", "o:1", "p:1"]) await writer.put(key, key);
    await writer.close();
    const getKeys = storage.getKeys.bind(storage);
    let failures = 1;
    storage.getKeys = ((...args: Parameters<Storage["getKeys"]>) => {
      if (failures-- > 0) return Promise.reject(new Error("not yet"));
      return getKeys(...args);
    }) as Storage["getKeys"];
    const store = createUnstorageStore({
      storage,
      name: "test",
      capabilities: { durable: false, shared: false },
      indexKeys: true,
    });
    const failed = await store.list("o:").catch((error: unknown) => error);
    expect(PortError.isInstance(failed) && failed.code).toBe("store_unavailable");
    resetCalls();
    await Promise.all([store.put("o:3", 3), store.list("p:")]);
    expect(await keysOf(store, "o:")).toEqual(["o:1", "o:2", "o:3"]);
    expect(calls.getKeys, "the keys were read once, by the call after the failed one").toBe(1);
    await store.close();
  });
});
