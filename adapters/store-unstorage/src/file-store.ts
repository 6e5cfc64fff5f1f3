import { mkdir } from "node:fs/promises";
import { dirname, resolve } from "node:path";
import type { BlobStore, Clock, Store } from "@mailpiece/ports";
import { messageTag, storageError } from "@mailpiece/ports";
import { createStorage } from "unstorage";
import { atomicFsDriver, removeTempFiles, syncDirectory } from "./atomic-fs-driver.ts";
import type { DirLock } from "./dir-lock.ts";
import { lockDirectory } from "./dir-lock.ts";
import { createBlobStoreOnStorage } from "./unstorage-blob-store.ts";
import { createStoreOnStorage } from "./unstorage-store.ts";

export interface FileStoreOptions {
  /** The directory of the records, e.g. `$DATA_DIR/records`. Created when missing; one process at a time. */
  dir: string;
  /** Where time comes from (TTLs, `updatedAt`); defaults to the system clock. */
  clock?: Clock;
  /** Bytes of recently read or written records (and known absent keys) answered from memory; default 8 MiB. */
  cacheBytes?: number;
}

/** The memory for records answered without reading their files, by default. */
export const DEFAULT_CACHE_BYTES = 8 * 1024 * 1024;

export interface FileBlobStoreOptions {
  /** The directory of the blobs, e.g. `$DATA_DIR/blobs`. Created when missing; one process at a time. */
  dir: string;
}

const FILE_CAPABILITIES = { durable: true, shared: false } as const;

/** Creates `dir`, takes its lock and removes what a killed writer left behind. */
async function openDirectory(dir: string, tag: string): Promise<DirLock> {
  try {
    const created = await mkdir(dir, { recursive: true, mode: 0o700 });
    if (created !== undefined) await syncDirectory(dirname(created));
  } catch (error) {
    throw storageError(tag, `create ${dir}`, error);
  }
  const lock = await lockDirectory(dir, tag);
  try {
    await removeTempFiles(dir);
  } catch (error) {
    await lock.release();
    throw storageError(tag, `clean ${dir}`, error);
  }
  return lock;
}

/**
 * The embedded default Store: one file per record under `dir`, written atomically (temporary file, fsync,
 * rename, directory fsync), so a record survives `kill -9` at any moment with its old or its new value.
 * Declares `{durable: true, shared: false}` and holds an exclusive lock on `dir` until `close()`; opening a
 * directory another live process holds fails with `store_unavailable`. Opening reads the directory's keys once
 * into a sorted index, so a `list` page reads its own records and no directory.
 */
export async function createFileStore(options: FileStoreOptions): Promise<Store> {
  const dir = resolve(options.dir);
  const lock = await openDirectory(dir, messageTag("file", "store"));
  // The directory lock makes this store its only writer, so recent records are answered from memory and the keys
  // are listed from memory; both are rebuilt from the files at every open.
  const { store, loadIndex } = createStoreOnStorage({
    storage: createStorage({ driver: atomicFsDriver({ base: dir }) }),
    name: "file",
    capabilities: FILE_CAPABILITIES,
    clock: options.clock,
    cacheBytes: options.cacheBytes ?? DEFAULT_CACHE_BYTES,
    indexKeys: true,
  });
  try {
    await loadIndex();
  } catch (error) {
    await store.close().catch(() => undefined);
    await lock.release();
    throw error;
  }
  return {
    ...store,
    async close() {
      try {
        await store.close();
      } finally {
        await lock.release();
      }
    },
  };
}

/** The embedded default BlobStore: one file per blob under `dir`, written atomically, with `dir` locked. */
export async function createFileBlobStore(options: FileBlobStoreOptions): Promise<BlobStore> {
  const dir = resolve(options.dir);
  const lock = await openDirectory(dir, messageTag("file", "blob-store"));
  const blobs = createBlobStoreOnStorage(
    {
      storage: createStorage({ driver: atomicFsDriver({ base: dir }) }),
      name: "file",
      capabilities: FILE_CAPABILITIES,
    },
    { freshReads: true },
  );
  return {
    ...blobs,
    async close() {
      try {
        await blobs.close();
      } finally {
        await lock.release();
      }
    },
  };
}
