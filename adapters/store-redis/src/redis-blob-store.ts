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
import { openClient, type RedisConnectionOptions } from "./redis-client.ts";

export type RedisBlobStoreOptions = RedisConnectionOptions;

const NAME = "redis";
const DEFAULT_CONTENT_TYPE = "application/octet-stream";
const SHA256_PATTERN = /^[0-9a-f]{64}$/;

/**
 * The BlobStore port on Redis. Each blob is one hash at `<prefix>b:<key>` with the fields `bytes`, `contentType`,
 * `size` and `sha256`, written by a single command that replaces every field at once, so a reader sees the old
 * blob or the new one, never a mix.
 */
export function createRedisBlobStore(options: RedisBlobStoreOptions = {}): BlobStore {
  const { client, owned, prefix } = openClient(options);
  const capabilities: StoreCapabilities = { durable: true, shared: true };
  const tag = messageTag(NAME, "blob-store");
  const life = createStoreLifecycle(tag);
  const blobPrefix = `${prefix}b:`;

  const assertKey = (key: unknown): string => {
    if (!isValidKey(key)) throw invalidKeyError(tag, key);
    return key;
  };

  const unreadable = (key: string): PortError =>
    new PortError("store_unavailable", `${tag} the blob ${JSON.stringify(key)} is unreadable`);

  /** The info held in the hash fields, checked; undefined when the blob is absent. */
  const infoOf = (
    key: string,
    contentType: string | null,
    size: string | null,
    sha256: string | null,
  ): BlobInfo | undefined => {
    if (contentType === null && size === null && sha256 === null) return undefined;
    const bytes = Number(size);
    if (
      contentType === null ||
      contentType.length === 0 ||
      !Number.isSafeInteger(bytes) ||
      bytes < 0 ||
      sha256 === null ||
      !SHA256_PATTERN.test(sha256)
    ) {
      throw unreadable(key);
    }
    return { key, size: bytes, contentType, sha256 };
  };

  return {
    name: NAME,
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
        const info: BlobInfo = {
          key,
          size: bytes.byteLength,
          contentType,
          sha256: createHash("sha256").update(bytes).digest("hex"),
        };
        const copy = Buffer.from(bytes);
        try {
          await client.hset(blobPrefix + key, {
            bytes: copy,
            contentType,
            size: String(info.size),
            sha256: info.sha256,
          });
        } catch (error) {
          throw storageError(tag, `write ${JSON.stringify(key)}`, error);
        }
        return info;
      });
    },

    get(key: string): Promise<Blob | undefined> {
      return life.run(async () => {
        assertKey(key);
        let fields: Array<Buffer | null>;
        try {
          fields = await client.hmgetBuffer(blobPrefix + key, "bytes", "contentType", "size", "sha256");
        } catch (error) {
          throw storageError(tag, `read ${JSON.stringify(key)}`, error);
        }
        const [bytes, contentType, size, sha256] = fields;
        const text = (field: Buffer | null | undefined) => (field ? field.toString("utf8") : null);
        const info = infoOf(key, text(contentType), text(size), text(sha256));
        if (!info) return undefined;
        if (!bytes || bytes.byteLength !== info.size) throw unreadable(key);
        return { info, bytes: new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength) };
      });
    },

    head(key: string): Promise<BlobInfo | undefined> {
      return life.run(async () => {
        assertKey(key);
        let fields: Array<string | null>;
        try {
          fields = await client.hmget(blobPrefix + key, "contentType", "size", "sha256");
        } catch (error) {
          throw storageError(tag, `read ${JSON.stringify(key)}`, error);
        }
        const [contentType, size, sha256] = fields;
        return infoOf(key, contentType ?? null, size ?? null, sha256 ?? null);
      });
    },

    delete(key: string): Promise<boolean> {
      return life.run(async () => {
        assertKey(key);
        try {
          return (await client.del(blobPrefix + key)) === 1;
        } catch (error) {
          throw storageError(tag, `delete ${JSON.stringify(key)}`, error);
        }
      });
    },

    close(): Promise<void> {
      return life.close(async () => {
        if (!owned) return;
        try {
          await client.quit();
        } catch (error) {
          throw storageError(tag, "close its connection", error);
        }
      });
    },
  };
}
