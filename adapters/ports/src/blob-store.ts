/**
 * The BlobStore port: document bytes (uploaded PDFs, generated letters, previews), up to `MAX_BLOB_BYTES` each.
 *
 * Contracts. An adapter MUST satisfy every sentence below; each has a named test in the conformance kit
 * (`@mailpiece/conformance`, `blobStoreContract`).
 * - Keys MUST follow the Store's `KEY_PATTERN`; any other key MUST be rejected with `invalid_key`.
 * - `put` MUST accept any byte sequence from 0 to `MAX_BLOB_BYTES` bytes and MUST reject a larger one with
 *   `blob_too_large`, changing nothing.
 * - `get` MUST return exactly the bytes last put, with `size`, `contentType` and the lowercase hex `sha256` of them.
 * - `put` MUST be atomic: a concurrent or later reader MUST see the old bytes or the new bytes, never a mix, and a
 *   durable adapter MUST keep that true if the process is killed at any moment.
 * - `delete` MUST return whether a blob was removed; `get` and `head` MUST then return undefined.
 */
export interface BlobStore {
  readonly name: string;
  readonly capabilities: { durable: boolean; shared: boolean };
  put(key: string, bytes: Uint8Array, options?: { contentType?: string }): Promise<BlobInfo>;
  get(key: string): Promise<Blob | undefined>;
  head(key: string): Promise<BlobInfo | undefined>;
  delete(key: string): Promise<boolean>;
  close(): Promise<void>;
}

export interface BlobInfo {
  key: string;
  size: number;
  contentType: string;
  /** Lowercase hex SHA-256 of the bytes. */
  sha256: string;
}

export interface Blob {
  info: BlobInfo;
  bytes: Uint8Array;
}

/** 100 MB: the largest PDF a mailpiece may carry (spec 1, Limits). */
export const MAX_BLOB_BYTES = 100 * 1024 * 1024;
