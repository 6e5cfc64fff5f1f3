import { createHash } from "node:crypto";
import type { Blob, BlobInfo, BlobStore, StoreCapabilities } from "@mailpiece/ports";
import {
  createStoreLifecycle,
  invalidKeyError,
  isValidKey,
  MAX_BLOB_BYTES,
  messageTag,
  PortError,
  storageError,
} from "@mailpiece/ports";
import type { Storage } from "unstorage";
import type { BlobHeader } from "./blob-item.ts";
import { decodeBlobHeader, encodeBlobItem, TYPICAL_HEADER_BYTES } from "./blob-item.ts";
import { createKeyMutex } from "./key-mutex.ts";
import { toStorageKey } from "./storage-key.ts";

export interface UnstorageBlobStoreOptions {
  /** Where the blobs live, one raw item per blob. The driver should implement `getItemRaw` and `setItemRaw`. */
  storage: Storage;
  /** A short name for logs and reports, e.g. `memory` or `file`. */
  name: string;
  /** What the storage guarantees; the blob store declares it as is. */
  capabilities: StoreCapabilities;
  /** Whether `close()` disposes `storage`; default true. */
  disposeStorage?: boolean;
}

export interface BlobStoreInternals {
  /**
   * True when the driver returns a new buffer on every read (a file read), so `get` may hand it out without
   * copying. The memory driver returns the buffer it holds, which must be copied.
   */
  freshReads?: boolean;
}

const DEFAULT_CONTENT_TYPE = "application/octet-stream";

/** The BlobStore port over an unstorage `Storage`: each blob is one raw item holding its info and its bytes. */
export function createUnstorageBlobStore(options: UnstorageBlobStoreOptions): BlobStore {
  return createBlobStoreOnStorage(options, {});
}

export function createBlobStoreOnStorage(
  options: UnstorageBlobStoreOptions,
  internals: BlobStoreInternals,
): BlobStore {
  const { storage, name } = options;
  const capabilities: StoreCapabilities = { ...options.capabilities };
  const tag = messageTag(name, "blob-store");
  const mutex = createKeyMutex();
  const life = createStoreLifecycle(tag);

  const assertKey = (key: unknown): string => {
    if (!isValidKey(key)) throw invalidKeyError(tag, key);
    return key;
  };

  const unreadable = (key: string): PortError =>
    new PortError("store_unavailable", `${tag} the blob ${JSON.stringify(key)} is unreadable`);

  const readItem = async (key: string, headBytes?: number): Promise<Uint8Array | undefined> => {
    let raw: unknown;
    try {
      raw = await storage.getItemRaw(toStorageKey(key), headBytes === undefined ? {} : { headBytes });
    } catch (error) {
      throw storageError(tag, `read ${JSON.stringify(key)}`, error);
    }
    if (raw === null || raw === undefined) return undefined;
    if (raw instanceof Uint8Array) return raw;
    if (raw instanceof ArrayBuffer) return new Uint8Array(raw);
    throw unreadable(key);
  };

  const infoOf = (key: string, header: BlobHeader): BlobInfo => ({
    key,
    size: header.size,
    contentType: header.contentType,
    sha256: header.sha256,
  });

  return {
    name,
    capabilities,

    put(key: string, bytes: Uint8Array, putOptions?: { contentType?: string }): Promise<BlobInfo> {
      return life.run(async () => {
        assertKey(key);
        if (!(bytes instanceof Uint8Array)) {
          throw new TypeError(`${tag} put(${JSON.stringify(key)}) takes the bytes as a Uint8Array`);
        }
        if (bytes.byteLength > MAX_BLOB_BYTES) {
          throw new PortError(
            "blob_too_large",
            `${tag} the blob ${JSON.stringify(key)} has ${bytes.byteLength} bytes; the limit is ${MAX_BLOB_BYTES}`,
          );
        }
        const contentType = putOptions?.contentType ?? DEFAULT_CONTENT_TYPE;
        if (typeof contentType !== "string" || contentType.length === 0) {
          throw new TypeError(`${tag} contentType must be a non-empty string`);
        }
        // Hash and copy in the same turn, so the caller changing its buffer later changes nothing here.
        const header: BlobHeader = {
          size: bytes.byteLength,
          contentType,
          sha256: createHash("sha256").update(bytes).digest("hex"),
        };
        const item = encodeBlobItem(header, bytes);
        await mutex.run(key, async () => {
          try {
            await storage.setItemRaw(toStorageKey(key), item);
          } catch (error) {
            throw storageError(tag, `write ${JSON.stringify(key)}`, error);
          }
        });
        return infoOf(key, header);
      });
    },

    get(key: string): Promise<Blob | undefined> {
      return life.run(async () => {
        const item = await readItem(assertKey(key));
        if (!item) return undefined;
        const decoded = decodeBlobHeader(item);
        if (!decoded.ok) throw unreadable(key);
        const body = item.subarray(decoded.bodyOffset);
        if (body.byteLength !== decoded.header.size) throw unreadable(key);
        return { info: infoOf(key, decoded.header), bytes: internals.freshReads ? body : body.slice() };
      });
    },

    head(key: string): Promise<BlobInfo | undefined> {
      return life.run(async () => {
        const start = await readItem(assertKey(key), TYPICAL_HEADER_BYTES);
        if (!start) return undefined;
        let decoded = decodeBlobHeader(start);
        if (!decoded.ok && decoded.reason === "truncated" && start.byteLength >= TYPICAL_HEADER_BYTES) {
          const whole = await readItem(key);
          if (!whole) return undefined;
          decoded = decodeBlobHeader(whole);
        }
        if (!decoded.ok) throw unreadable(key);
        return infoOf(key, decoded.header);
      });
    },

    delete(key: string): Promise<boolean> {
      return life.run(async () => {
        const storageKey = toStorageKey(assertKey(key));
        return mutex.run(key, async () => {
          try {
            if (!(await storage.hasItem(storageKey))) return false;
            await storage.removeItem(storageKey);
            return true;
          } catch (error) {
            throw storageError(tag, `delete ${JSON.stringify(key)}`, error);
          }
        });
      });
    },

    close(): Promise<void> {
      return life.close(async () => {
        if (options.disposeStorage === false) return;
        try {
          await storage.dispose();
        } catch (error) {
          throw storageError(tag, "close its storage", error);
        }
      });
    },
  };
}
