import { createHash, randomUUID } from "node:crypto";
import { Readable } from "node:stream";
import {
  CopyObjectCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  type GetObjectCommandOutput,
  HeadObjectCommand,
  type HeadObjectCommandOutput,
  PutObjectCommand,
  S3Client,
} from "@aws-sdk/client-s3";
import { Upload } from "@aws-sdk/lib-storage";
import type { Blob, BlobBody, BlobInfo, BlobStore, BlobStream, PutStreamOptions } from "@mailpiece/ports";
import {
  closedError,
  createStoreLifecycle,
  invalidKeyError,
  isValidKey,
  MAX_BLOB_BYTES,
  messageTag,
  PortError,
} from "@mailpiece/ports";
import { assertBody, meterBody } from "./metered-body.ts";
import { codeOf, failureReporter, isNotFound, statusOf } from "./s3-failure.ts";

interface S3BlobStoreCommonOptions {
  /** The bucket holding the blobs; it must exist. */
  bucket: string;
  /** Put before every blob key to make its object key, e.g. `mailpiece/blobs/`; default none. At most 512 bytes. */
  prefix?: string;
}

/** A store that makes its own client, and destroys it on `close()`. */
export interface S3BlobStoreConnectionOptions extends S3BlobStoreCommonOptions {
  region: string;
  /** An S3-compatible server instead of AWS, e.g. `http://127.0.0.1:9000`. */
  endpoint?: string;
  accessKeyId: string;
  secretAccessKey: string;
  /** Address the bucket in the path (`endpoint/bucket/key`) rather than the host name; most S3-compatible servers need it. */
  forcePathStyle?: boolean;
  client?: undefined;
}

/** A store on a client of the caller's, which `close()` leaves open. */
export interface S3BlobStoreClientOptions extends S3BlobStoreCommonOptions {
  client: S3Client;
}

export type S3BlobStoreOptions = S3BlobStoreConnectionOptions | S3BlobStoreClientOptions;

const NAME = "s3";
const DEFAULT_CONTENT_TYPE = "application/octet-stream";
const SHA256_PATTERN = /^[0-9a-f]{64}$/;
const SIZE_PATTERN = /^(0|[1-9][0-9]*)$/;
/** A content type goes into an HTTP header: printable ASCII only. */
const CONTENT_TYPE_PATTERN = /^[\x20-\x7e]{1,255}$/;
const MAX_PREFIX_BYTES = 512;

/** The size of each part of a multipart upload (the smallest S3 allows), and how many are sent at once. */
export const PART_BYTES = 5 * 1024 * 1024;
export const PARTS_IN_FLIGHT = 2;

/**
 * The pauses before each new read when the bytes read do not match their recorded sha256 or the body broke off; one
 * read more than there are pauses.
 */
const READ_RETRY_PAUSES_MS = [10, 50, 100, 250, 500, 1000];
/** How often `delete` starts over when the object changes between its head and its conditional delete. */
const DELETE_ATTEMPTS = 5;

/**
 * The BlobStore port on S3 or an S3-compatible server. A blob is one object at `prefix + key`, with its content
 * type as the object's Content-Type and its size and sha256 as user metadata (`x-amz-meta-size`,
 * `x-amz-meta-sha256`), so `head` answers from a HEAD request without reading the bytes.
 *
 * - `put` is one PutObject, which replaces the whole object at once; it also sends the sha256 as the object's
 *   checksum, so a server that checks it refuses bytes that changed on the way.
 * - `get` hashes the bytes it reads and compares them with the recorded sha256; a read that does not match (a torn
 *   read, on a server whose PUT is not atomic) or whose body breaks off is made again, a few times over about two
 *   seconds, then fails with `store_unavailable`. `getStream` hashes as it streams and errors the body instead of
 *   ending it when the bytes do not match.
 * - `putStream` holds at most a few parts in memory: a body of up to one part is sent as one PutObject; a longer one
 *   goes by multipart upload to a staging object (`prefix + ".staging/" + uuid`, outside the key space of blobs),
 *   which is then copied onto the blob's key with its metadata (the sha256 is known only at the end) and deleted.
 *   A refused or failed body aborts the upload, leaving no object.
 * - `delete` reads the object's ETag and deletes with `If-Match` on it, starting over when the object changed in
 *   between, so of concurrent deletes (in any process, on a server that honours conditional deletes) one answers
 *   true. Within one store, deletes of a key also run one at a time.
 */
export function createS3BlobStore(options: S3BlobStoreOptions): BlobStore {
  const tag = messageTag(NAME, "blob-store");
  const { bucket, prefix, client, owned, endpoint, secrets } = openClient(tag, options);
  const life = createStoreLifecycle(tag);
  const failures = failureReporter(tag, endpoint, secrets);
  const capabilities = { durable: true, shared: true };
  const objectKey = (key: string) => prefix + key;
  /** Bodies handed out by getStream and not yet read to their end: closing the store errors them. */
  const openBodies = new Set<(error: unknown) => void>();
  const deleting = new Map<string, Promise<unknown>>();
  /** Cleared when the server refuses conditional deletes; `delete` then deletes unconditionally. */
  let conditionalDelete = true;

  const assertKey = (key: unknown): string => {
    if (!isValidKey(key)) throw invalidKeyError(tag, key);
    return key;
  };

  const contentTypeOf = (given: unknown): string => {
    const contentType = given ?? DEFAULT_CONTENT_TYPE;
    if (typeof contentType !== "string" || !CONTENT_TYPE_PATTERN.test(contentType)) {
      throw new TypeError(`${tag} contentType must be 1 to 255 printable ASCII characters`);
    }
    return contentType;
  };

  const unreadable = (key: string, why: string): PortError =>
    new PortError("store_unavailable", `${tag} the blob ${JSON.stringify(key)} is unreadable: ${why}`);

  /** The info recorded with an object; throws when the object was not written by this store. */
  const infoOf = (key: string, output: HeadObjectCommandOutput | GetObjectCommandOutput): BlobInfo => {
    const sha256 = output.Metadata?.sha256;
    const size = output.Metadata?.size;
    const contentType = output.ContentType;
    if (
      sha256 === undefined ||
      !SHA256_PATTERN.test(sha256) ||
      size === undefined ||
      !SIZE_PATTERN.test(size)
    ) {
      throw unreadable(key, "its object has no size and sha256 metadata");
    }
    if (contentType === undefined || contentType.length === 0)
      throw unreadable(key, "its object has no Content-Type");
    const bytes = Number(size);
    if (!Number.isSafeInteger(bytes)) throw unreadable(key, "its recorded size is out of range");
    return { key, size: bytes, contentType, sha256 };
  };

  const send = async <T>(action: string, run: () => Promise<T>): Promise<T> => {
    try {
      return await run();
    } catch (error) {
      throw failures.error(action, error);
    }
  };

  /** HeadObject, or undefined when there is no object. */
  const headObject = async (key: string): Promise<HeadObjectCommandOutput | undefined> => {
    try {
      return await client.send(new HeadObjectCommand({ Bucket: bucket, Key: objectKey(key) }));
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw failures.error(`read ${JSON.stringify(key)}`, error);
    }
  };

  /** GetObject, or undefined when there is no object. */
  const getObject = async (key: string): Promise<GetObjectCommandOutput | undefined> => {
    try {
      return await client.send(new GetObjectCommand({ Bucket: bucket, Key: objectKey(key) }));
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw failures.error(`read ${JSON.stringify(key)}`, error);
    }
  };

  /** Writes whole bytes with their info in one PutObject. */
  const putObject = async (key: string, bytes: Uint8Array, info: BlobInfo): Promise<void> => {
    await send(`write ${JSON.stringify(key)}`, () =>
      client.send(
        new PutObjectCommand({
          Bucket: bucket,
          Key: objectKey(key),
          Body: bytes,
          ContentLength: bytes.byteLength,
          ContentType: info.contentType,
          Metadata: metadataOf(info),
          ChecksumSHA256: Buffer.from(info.sha256, "hex").toString("base64"),
        }),
      ),
    );
  };

  /**
   * Reads a whole object into one buffer of its recorded size, hashing as it goes. Undefined when absent; `again`,
   * with the error to report if no later read succeeds, when the bytes do not match what was recorded with them or
   * the body broke off.
   */
  const readOnce = async (key: string): Promise<Blob | { again: PortError } | undefined> => {
    const output = await getObject(key);
    if (!output) return undefined;
    const body = nodeBodyOf(output);
    const torn = { again: unreadable(key, "its bytes do not match the size and sha256 recorded with them") };
    try {
      const info = infoOf(key, output);
      const bytes = new Uint8Array(info.size);
      const hash = createHash("sha256");
      let offset = 0;
      try {
        for await (const chunk of body) {
          const part = chunk as Uint8Array;
          if (offset + part.byteLength > info.size) return torn;
          bytes.set(part, offset);
          hash.update(part);
          offset += part.byteLength;
        }
      } catch (error) {
        return { again: failures.error(`read ${JSON.stringify(key)}`, error) };
      }
      if (offset !== info.size || hash.digest("hex") !== info.sha256) return torn;
      return { info, bytes };
    } finally {
      body.destroy();
    }
  };

  /** Runs deletes of one key one at a time. */
  const oneAtATime = <T>(key: string, task: () => Promise<T>): Promise<T> => {
    const previous = deleting.get(key) ?? Promise.resolve();
    const run = previous.then(task, task);
    const settled = run.then(
      () => undefined,
      () => undefined,
    );
    deleting.set(key, settled);
    void settled.then(() => {
      if (deleting.get(key) === settled) deleting.delete(key);
    });
    return run;
  };

  const deleteObject = async (
    key: string,
    etag: string | undefined,
  ): Promise<"deleted" | "absent" | "changed"> => {
    const ifMatch = conditionalDelete ? etag : undefined;
    try {
      await client.send(new DeleteObjectCommand({ Bucket: bucket, Key: objectKey(key), IfMatch: ifMatch }));
      return "deleted";
    } catch (error) {
      if (isNotFound(error)) return "absent";
      if (ifMatch !== undefined && (codeOf(error) === "PreconditionFailed" || statusOf(error) === 412)) {
        return "changed";
      }
      if (ifMatch !== undefined && (codeOf(error) === "NotImplemented" || statusOf(error) === 501)) {
        conditionalDelete = false;
        return "changed";
      }
      throw failures.error(`delete ${JSON.stringify(key)}`, error);
    }
  };

  /** Deletes the staging object of a putStream; one left behind is only garbage, so a failure is ignored. */
  const dropStaging = async (staging: string): Promise<void> => {
    try {
      await client.send(new DeleteObjectCommand({ Bucket: bucket, Key: staging }));
    } catch {}
  };

  const putStreamed = async (key: string, body: BlobBody, putOptions: PutStreamOptions | undefined) => {
    assertKey(key);
    assertBody(tag, body);
    const contentType = contentTypeOf(putOptions?.contentType);
    const declaredSize = putOptions?.size;
    if (declaredSize !== undefined && (!Number.isSafeInteger(declaredSize) || declaredSize < 0)) {
      throw new RangeError(
        `${tag} size must be a whole number of bytes, 0 or more; got ${String(declaredSize)}`,
      );
    }
    if (declaredSize !== undefined && declaredSize > MAX_BLOB_BYTES) {
      throw new PortError(
        "blob_too_large",
        `${tag} the blob ${JSON.stringify(key)} has ${declaredSize} bytes; the limit is ${MAX_BLOB_BYTES}`,
      );
    }
    const metered = meterBody(body, { tag, key, declaredSize });
    const chunks = metered.chunks;

    // Up to one part: read it whole, then one PutObject, as put.
    const first: Uint8Array[] = [];
    let firstBytes = 0;
    let ended = false;
    try {
      while (firstBytes <= PART_BYTES) {
        const next = await chunks.next();
        if (next.done) {
          ended = true;
          break;
        }
        first.push(next.value);
        firstBytes += next.value.byteLength;
      }
    } catch (error) {
      throw metered.failure()?.error ?? error;
    }
    if (ended) {
      const bytes = first.length === 1 ? (first[0] as Uint8Array) : Buffer.concat(first);
      const info: BlobInfo = { key, size: bytes.byteLength, contentType, sha256: metered.sha256() };
      await putObject(key, bytes, info);
      return info;
    }

    // Longer: multipart upload to a staging object, then a copy onto the key with the metadata.
    const staging = `${prefix}.staging/${randomUUID()}`;
    const rest = Readable.from(
      (async function* () {
        yield* first.splice(0);
        yield* chunks;
      })(),
      { highWaterMark: 1 },
    );
    try {
      const upload = new Upload({
        client,
        params: { Bucket: bucket, Key: staging, Body: rest, ContentType: contentType },
        partSize: PART_BYTES,
        queueSize: PARTS_IN_FLIGHT,
      });
      try {
        await upload.done();
      } catch (error) {
        throw metered.failure()?.error ?? failures.error(`write ${JSON.stringify(key)}`, error);
      }
      const info: BlobInfo = { key, size: metered.size(), contentType, sha256: metered.sha256() };
      await send(`write ${JSON.stringify(key)}`, () =>
        client.send(
          new CopyObjectCommand({
            Bucket: bucket,
            Key: objectKey(key),
            CopySource: `${bucket}/${encodeKey(staging)}`,
            MetadataDirective: "REPLACE",
            ContentType: contentType,
            Metadata: metadataOf(info),
          }),
        ),
      );
      return info;
    } finally {
      rest.destroy();
      await dropStaging(staging);
    }
  };

  const streamOf = (
    key: string,
    output: GetObjectCommandOutput,
    info: BlobInfo,
  ): ReadableStream<Uint8Array> => {
    const source = nodeBodyOf(output);
    const chunks = source[Symbol.asyncIterator]();
    const hash = createHash("sha256");
    let seen = 0;
    let fail: (error: unknown) => void = () => undefined;
    const forget = () => {
      openBodies.delete(fail);
      source.destroy();
    };
    return new ReadableStream<Uint8Array>({
      start(controller) {
        fail = (error) => {
          forget();
          controller.error(error);
        };
        openBodies.add(fail);
      },
      async pull(controller) {
        let next: IteratorResult<unknown>;
        try {
          next = await chunks.next();
        } catch (error) {
          fail(failures.error(`read ${JSON.stringify(key)}`, error));
          return;
        }
        if (next.done) {
          if (seen !== info.size || hash.digest("hex") !== info.sha256) {
            fail(unreadable(key, "its bytes do not match the size and sha256 recorded with them"));
            return;
          }
          forget();
          controller.close();
          return;
        }
        const chunk = next.value as Uint8Array;
        seen += chunk.byteLength;
        if (seen > info.size) {
          fail(unreadable(key, "it has more bytes than its recorded size"));
          return;
        }
        hash.update(chunk);
        controller.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
      },
      cancel() {
        forget();
      },
    });
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
        const contentType = contentTypeOf(putOptions?.contentType);
        const info: BlobInfo = {
          key,
          size: bytes.byteLength,
          contentType,
          sha256: createHash("sha256").update(bytes).digest("hex"),
        };
        await putObject(key, bytes, info);
        return info;
      });
    },

    get(key: string): Promise<Blob | undefined> {
      return life.run(async () => {
        assertKey(key);
        for (let attempt = 0; ; attempt++) {
          const read = await readOnce(key);
          if (read === undefined || !("again" in read)) return read;
          const pause = READ_RETRY_PAUSES_MS[attempt];
          if (pause === undefined) throw read.again;
          await new Promise((resolve) => setTimeout(resolve, pause));
        }
      });
    },

    putStream(key: string, body: BlobBody, putOptions?: PutStreamOptions): Promise<BlobInfo> {
      return life.run(() => putStreamed(key, body, putOptions));
    },

    getStream(key: string): Promise<BlobStream | undefined> {
      return life.run(async () => {
        assertKey(key);
        const output = await getObject(key);
        if (!output) return undefined;
        let info: BlobInfo;
        try {
          info = infoOf(key, output);
        } catch (error) {
          nodeBodyOf(output).destroy();
          throw error;
        }
        return { info, body: streamOf(key, output, info) };
      });
    },

    head(key: string): Promise<BlobInfo | undefined> {
      return life.run(async () => {
        assertKey(key);
        const output = await headObject(key);
        return output ? infoOf(key, output) : undefined;
      });
    },

    delete(key: string): Promise<boolean> {
      return life.run(async () => {
        assertKey(key);
        return oneAtATime(key, async () => {
          for (let attempt = 0; attempt < DELETE_ATTEMPTS; attempt++) {
            const head = await headObject(key);
            if (!head) return false;
            const outcome = await deleteObject(key, head.ETag);
            if (outcome !== "changed") return outcome === "deleted";
          }
          throw new PortError(
            "store_unavailable",
            `${tag} could not delete ${JSON.stringify(key)}: it changed under every one of ${DELETE_ATTEMPTS} attempts`,
          );
        });
      });
    },

    close(): Promise<void> {
      return life.close(async () => {
        for (const fail of [...openBodies]) fail(closedError(tag));
        if (owned) client.destroy();
      });
    },
  };
}

function metadataOf(info: BlobInfo): Record<string, string> {
  return { sha256: info.sha256, size: String(info.size) };
}

/** The body of a GetObject answer as the Node stream it is under Node. */
function nodeBodyOf(output: GetObjectCommandOutput): Readable {
  const body = output.Body as unknown;
  if (body instanceof Readable) return body;
  throw new TypeError("the S3 client answered with a body that is not a Node stream");
}

/** An object key as x-amz-copy-source wants it: each path segment URI-encoded. */
function encodeKey(key: string): string {
  return key.split("/").map(encodeURIComponent).join("/");
}

/** Checks the options and opens (or takes) the client. */
function openClient(
  tag: string,
  options: S3BlobStoreOptions,
): {
  bucket: string;
  prefix: string;
  client: S3Client;
  owned: boolean;
  endpoint: string;
  secrets: string[];
} {
  if (typeof options !== "object" || options === null) throw new TypeError(`${tag} options are required`);
  const { bucket, prefix = "" } = options;
  if (typeof bucket !== "string" || bucket.length === 0)
    throw new TypeError(`${tag} bucket must be a non-empty string`);
  if (typeof prefix !== "string" || Buffer.byteLength(prefix) > MAX_PREFIX_BYTES) {
    throw new TypeError(`${tag} prefix must be a string of at most ${MAX_PREFIX_BYTES} bytes`);
  }
  if (options.client !== undefined) {
    const connection = options as unknown as Partial<S3BlobStoreConnectionOptions>;
    for (const field of ["region", "endpoint", "accessKeyId", "secretAccessKey", "forcePathStyle"] as const) {
      if (connection[field] !== undefined)
        throw new TypeError(`${tag} pass either client or ${field}, not both`);
    }
    if (!(options.client instanceof S3Client)) throw new TypeError(`${tag} client must be an S3Client`);
    return { bucket, prefix, client: options.client, owned: false, endpoint: "the S3 endpoint", secrets: [] };
  }
  const { region, endpoint, accessKeyId, secretAccessKey, forcePathStyle } = options;
  for (const [field, value] of Object.entries({ region, accessKeyId, secretAccessKey })) {
    if (typeof value !== "string" || value.length === 0)
      throw new TypeError(`${tag} ${field} must be a non-empty string`);
  }
  let shown = `S3 in ${region}`;
  if (endpoint !== undefined) {
    let url: URL;
    try {
      url = new URL(endpoint);
    } catch {
      throw new TypeError(`${tag} endpoint must be a URL, such as http://127.0.0.1:9000`);
    }
    if (url.username || url.password) throw new TypeError(`${tag} endpoint must not hold credentials`);
    shown = url.origin;
  }
  const client = new S3Client({
    region,
    ...(endpoint !== undefined ? { endpoint } : {}),
    forcePathStyle: forcePathStyle ?? false,
    credentials: { accessKeyId, secretAccessKey },
    requestHandler: { connectionTimeout: 10_000, requestTimeout: 120_000 },
  });
  return { bucket, prefix, client, owned: true, endpoint: shown, secrets: [secretAccessKey, accessKeyId] };
}
