export type { AtomicFsDriverOptions } from "./atomic-fs-driver.ts";
export { atomicFsDriver } from "./atomic-fs-driver.ts";
export type { FileBlobStoreOptions, FileStoreOptions } from "./file-store.ts";
export { createFileBlobStore, createFileStore, DEFAULT_CACHE_BYTES } from "./file-store.ts";
export { createMemoryBlobStore, createMemoryStore } from "./memory-store.ts";
export type { UnstorageBlobStoreOptions } from "./unstorage-blob-store.ts";
export { createUnstorageBlobStore } from "./unstorage-blob-store.ts";
export type { UnstorageStoreOptions } from "./unstorage-store.ts";
export { createUnstorageStore } from "./unstorage-store.ts";
