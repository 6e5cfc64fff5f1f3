import { createHash, randomUUID } from "node:crypto";
import { once } from "node:events";
import {
  createServer as createHttpServer,
  request as httpRequest,
  type IncomingHttpHeaders,
  type IncomingMessage,
} from "node:http";
import { inspect } from "node:util";
import { HeadObjectCommand, ListObjectsV2Command, PutObjectCommand, S3Client } from "@aws-sdk/client-s3";
import { blobStoreContract, freePort, type S3rver, startS3rver } from "@mailpiece/conformance";
import { registerSuite } from "@mailpiece/conformance/vitest";
import type { BlobStore } from "@mailpiece/ports";
import { MAX_BLOB_BYTES, PortError } from "@mailpiece/ports";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createS3BlobStore, PART_BYTES, type S3BlobStoreConnectionOptions } from "./s3-blob-store.ts";
import { measureStreamMemory } from "./stream-memory.fixture.ts";

let server: S3rver | undefined;
let atomic: { endpoint: string; close(): Promise<void> } | undefined;

beforeAll(async () => {
  server = await startS3rver();
  atomic = await startAtomicProxy(server.endpoint);
}, 60_000);

afterAll(async () => {
  await atomic?.close();
  await server?.stop();
});

/**
 * A proxy on 127.0.0.1 in front of s3rver that runs the requests of one object path one at a time. s3rver writes an
 * object in place, so concurrent PUTs and GETs of one key could see a mix; S3 replaces an object whole on each PUT.
 * Behind this proxy s3rver keeps S3's promise, and the contract kit's atomicity tests check the store against it.
 * Each exchange is buffered whole (the kit's blobs are small), so a client that holds a response open, as a reader
 * of getStream may, never holds up the next request.
 */
async function startAtomicProxy(target: string): Promise<{ endpoint: string; close(): Promise<void> }> {
  const upstream = new URL(target);
  const tails = new Map<string, Promise<void>>();
  const collect = async (from: AsyncIterable<Buffer>) => {
    const chunks: Buffer[] = [];
    for await (const chunk of from) chunks.push(chunk);
    return Buffer.concat(chunks);
  };
  const exchange = (req: IncomingMessage, body: Buffer) =>
    new Promise<{ status: number; headers: IncomingHttpHeaders; body: Buffer }>((resolve, reject) => {
      const forward = httpRequest(
        {
          host: upstream.hostname,
          port: upstream.port,
          method: req.method,
          path: req.url,
          headers: req.headers,
        },
        (answer) => {
          collect(answer).then(
            (bytes) => resolve({ status: answer.statusCode ?? 502, headers: answer.headers, body: bytes }),
            reject,
          );
        },
      );
      forward.on("error", reject);
      forward.end(body);
    });
  const proxy = createHttpServer(async (req, res) => {
    try {
      const body = await collect(req);
      const path = (req.url ?? "/").split("?")[0] ?? "/";
      const turn = (tails.get(path) ?? Promise.resolve()).then(() => exchange(req, body));
      const done = turn.then(
        () => undefined,
        () => undefined,
      );
      tails.set(path, done);
      void done.then(() => {
        if (tails.get(path) === done) tails.delete(path);
      });
      const answer = await turn;
      res.writeHead(answer.status, answer.headers);
      res.end(answer.body);
    } catch {
      res.destroy();
    }
  });
  proxy.listen(0, "127.0.0.1");
  await once(proxy, "listening");
  const address = proxy.address();
  if (typeof address !== "object" || address === null) throw new Error("no port");
  return {
    endpoint: `http://127.0.0.1:${address.port}`,
    async close() {
      proxy.closeAllConnections();
      proxy.close();
      await once(proxy, "close");
    },
  };
}

function atomicEndpoint(): string {
  if (!atomic) throw new Error("the atomic proxy is not running");
  return atomic.endpoint;
}

function s3(): S3rver {
  if (!server) throw new Error("s3rver is not running");
  return server;
}

/** The options of a store on the test server, under a prefix of its own. */
function connection(prefix = `t-${randomUUID()}/`): S3BlobStoreConnectionOptions {
  const { bucket, region, endpoint, accessKeyId, secretAccessKey } = s3();
  return { bucket, region, endpoint, accessKeyId, secretAccessKey, forcePathStyle: true, prefix };
}

/** A client of the test server, to look at the objects behind the store. */
function rawClient(): S3Client {
  const { region, endpoint, accessKeyId, secretAccessKey } = s3();
  return new S3Client({
    region,
    endpoint,
    forcePathStyle: true,
    credentials: { accessKeyId, secretAccessKey },
  });
}

async function objectKeysUnder(prefix: string): Promise<string[]> {
  const client = rawClient();
  try {
    const listed = await client.send(new ListObjectsV2Command({ Bucket: s3().bucket, Prefix: prefix }));
    return (listed.Contents ?? []).map((object) => object.Key ?? "").sort();
  } finally {
    client.destroy();
  }
}

/** `bytes` bytes in fresh chunks of `chunk` bytes, with their sha256. */
function body(bytes: number, chunk = 1024 * 1024): { chunks(): AsyncGenerator<Uint8Array>; sha256: string } {
  const template = new Uint8Array(chunk).map((_, i) => (i * 31 + 7) & 0xff);
  function* parts(): Generator<Uint8Array> {
    for (let index = 0, start = 0; start < bytes; index++, start += chunk) {
      const part = template.slice(0, Math.min(chunk, bytes - start));
      if (part.byteLength >= 4) new DataView(part.buffer).setUint32(0, index);
      yield part;
    }
  }
  const hash = createHash("sha256");
  for (const part of parts()) hash.update(part);
  return {
    chunks: async function* () {
      yield* parts();
    },
    sha256: hash.digest("hex"),
  };
}

function streamsOf(blobs: BlobStore) {
  const { putStream, getStream } = blobs;
  if (!putStream || !getStream) throw new Error("the S3 blob store has putStream and getStream");
  return { putStream: putStream.bind(blobs), getStream: getStream.bind(blobs) };
}

async function errorOf(action: () => Promise<unknown>): Promise<unknown> {
  try {
    await action();
  } catch (error) {
    return error;
  }
  throw new Error("expected the call to fail");
}

const prefixes = new WeakMap<BlobStore, string>();
registerSuite(
  blobStoreContract({
    name: "s3",
    async create() {
      const options = { ...connection(), endpoint: atomicEndpoint() };
      const blobs = createS3BlobStore(options);
      prefixes.set(blobs, options.prefix ?? "");
      return blobs;
    },
    async reopen(previous) {
      const prefix = prefixes.get(previous);
      if (prefix === undefined) throw new Error("reopen: not a blob store of this test file");
      const blobs = createS3BlobStore({ ...connection(prefix), endpoint: atomicEndpoint() });
      prefixes.set(blobs, prefix);
      return blobs;
    },
  }),
  { timeoutMs: 600_000 },
);

describe("createS3BlobStore", () => {
  it("is named s3 and declares that it is durable and shared", async () => {
    const blobs = createS3BlobStore(connection());
    try {
      expect(blobs.name).toBe("s3");
      expect(blobs.capabilities).toEqual({ durable: true, shared: true });
    } finally {
      await blobs.close();
    }
  });

  it("stores a blob as the object prefix + key, with its content type, size and sha256 on the object", async () => {
    const prefix = `t-${randomUUID()}/docs/`;
    const blobs = createS3BlobStore(connection(prefix));
    const client = rawClient();
    try {
      const info = await blobs.put("letter:1.pdf", new TextEncoder().encode("%PDF-1.7"), {
        contentType: "application/pdf",
      });
      const head = await client.send(
        new HeadObjectCommand({ Bucket: s3().bucket, Key: `${prefix}letter:1.pdf` }),
      );
      expect(head.ContentType).toBe("application/pdf");
      expect(head.ContentLength).toBe(8);
      expect(head.Metadata).toEqual({ sha256: info.sha256, size: "8" });
      expect(await objectKeysUnder(prefix)).toEqual([`${prefix}letter:1.pdf`]);
    } finally {
      await blobs.close();
      client.destroy();
    }
  });

  it("answers head with one HEAD request, without reading the body", async () => {
    const client = rawClient();
    const commands: string[] = [];
    client.middlewareStack.add(
      (next, context) => async (args) => {
        commands.push(String(context.commandName));
        return next(args);
      },
      { step: "initialize", name: "recordCommands" },
    );
    const blobs = createS3BlobStore({ client, bucket: s3().bucket, prefix: `t-${randomUUID()}/` });
    try {
      const info = await blobs.put("doc", new Uint8Array(300_000), { contentType: "application/pdf" });
      commands.length = 0;
      expect(await blobs.head("doc")).toEqual(info);
      expect(commands).toEqual(["HeadObjectCommand"]);
    } finally {
      await blobs.close();
      client.destroy();
    }
  });

  it("putStream of a long body leaves the blob's object and no staging object behind", async () => {
    const prefix = `t-${randomUUID()}/`;
    const blobs = createS3BlobStore(connection(prefix));
    try {
      const long = body(3 * PART_BYTES + 12_345, 100_000);
      const info = await streamsOf(blobs).putStream("long", long.chunks(), {
        contentType: "application/pdf",
      });
      expect(info).toEqual({
        key: "long",
        size: 3 * PART_BYTES + 12_345,
        contentType: "application/pdf",
        sha256: long.sha256,
      });
      expect(await objectKeysUnder(prefix)).toEqual([`${prefix}long`]);
    } finally {
      await blobs.close();
    }
  });

  it("a refused oversize stream and a failing long body leave no object in the bucket", async () => {
    const prefix = `t-${randomUUID()}/`;
    const blobs = createS3BlobStore(connection(prefix));
    try {
      const tooLarge = body(MAX_BLOB_BYTES + 1);
      const refused = await errorOf(() => streamsOf(blobs).putStream("huge", tooLarge.chunks()));
      expect(PortError.isInstance(refused) && refused.code).toBe("blob_too_large");
      const failing = async function* () {
        yield* body(2 * PART_BYTES).chunks();
        throw new Error("the upload's source failed");
      };
      const failed = await errorOf(() => streamsOf(blobs).putStream("broken", failing()));
      expect((failed as Error).message).toBe("the upload's source failed");
      expect(await blobs.head("huge")).toBeUndefined();
      expect(await blobs.head("broken")).toBeUndefined();
      expect(await objectKeysUnder(prefix)).toEqual([]);
    } finally {
      await blobs.close();
    }
  }, 600_000);

  it("putStream of 100 MB holds a small part of it in memory, and getStream returns the same sha256", async () => {
    // In a process of its own, collecting garbage once per MiB passed: the figures are what the store holds, not
    // when V8 chose to collect (which depends on the machine's load). The bench reports the natural peaks too.
    const report = await measureStreamMemory({
      module: new URL("./s3-blob-store.ts", import.meta.url).href,
      export: "createS3BlobStore",
      options: connection(),
      bytes: MAX_BLOB_BYTES,
      collectEveryBytes: 1024 * 1024,
    });
    expect(report.streamed).toBe(true);
    expect(report.write.info).toEqual({
      key: "measured",
      size: MAX_BLOB_BYTES,
      contentType: "application/pdf",
      sha256: report.sha256,
    });
    expect(report.read).toMatchObject({ size: MAX_BLOB_BYTES, sha256: report.sha256 });
    // The parts in flight and the one being filled: a few 5 MiB parts, never the blob.
    const limit = MAX_BLOB_BYTES / 3;
    expect(report.write.peakArrayBuffersGrowth).toBeLessThan(limit);
    expect(report.read.peakArrayBuffersGrowth).toBeLessThan(limit);
    if (report.write.peakRssGrowth !== null) expect(report.write.peakRssGrowth).toBeLessThan(limit);
    if (report.read.peakRssGrowth !== null) expect(report.read.peakRssGrowth).toBeLessThan(limit);
  }, 600_000);

  it("never returns bytes mixed from concurrent puts, even from a server that mixes them", async () => {
    const blobs = createS3BlobStore(connection());
    try {
      const versions = [262_144, 262_147, 1, 0].map((size, v) => new Uint8Array(size).fill(v + 1));
      const known = new Set(versions.map((bytes) => createHash("sha256").update(bytes).digest("hex")));
      const reads: Array<Promise<unknown>> = [];
      const writes: Array<Promise<unknown>> = [];
      for (let round = 0; round < 12; round++) {
        writes.push(blobs.put("mixed", versions[round % versions.length] as Uint8Array));
        for (let reader = 0; reader < 3; reader++) {
          reads.push(
            blobs.get("mixed").then(
              (blob) => blob,
              (error: unknown) => error,
            ),
          );
        }
      }
      await Promise.all(writes);
      reads.push(blobs.get("mixed").then(undefined, (error: unknown) => error));
      for (const outcome of await Promise.all(reads)) {
        if (outcome === undefined) continue;
        if (PortError.isInstance(outcome)) {
          // s3rver may have left the object mixed: refused, never returned.
          expect(outcome.code).toBe("store_unavailable");
          continue;
        }
        const blob = outcome as { info: { sha256: string; size: number }; bytes: Uint8Array };
        const actual = createHash("sha256").update(blob.bytes).digest("hex");
        expect(known.has(actual), "the bytes are exactly one of the versions put").toBe(true);
        expect(blob.info.sha256).toBe(actual);
        expect(blob.info.size).toBe(blob.bytes.byteLength);
      }
    } finally {
      await blobs.close();
    }
  }, 120_000);

  it("reports wrong credentials as store_unavailable, without the secret or the key id", async () => {
    // s3rver checks the access key id and not the signature: an unknown key id is what it refuses.
    const accessKeyId = "AKIAWRONGKEYID0042";
    const secretAccessKey = "wrong-secret-9f8e7d6c5b4a39281706";
    const blobs = createS3BlobStore({ ...connection(), accessKeyId, secretAccessKey });
    try {
      const calls: Array<[string, () => Promise<unknown>]> = [
        ["put", () => blobs.put("doc", new Uint8Array(10))],
        ["get", () => blobs.get("doc")],
        ["head", () => blobs.head("doc")],
        ["delete", () => blobs.delete("doc")],
        ["putStream", () => streamsOf(blobs).putStream("doc", body(PART_BYTES + 1).chunks())],
        ["getStream", () => streamsOf(blobs).getStream("doc")],
      ];
      for (const [name, call] of calls) {
        const error = await errorOf(call);
        expect(PortError.isInstance(error), `${name}: ${String(error)}`).toBe(true);
        expect((error as PortError).code, name).toBe("store_unavailable");
        expect((error as PortError).message, name).toMatch(/access was denied/);
        const everything = `${(error as PortError).message}\n${inspect(error, { depth: 20, showHidden: true })}`;
        expect(everything, name).not.toContain(secretAccessKey);
        expect(everything, name).not.toContain(accessKeyId);
      }
    } finally {
      await blobs.close();
    }
  }, 120_000);

  it("reports an endpoint that is down as store_unavailable", async () => {
    const port = await freePort();
    const blobs = createS3BlobStore({ ...connection(), endpoint: `http://127.0.0.1:${port}` });
    try {
      const calls: Array<[string, () => Promise<unknown>]> = [
        ["put", () => blobs.put("doc", new Uint8Array(10))],
        ["get", () => blobs.get("doc")],
        ["head", () => blobs.head("doc")],
        ["delete", () => blobs.delete("doc")],
        ["putStream", () => streamsOf(blobs).putStream("doc", body(10).chunks())],
        ["getStream", () => streamsOf(blobs).getStream("doc")],
      ];
      for (const [name, call] of calls) {
        const error = await errorOf(call);
        expect(PortError.isInstance(error), `${name}: ${String(error)}`).toBe(true);
        expect((error as PortError).code, name).toBe("store_unavailable");
        expect((error as PortError).message, name).toContain(`could not reach http://127.0.0.1:${port}`);
      }
    } finally {
      await blobs.close();
    }
  }, 120_000);

  it("refuses an object whose bytes do not match the sha256 recorded with them, or that has none", async () => {
    const prefix = `t-${randomUUID()}/`;
    const blobs = createS3BlobStore(connection(prefix));
    const client = rawClient();
    try {
      const put = (key: string, metadata: Record<string, string>) =>
        client.send(
          new PutObjectCommand({
            Bucket: s3().bucket,
            Key: `${prefix}${key}`,
            Body: new TextEncoder().encode("these bytes"),
            ContentType: "text/plain",
            Metadata: metadata,
          }),
        );
      await put("tampered", { sha256: createHash("sha256").update("other bytes").digest("hex"), size: "11" });
      await put("foreign", {});
      for (const key of ["tampered", "foreign"]) {
        const error = await errorOf(() => blobs.get(key));
        expect(PortError.isInstance(error) && error.code, key).toBe("store_unavailable");
        expect((error as PortError).message, key).toMatch(/unreadable/);
      }
      expect(PortError.isInstance(await errorOf(() => blobs.head("foreign")))).toBe(true);
      const streamed = await streamsOf(blobs).getStream("tampered");
      expect(streamed?.info.size).toBe(11);
      const reader = streamed?.body.getReader();
      const error = await errorOf(async () => {
        while (reader && !(await reader.read()).done) {}
      });
      expect(PortError.isInstance(error) && error.code).toBe("store_unavailable");
    } finally {
      await blobs.close();
      client.destroy();
    }
  }, 60_000);

  it("close errors the bodies still open and refuses later calls", async () => {
    const blobs = createS3BlobStore(connection());
    await blobs.put("doc", new Uint8Array(2 * 1024 * 1024));
    const streamed = await streamsOf(blobs).getStream("doc");
    const reader = streamed?.body.getReader();
    await reader?.read();
    await blobs.close();
    const error = await errorOf(async () => {
      while (reader && !(await reader.read()).done) {}
    });
    expect(PortError.isInstance(error) && error.code).toBe("store_unavailable");
    expect(PortError.isInstance(await errorOf(() => blobs.head("doc")))).toBe(true);
  });

  it("checks its options", () => {
    const client = rawClient();
    try {
      expect(() => createS3BlobStore({ ...connection(), bucket: "" })).toThrow(TypeError);
      expect(() => createS3BlobStore({ ...connection(), endpoint: "not a url" })).toThrow(TypeError);
      expect(() => createS3BlobStore({ ...connection(), prefix: "p".repeat(513) })).toThrow(TypeError);
      const mixed = { ...connection(), client } as unknown as Parameters<typeof createS3BlobStore>[0];
      expect(() => createS3BlobStore(mixed)).toThrow(/either client or/);
      const leaking = () => createS3BlobStore({ ...connection(), endpoint: "http://user:pw@127.0.0.1:1" });
      expect(leaking).toThrow(TypeError);
      expect(leaking).not.toThrow(/pw/);
    } finally {
      client.destroy();
    }
  });
});
