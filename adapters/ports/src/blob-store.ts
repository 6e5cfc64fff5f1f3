/**
 * The BlobStore port: document bytes (uploaded PDFs, generated letters, previews), up to `MAX_BLOB_BYTES` each.
 *
 * Contracts. An adapter MUST satisfy every sentence below; each has a named test in the conformance kit
 * (`@mailpiece/conformance`, `blobStoreContract`).
 * - Keys MUST follow the Store's `KEY_PATTERN`; any other key MUST be rejected with `invalid_key`, by every method.
 * - `put` MUST accept any byte sequence from 0 to `MAX_BLOB_BYTES` bytes and MUST reject a larger one with
 *   `blob_too_large`, changing nothing.
 * - `get` MUST return exactly the bytes last put, with `size`, `contentType` and the lowercase hex `sha256` of them.
 * - `put` MUST be atomic: a concurrent or later reader MUST see the old bytes or the new bytes, never a mix, and a
 *   durable adapter MUST keep that true if the process is killed at any moment.
 * - `delete` MUST return whether a blob was removed; `get` and `head` MUST then return undefined.
 *
 * Streams. `putStream` and `getStream` are optional, for blobs too large to hold in memory more than once: an adapter
 * that has them SHOULD hold only a bounded part of the body at a time. An adapter that has one MUST satisfy:
 * - `putStream` MUST store the bytes the body yields as `put` would store them, and return the same info; the
 *   chunks are the caller's again once `putStream` has settled.
 * - `putStream` MUST be atomic like `put`: readers see the old blob or the whole new one, never a part of the body.
 * - `putStream` MUST accept a body of 0 to `MAX_BLOB_BYTES` bytes and MUST reject a longer one with
 *   `blob_too_large`, leaving the previous blob (or no blob) as it was; given `options.size` over `MAX_BLOB_BYTES`,
 *   it MUST reject so before reading the body.
 * - Given `options.size`, `putStream` MUST reject a body of any other length, changing nothing.
 * - When the body fails (throws or errors), `putStream` MUST reject, changing nothing.
 * - `getStream` MUST return undefined for an absent blob; otherwise the info `head` returns and a body that yields
 *   exactly the bytes that info describes, or errors: it never ends normally after other bytes.
 */
export interface BlobStore {
  readonly name: string;
  readonly capabilities: { durable: boolean; shared: boolean };
  put(key: string, bytes: Uint8Array, options?: { contentType?: string }): Promise<BlobInfo>;
  get(key: string): Promise<Blob | undefined>;
  /** Stores the bytes of `body` as one blob, hashing them as they arrive; see the contracts above. */
  putStream?(key: string, body: BlobBody, options?: PutStreamOptions): Promise<BlobInfo>;
  /** The blob's info and a stream of its bytes, or undefined when it is absent. */
  getStream?(key: string): Promise<BlobStream | undefined>;
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

/** What `putStream` reads: a web stream or any async iterable of byte chunks. */
export type BlobBody = ReadableStream<Uint8Array> | AsyncIterable<Uint8Array>;

export interface PutStreamOptions {
  /** Stored with the blob; `application/octet-stream` when absent. */
  contentType?: string;
  /** The number of bytes the body yields, when known: a larger one is refused before the body is read. */
  size?: number;
}

export interface BlobStream {
  info: BlobInfo;
  /** Yields exactly the bytes `info` describes, or errors. */
  body: ReadableStream<Uint8Array>;
}

/** 100 MB: the largest PDF a mailpiece may carry (spec 1, Limits). */
export const MAX_BLOB_BYTES = 100 * 1024 * 1024;
