import type { BlobStore, Clock, Store } from "@mailpiece/ports";
import { createStorage } from "unstorage";
import { createUnstorageBlobStore } from "./unstorage-blob-store.ts";
import { createUnstorageStore } from "./unstorage-store.ts";

/**
 * A Store in this process's memory, on unstorage's memory driver: for tests and throwaway runs. Its keys are also
 * kept in a sorted index, so a `list` page reads its own records and does not scan the others.
 */
export function createMemoryStore(options: { clock?: Clock } = {}): Store {
  return createUnstorageStore({
    storage: createStorage(),
    name: "memory",
    capabilities: { durable: false, shared: false },
    clock: options.clock,
    indexKeys: true,
  });
}

/** A BlobStore in this process's memory, on unstorage's memory driver. */
export function createMemoryBlobStore(): BlobStore {
  return createUnstorageBlobStore({
    storage: createStorage(),
    name: "memory",
    capabilities: { durable: false, shared: false },
  });
}
