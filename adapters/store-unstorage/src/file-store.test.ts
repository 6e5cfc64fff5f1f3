import { spawn } from "node:child_process";
import { mkdir, mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  BLOB_STORE_GET_STREAM_TESTS,
  BLOB_STORE_PUT_STREAM_TESTS,
  blobStoreContract,
  storeContract,
} from "@mailpiece/conformance";
import { registerSuite } from "@mailpiece/conformance/vitest";
import type { BlobStore, Clock, Store } from "@mailpiece/ports";
import { PortError } from "@mailpiece/ports";
import { afterAll, describe, expect, it } from "vitest";
import { startCrashChild } from "./crash-child.fixture.ts";
import { LOCK_FILE } from "./dir-lock.ts";
import { createFileBlobStore, createFileStore } from "./file-store.ts";

const roots: string[] = [];

async function freshDir(): Promise<string> {
  const root = await mkdtemp(join(tmpdir(), "mailpiece-file-store-"));
  roots.push(root);
  return join(root, "data");
}

afterAll(async () => {
  for (const root of roots) await rm(root, { recursive: true, force: true });
});

const storeDirs = new WeakMap<Store, { dir: string; clock: Clock }>();
registerSuite(
  storeContract({
    name: "file",
    async create({ clock }) {
      const dir = await freshDir();
      const store = await createFileStore({ dir, clock });
      storeDirs.set(store, { dir, clock });
      return store;
    },
    async reopen(previous) {
      const opened = storeDirs.get(previous);
      if (!opened) throw new Error("reopen: not a store of this test file");
      const store = await createFileStore(opened);
      storeDirs.set(store, opened);
      return store;
    },
  }),
  {
    // One process at a time holds the folder's lock: the store is not shared.
    notApplicable: [
      "shared: among several processes at once, one create wins, compare-and-set is exact and no update is lost",
    ],
    timeoutMs: 60_000,
  },
);

const blobDirs = new WeakMap<BlobStore, string>();
registerSuite(
  blobStoreContract({
    name: "file",
    async create() {
      const dir = await freshDir();
      const blobs = await createFileBlobStore({ dir });
      blobDirs.set(blobs, dir);
      return blobs;
    },
    async reopen(previous) {
      const dir = blobDirs.get(previous);
      if (!dir) throw new Error("reopen: not a blob store of this test file");
      const blobs = await createFileBlobStore({ dir });
      blobDirs.set(blobs, dir);
      return blobs;
    },
  }),
  { notApplicable: [...BLOB_STORE_PUT_STREAM_TESTS, ...BLOB_STORE_GET_STREAM_TESTS], timeoutMs: 60_000 },
);

async function expectUnavailable(open: Promise<unknown>, pattern: RegExp): Promise<void> {
  const error = await open.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(PortError.isInstance(error), `expected a PortError, got ${String(error)}`).toBe(true);
  expect((error as PortError).code).toBe("store_unavailable");
  expect((error as PortError).message).toMatch(pattern);
}

/** A pid that belonged to a process which has ended (and been reaped). */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ["-e", ""], { stdio: "ignore" });
  const pid = child.pid;
  await new Promise((resolve) => child.on("close", resolve));
  if (pid === undefined) throw new Error("no pid");
  return pid;
}

describe("createFileStore", () => {
  it("declares durable: true, shared: false", async () => {
    const store = await createFileStore({ dir: await freshDir() });
    const blobs = await createFileBlobStore({ dir: await freshDir() });
    expect(store.capabilities).toEqual({ durable: true, shared: false });
    expect(blobs.capabilities).toEqual({ durable: true, shared: false });
    expect(store.name).toBe("file");
    await store.close();
    await blobs.close();
  });

  it("refuses a second open of the directory while the first holds it, and allows it after close", async () => {
    const dir = await freshDir();
    const first = await createFileStore({ dir });
    await first.put("k", 1);
    await expectUnavailable(createFileStore({ dir }), /already open in this process/);
    await expectUnavailable(createFileBlobStore({ dir }), /DATA_DIR/);
    expect((await first.get("k"))?.value, "the failed open disturbed nothing").toBe(1);
    await first.close();
    await expect(stat(join(dir, LOCK_FILE))).rejects.toThrow();
    const second = await createFileStore({ dir });
    expect((await second.get("k"))?.value).toBe(1);
    await second.close();
  });

  it("refuses a directory another live process holds, then takes it over once that process is killed", async () => {
    const dir = await freshDir();
    const holder = startCrashChild(["hold", dir]);
    try {
      await holder.ready;
      const lock = await readFile(join(dir, LOCK_FILE), "utf8");
      expect(lock.split(" ")[0], "the lock file holds the holder's pid").toBe(String(holder.process.pid));
      await expectUnavailable(
        createFileStore({ dir }),
        new RegExp(`another process \\(pid ${holder.process.pid}\\) holds .*DATA_DIR`),
      );
    } finally {
      holder.process.kill("SIGKILL");
      await holder.ended;
    }
    const store = await createFileStore({ dir });
    expect(await readFile(join(dir, LOCK_FILE), "utf8")).toMatch(new RegExp(`^${process.pid} `));
    await store.close();
  });

  it("takes over a stale lock: a dead pid, an unreadable lock, or this pid from an earlier process", async () => {
    for (const content of [
      `${await deadPid()} 0011aabb\n`,
      `${await deadPid()}\n`,
      "",
      "garbage",
      `${process.pid} 00ff\n`,
    ]) {
      const dir = await freshDir();
      await mkdir(dir, { recursive: true });
      await writeFile(join(dir, LOCK_FILE), content);
      const store = await createFileStore({ dir });
      await store.put("k", "v");
      await store.close();
      await expect(
        stat(join(dir, LOCK_FILE)),
        `lock ${JSON.stringify(content)} is released`,
      ).rejects.toThrow();
    }
  });

  it("refuses a lock naming a live process even without its token", async () => {
    const dir = await freshDir();
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, LOCK_FILE), `${process.ppid}\n`);
    await expectUnavailable(createFileStore({ dir }), /another process/);
    expect(await readFile(join(dir, LOCK_FILE), "utf8"), "the holder's lock is left alone").toBe(
      `${process.ppid}\n`,
    );
  });

  it("refuses calls once closed, with store_unavailable", async () => {
    const store = await createFileStore({ dir: await freshDir() });
    await store.close();
    await store.close();
    await expectUnavailable(store.get("k"), /closed/);
    const blobs = await createFileBlobStore({ dir: await freshDir() });
    await blobs.close();
    await expectUnavailable(blobs.head("k"), /closed/);
  });

  it("waits for writes in flight before close releases the directory", async () => {
    const dir = await freshDir();
    const store = await createFileStore({ dir });
    const writes = Array.from({ length: 20 }, (_, i) => store.put(`w:${i}`, { i }));
    await store.close();
    await Promise.all(writes);
    const reopened = await createFileStore({ dir });
    expect((await reopened.list("w:")).records).toHaveLength(20);
    await reopened.close();
  });
});
