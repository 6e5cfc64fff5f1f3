import { createHash } from "node:crypto";
import type { Blob, BlobInfo, BlobStore } from "@mailpiece/ports";
import { isValidKey, MAX_BLOB_BYTES, PortError } from "@mailpiece/ports";
import { describe, expect, it } from "vitest";
import { runSuite } from "../kit.ts";
import type { BlobStoreContractName } from "./blob-store-contract.ts";
import { BLOB_STORE_CONTRACT_NAMES, blobStoreContract } from "./blob-store-contract.ts";

type Fault =
  | "no key check"
  | "no size check"
  | "limit off by one"
  | "keeps the caller's buffer"
  | "upper-case sha256"
  | "delete always true"
  | "delete then write";

/** A deliberately plain in-memory BlobStore: correct with no faults. */
function referenceBlobs(
  faults: ReadonlySet<Fault>,
  durable = false,
  data = new Map<string, Blob>(),
): BlobStore {
  const check = (key: unknown) => {
    if (!faults.has("no key check") && !isValidKey(key)) throw new PortError("invalid_key", "invalid key");
  };
  const tick = () => new Promise<void>((resolve) => setImmediate(resolve));
  return {
    name: "reference",
    capabilities: { durable, shared: false },
    async put(key, bytes, options) {
      check(key);
      const tooLarge = faults.has("limit off by one")
        ? bytes.byteLength >= MAX_BLOB_BYTES
        : bytes.byteLength > MAX_BLOB_BYTES;
      if (tooLarge && !faults.has("no size check")) throw new PortError("blob_too_large", "too large");
      let sha256 = createHash("sha256").update(bytes).digest("hex");
      if (faults.has("upper-case sha256")) sha256 = sha256.toUpperCase();
      const info: BlobInfo = {
        key,
        size: bytes.byteLength,
        contentType: options?.contentType ?? "application/octet-stream",
        sha256,
      };
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
}

async function runOne(
  name: BlobStoreContractName,
  faults: Fault[],
): Promise<{ ok: boolean; error?: string }> {
  const suite = blobStoreContract({ create: async () => referenceBlobs(new Set(faults)) });
  const test = suite.tests.find((t) => t.name === name);
  if (!test) throw new Error(`no test ${name}`);
  const report = await runSuite({ name: suite.name, tests: [test] });
  const outcome = report.outcomes[0];
  return { ok: outcome?.ok ?? false, ...(outcome?.error ? { error: outcome.error } : {}) };
}

describe("blobStoreContract", () => {
  it("has one test per name, in the order of BLOB_STORE_CONTRACT_NAMES", () => {
    const suite = blobStoreContract({ create: async () => referenceBlobs(new Set()) });
    expect(suite.tests.map((t) => t.name)).toEqual([...BLOB_STORE_CONTRACT_NAMES]);
  });

  it("passes a correct blob store", async () => {
    const report = await runSuite(blobStoreContract({ create: async () => referenceBlobs(new Set()) }));
    expect(report.outcomes.filter((o) => !o.ok)).toEqual([]);
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
  ];
  for (const [fault, test] of caught) {
    it(`catches a blob store with the fault "${fault}" in "${test}"`, async () => {
      expect((await runOne(test, [fault])).ok).toBe(false);
      expect((await runOne(test, [])).ok, "the same test passes without the fault").toBe(true);
    }, 60_000);
  }

  it("fails the durability test of a durable blob store when reopen is missing, saying so", async () => {
    const suite = blobStoreContract({ create: async () => referenceBlobs(new Set(), true) });
    const test = suite.tests.find((t) => t.name === "durable: acknowledged blobs survive reopen");
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
      const test = suite.tests.find((t) => t.name === "durable: acknowledged blobs survive reopen");
      return (await runSuite({ name: suite.name, tests: test ? [test] : [] })).outcomes[0]?.ok;
    };
    expect(await run(true)).toBe(true);
    expect(await run(false)).toBe(false);
  });
});
