/**
 * A child process for the file store's crash and lock tests (not part of the package's API).
 *
 *   hold  <recordsDir>              opens the file store, prints `ready`, then waits to be killed
 *   write <recordsDir> <blobsDir>   opens both file stores, prints `ready`, then replaces records and blobs in a
 *                                   loop, printing `rec <key> <version>` / `blob <key> <generation>` after each
 *                                   acknowledged write, until it is killed
 *
 * Every value it writes checks itself: a record holds the sha256 of its own content, a blob starts with the sha256
 * of the rest of its bytes; file-store.crash.test.ts checks both after every kill.
 */
import { createHash, randomBytes } from "node:crypto";
import { writeSync } from "node:fs";
import { pathToFileURL } from "node:url";
import type { BlobStore, Store } from "@mailpiece/ports";
import { createFileBlobStore, createFileStore } from "./file-store.ts";

export const RECORD_KEYS = Array.from({ length: 4 }, (_, worker) =>
  Array.from({ length: 5 }, (_, slot) => `rec:${worker}:${slot}`),
);
export const BLOB_KEYS = [
  ["blob:0:0", "blob:0:1"],
  ["blob:1:0", "blob:1:1"],
];

export interface CrashRecord {
  key: string;
  n: number;
  payload: string;
  sum: string;
}

export function recordSum(key: string, n: number, payload: string): string {
  return createHash("sha256")
    .update(JSON.stringify([key, n, payload]))
    .digest("hex");
}

/** Blob layout: 32 bytes sha256 of the rest, 4 bytes generation (big-endian), then random bytes. */
export function makeBlob(generation: number, size: number): Uint8Array {
  const bytes = new Uint8Array(Math.max(36, size));
  new DataView(bytes.buffer).setUint32(32, generation);
  bytes.set(randomBytes(bytes.byteLength - 36), 36);
  bytes.set(createHash("sha256").update(bytes.subarray(32)).digest(), 0);
  return bytes;
}

/** The generation a blob was written with, or undefined when it is not self-consistent. */
export function blobGeneration(bytes: Uint8Array): number | undefined {
  if (bytes.byteLength < 36) return undefined;
  const sum = createHash("sha256").update(bytes.subarray(32)).digest();
  if (!sum.equals(bytes.subarray(0, 32))) return undefined;
  return new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).getUint32(32);
}

async function recordWorker(store: Store, keys: string[]): Promise<never> {
  for (let round = 0; ; round++) {
    const key = keys[round % keys.length] as string;
    const current = await store.get<CrashRecord>(key);
    const n = (current?.version ?? 0) + 1;
    const payload = randomBytes(Math.floor(Math.random() * 3000)).toString("base64");
    const value: CrashRecord = { key, n, payload, sum: recordSum(key, n, payload) };
    const written = await store.put(key, value, current ? { ifVersion: current.version } : {});
    writeSync(1, `rec ${key} ${written.version}\n`);
  }
}

async function blobWorker(blobs: BlobStore, keys: string[]): Promise<never> {
  for (let round = 0; ; round++) {
    const key = keys[round % keys.length] as string;
    const current = await blobs.get(key);
    const generation = (current ? (blobGeneration(current.bytes) ?? 0) : 0) + 1;
    await blobs.put(key, makeBlob(generation, Math.floor(Math.random() * 2_000_000)));
    writeSync(1, `blob ${key} ${generation}\n`);
  }
}

async function main(): Promise<void> {
  const [mode, recordsDir, blobsDir] = process.argv.slice(2);
  if (mode === "hold" && recordsDir) {
    await createFileStore({ dir: recordsDir });
    process.stdout.write("ready\n");
    setInterval(() => undefined, 60_000);
    return;
  }
  if (mode === "write" && recordsDir && blobsDir) {
    const store = await createFileStore({ dir: recordsDir });
    const blobs = await createFileBlobStore({ dir: blobsDir });
    process.stdout.write("ready\n");
    await Promise.all([
      ...RECORD_KEYS.map((keys) => recordWorker(store, keys)),
      ...BLOB_KEYS.map((keys) => blobWorker(blobs, keys)),
    ]);
    return;
  }
  throw new Error(`usage: crash-writer.fixture.ts hold <dir> | write <recordsDir> <blobsDir>`);
}

if (process.argv[1] && pathToFileURL(process.argv[1]).href === import.meta.url) {
  main().catch((error: unknown) => {
    process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  });
}
