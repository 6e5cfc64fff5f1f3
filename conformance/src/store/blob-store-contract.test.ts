import { createHash } from "node:crypto";
import type { Blob, BlobBody, BlobInfo, BlobStore } from "@mailpiece/ports";
import { isValidKey, MAX_BLOB_BYTES, PortError } from "@mailpiece/ports";
import { describe, expect, it } from "vitest";
import { runSuite, type SuiteReport } from "../kit.ts";
import type { BlobStoreContractName } from "./blob-store-contract.ts";
import {
  BLOB_STORE_CONTRACT_NAMES,
  BLOB_STORE_GET_STREAM_TESTS,
  BLOB_STORE_PUT_STREAM_TESTS,
  blobStoreContract,
} from "./blob-store-contract.ts";

type Fault =
  | "no key check"
  | "no size check"
  | "limit off by one"
  | "keeps the caller's buffer"
  | "upper-case sha256"
  | "delete always true"
  | "delete then write"
  | "no streams"
  | "putStream: no key check"
  | "getStream: no key check"
  | "putStream: keeps the caller's chunks"
  | "putStream: writes as it reads"
  | "putStream: limit off by one"
  | "putStream: no size check"
  | "putStream: ignores the declared size"
  | "putStream: keeps a failed body's bytes"
  | "getStream: drops the last byte";

/** A deliberately plain in-memory BlobStore: correct with no faults. */
function referenceBlobs(
  faults: ReadonlySet<Fault>,
  durable = false,
  data = new Map<string, Blob>(),
): BlobStore {
  const check = (key: unknown, fault?: Fault) => {
    if (faults.has("no key check") || (fault && faults.has(fault))) return;
    if (!isValidKey(key)) throw new PortError("invalid_key", "invalid key");
  };
  const tick = () => new Promise<void>((resolve) => setImmediate(resolve));
  const infoOf = (key: string, bytes: Uint8Array, contentType: string | undefined): BlobInfo => {
    let sha256 = createHash("sha256").update(bytes).digest("hex");
    if (faults.has("upper-case sha256")) sha256 = sha256.toUpperCase();
    return { key, size: bytes.byteLength, contentType: contentType ?? "application/octet-stream", sha256 };
  };
  const blobs: BlobStore = {
    name: "reference",
    capabilities: { durable, shared: false },
    async put(key, bytes, options) {
      check(key);
      const tooLarge = faults.has("limit off by one")
        ? bytes.byteLength >= MAX_BLOB_BYTES
        : bytes.byteLength > MAX_BLOB_BYTES;
      if (tooLarge && !faults.has("no size check")) throw new PortError("blob_too_large", "too large");
      const info = infoOf(key, bytes, options?.contentType);
      const kept = faults.has("keeps the caller's buffer") ? bytes : Uint8Array.from(bytes);
      if (faults.has("delete then write")) {
        data.delete(key);
        await tick();
      }
      data.set(key, { info, bytes: kept });
      return { ...info };
    },
    async get(key) {
      check(key);
      const blob = data.get(key);
      return blob ? { info: { ...blob.info }, bytes: Uint8Array.from(blob.bytes) } : undefined;
    },
    async head(key) {
      check(key);
      const blob = data.get(key);
      return blob ? { ...blob.info } : undefined;
    },
    async delete(key) {
      check(key);
      const had = data.delete(key);
      return faults.has("delete always true") || had;
    },
    async close() {},
  };
  if (faults.has("no streams")) return blobs;

  blobs.putStream = async (key, body, options) => {
    check(key, "putStream: no key check");
    const declared = faults.has("putStream: ignores the declared size") ? undefined : options?.size;
    if (declared !== undefined && declared > MAX_BLOB_BYTES)
      throw new PortError("blob_too_large", "too large");
    const chunks: Uint8Array[] = [];
    let size = 0;
    const partial = () => new Uint8Array(Buffer.concat(chunks));
    try {
      for await (const chunk of chunksOf(body)) {
        chunks.push(faults.has("putStream: keeps the caller's chunks") ? chunk : chunk.slice());
        size += chunk.byteLength;
        const over = faults.has("putStream: limit off by one")
          ? size >= MAX_BLOB_BYTES
          : size > MAX_BLOB_BYTES;
        if (over && !faults.has("putStream: no size check"))
          throw new PortError("blob_too_large", "too large");
        if (faults.has("putStream: writes as it reads")) {
          const bytes = partial();
          data.set(key, { info: infoOf(key, bytes, options?.contentType), bytes });
        }
      }
    } catch (error) {
      if (faults.has("putStream: keeps a failed body's bytes")) {
        const bytes = partial();
        data.set(key, { info: infoOf(key, bytes, options?.contentType), bytes });
      }
      throw error;
    }
    if (declared !== undefined && declared !== size)
      throw new RangeError("the body is not of the declared size");
    // The caller's chunks are joined only here, so the fault of keeping them shows once the caller reuses them.
    const info = infoOf(key, partial(), options?.contentType);
    const kept = chunks;
    const blob: Blob = {
      info,
      get bytes() {
        return new Uint8Array(Buffer.concat(kept));
      },
    };
    data.set(key, blob);
    return { ...info };
  };

  blobs.getStream = async (key) => {
    check(key, "getStream: no key check");
    const blob = data.get(key);
    if (!blob) return undefined;
    let bytes = blob.bytes.slice();
    if (faults.has("getStream: drops the last byte") && bytes.byteLength > 0) bytes = bytes.subarray(0, -1);
    let sent = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent >= bytes.byteLength) {
          controller.close();
          return;
        }
        controller.enqueue(bytes.slice(sent, sent + 65_536));
        sent += 65_536;
      },
    });
    return { info: { ...blob.info }, body };
  };
  return blobs;
}

async function* chunksOf(body: BlobBody): AsyncIterable<Uint8Array> {
  if (body instanceof ReadableStream) {
    const reader = body.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      yield value;
    }
  }
  yield* body;
}

const DURABLE: BlobStoreContractName = "durable: acknowledged blobs survive reopen";
const NOT_DURABLE = [DURABLE, "the blob store declares durable: false"];

/** The tests that answered not applicable, with their reasons. */
const notApplicableIn = (report: SuiteReport) =>
  report.outcomes.filter((o) => o.status === "not_applicable").map((o) => [o.name, o.reason]);

async function runOne(
  name: BlobStoreContractName,
  faults: Fault[],
): Promise<{ ok: boolean; error?: string }> {
  const suite = blobStoreContract({ create: async () => referenceBlobs(new Set(faults)) });
  const test = suite.tests.find((t) => t.name === name);
  if (!test) throw new Error(`no test ${name}`);
  const report = await runSuite({ name: suite.name, tests: [test] });
  const outcome = report.outcomes[0];
  return { ok: outcome?.status === "passed", ...(outcome?.reason ? { error: outcome.reason } : {}) };
}

describe("blobStoreContract", () => {
  it("has one test per name, in the order of BLOB_STORE_CONTRACT_NAMES", () => {
    const suite = blobStoreContract({ create: async () => referenceBlobs(new Set()) });
    expect(suite.tests.map((t) => t.name)).toEqual([...BLOB_STORE_CONTRACT_NAMES]);
  });

  it("passes a correct blob store, running its stream tests", async () => {
    const report = await runSuite(blobStoreContract({ create: async () => referenceBlobs(new Set()) }));
    expect(report.outcomes.filter((o) => o.status === "failed")).toEqual([]);
    expect(notApplicableIn(report), "it declares durable: false").toEqual([NOT_DURABLE]);
  }, 60_000);

  const caught: Array<[Fault, BlobStoreContractName]> = [
    ["no key check", "rejects invalid keys with invalid_key"],
    ["no size check", "refuses a blob over MAX_BLOB_BYTES with blob_too_large and changes nothing"],
    ["limit off by one", "accepts a blob of exactly MAX_BLOB_BYTES"],
    [
      "keeps the caller's buffer",
      "get returns exactly the bytes last put, with size, contentType and sha256",
    ],
    ["upper-case sha256", "get returns exactly the bytes last put, with size, contentType and sha256"],
    ["delete always true", "delete returns whether a blob was removed; get and head then return undefined"],
    ["delete then write", "put is atomic: readers see the old or the new bytes, never a mix"],
    ["putStream: no key check", "rejects invalid keys with invalid_key"],
    ["getStream: no key check", "rejects invalid keys with invalid_key"],
    [
      "putStream: keeps the caller's chunks",
      "putStream stores the streamed bytes like put, with size, contentType and sha256",
    ],
    ["upper-case sha256", "putStream stores the streamed bytes like put, with size, contentType and sha256"],
    [
      "putStream: writes as it reads",
      "putStream is atomic: readers see the old or the new bytes, never a mix",
    ],
    ["putStream: limit off by one", "putStream accepts a body of exactly MAX_BLOB_BYTES"],
    [
      "putStream: no size check",
      "putStream refuses a body over MAX_BLOB_BYTES with blob_too_large and leaves no blob behind",
    ],
    [
      "putStream: ignores the declared size",
      "putStream refuses a body whose length differs from the declared size, changing nothing",
    ],
    ["putStream: keeps a failed body's bytes", "putStream changes nothing when the body fails"],
    [
      "getStream: drops the last byte",
      "getStream streams exactly the bytes and info of the blob, or undefined when absent",
    ],
  ];
  for (const [fault, test] of caught) {
    it(`catches a blob store with the fault "${fault}" in "${test}"`, async () => {
      expect((await runOne(test, [fault])).ok).toBe(false);
      expect((await runOne(test, [])).ok, "the same test passes without the fault").toBe(true);
    }, 60_000);
  }

  it("passes a correct blob store without putStream and getStream, whose stream tests answer not applicable", async () => {
    const report = await runSuite(
      blobStoreContract({ create: async () => referenceBlobs(new Set(["no streams"])) }),
    );
    expect(report.outcomes.filter((o) => o.status === "failed")).toEqual([]);
    expect(notApplicableIn(report)).toEqual([
      NOT_DURABLE,
      ...BLOB_STORE_PUT_STREAM_TESTS.map((name) => [name, "the blob store has no putStream"]),
      ...BLOB_STORE_GET_STREAM_TESTS.map((name) => [name, "the blob store has no getStream"]),
    ]);
  }, 60_000);

  it("answers not applicable for the durability test of a blob store that declares durable: false, even with reopen", async () => {
    const suite = blobStoreContract({
      create: async () => referenceBlobs(new Set()),
      reopen: async () => referenceBlobs(new Set()),
    });
    const report = await runSuite({ name: suite.name, tests: suite.tests.filter((t) => t.name === DURABLE) });
    expect(notApplicableIn(report)).toEqual([NOT_DURABLE]);
  });

  it("fails the durability test of a durable blob store when reopen is missing, saying so", async () => {
    const suite = blobStoreContract({ create: async () => referenceBlobs(new Set(), true) });
    const test = suite.tests.find((t) => t.name === DURABLE);
    expect(test).toBeDefined();
    await expect(test?.run()).rejects.toThrow(/pass reopen/);
  });

  it("checks durability through reopen", async () => {
    const run = async (keep: boolean) => {
      const datas = new WeakMap<BlobStore, Map<string, Blob>>();
      const open = (data: Map<string, Blob>) => {
        const blobs = referenceBlobs(new Set(), true, data);
        datas.set(blobs, data);
        return blobs;
      };
      const suite = blobStoreContract({
        create: async () => open(new Map()),
        reopen: async (previous) => open(keep ? (datas.get(previous) ?? new Map()) : new Map()),
      });
      const test = suite.tests.find((t) => t.name === DURABLE);
      return (
        (await runSuite({ name: suite.name, tests: test ? [test] : [] })).outcomes[0]?.status === "passed"
      );
    };
    expect(await run(true)).toBe(true);
    expect(await run(false)).toBe(false);
  });
});
