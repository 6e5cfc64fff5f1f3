import { strict as assert } from "node:assert";
import { createHash } from "node:crypto";
import type { Blob, BlobInfo, BlobStore } from "@mailpiece/ports";
import { MAX_BLOB_BYTES } from "@mailpiece/ports";
import type { ContractTest, Suite } from "../kit.ts";
import { rejectsWithCode } from "./rejects-with-code.ts";

/** The names of the BlobStore contract tests, one per MUST sentence of the BlobStore port. */
export const BLOB_STORE_CONTRACT_NAMES = [
  "rejects invalid keys with invalid_key",
  "get returns exactly the bytes last put, with size, contentType and sha256",
  "accepts a zero-byte blob",
  "accepts a blob of exactly MAX_BLOB_BYTES",
  "refuses a blob over MAX_BLOB_BYTES with blob_too_large and changes nothing",
  "put is atomic: readers see the old or the new bytes, never a mix",
  "delete returns whether a blob was removed; get and head then return undefined",
  "durable: acknowledged blobs survive reopen",
] as const;

export type BlobStoreContractName = (typeof BLOB_STORE_CONTRACT_NAMES)[number];

export interface BlobStoreContractOptions {
  /** Shown in reports, e.g. `file`. */
  name?: string;
  /** Opens a new, empty blob store. Every test opens its own and closes it when done. */
  create(): Promise<BlobStore>;
  /** Opens the data of `previous` again, as a restarted process would; the suite has closed `previous` first. */
  reopen?(previous: BlobStore): Promise<BlobStore>;
}

/** The BlobStore contract: one named test per MUST sentence of `BlobStore` (adapters/ports/src/blob-store.ts). */
export function blobStoreContract(options: BlobStoreContractOptions): Suite<BlobStoreContractName> {
  const withBlobs =
    (body: (blobs: BlobStore) => Promise<void>): (() => Promise<void>) =>
    async () => {
      const blobs = await options.create();
      try {
        await body(blobs);
      } finally {
        await blobs.close();
      }
    };

  const tests: Record<BlobStoreContractName, () => Promise<void>> = {
    "rejects invalid keys with invalid_key": withBlobs(async (blobs) => {
      await blobs.put("keep", bytesOf("kept"));
      const invalid: unknown[] = [
        "",
        ":a",
        "a/b",
        "../x",
        "a b",
        "a\\b",
        "é",
        `a${"b".repeat(512)}`,
        7,
        undefined,
      ];
      for (const raw of invalid) {
        const key = raw as string;
        const label = JSON.stringify(raw) ?? String(raw);
        await rejectsWithCode(() => blobs.put(key, bytesOf("x")), "invalid_key", `put(${label})`);
        await rejectsWithCode(() => blobs.get(key), "invalid_key", `get(${label})`);
        await rejectsWithCode(() => blobs.head(key), "invalid_key", `head(${label})`);
        await rejectsWithCode(() => blobs.delete(key), "invalid_key", `delete(${label})`);
      }
      const kept = await blobs.get("keep");
      assert.ok(kept, "the blob written before is still there");
      assert.equal(Buffer.from(kept.bytes).toString("utf8"), "kept");
    }),

    "get returns exactly the bytes last put, with size, contentType and sha256": withBlobs(async (blobs) => {
      const input = patterned(300_001, 7);
      const expected = Uint8Array.from(input);
      const info = await blobs.put("docs:letter.pdf", input, { contentType: "application/pdf" });
      assertInfo(info, { key: "docs:letter.pdf", bytes: expected, contentType: "application/pdf" }, "put");
      input.fill(0);
      const blob = await blobs.get("docs:letter.pdf");
      assert.ok(blob, "get finds the blob");
      assertBlob(blob, { key: "docs:letter.pdf", bytes: expected, contentType: "application/pdf" }, "get");
      blob.bytes.fill(1);
      const again = await blobs.get("docs:letter.pdf");
      assert.ok(again);
      assertBlob(
        again,
        { key: "docs:letter.pdf", bytes: expected, contentType: "application/pdf" },
        "get after mutation",
      );
      assert.deepEqual(await blobs.head("docs:letter.pdf"), again.info, "head returns the same info as get");

      const replaced = bytesOf("%PDF-1.7 replaced");
      await blobs.put("docs:letter.pdf", replaced, { contentType: "application/x-pdf" });
      const latest = await blobs.get("docs:letter.pdf");
      assert.ok(latest);
      assertBlob(
        latest,
        { key: "docs:letter.pdf", bytes: replaced, contentType: "application/x-pdf" },
        "get after replace",
      );
      assert.deepEqual(await blobs.head("docs:letter.pdf"), latest.info);

      const plain = await blobs.put("docs:plain", bytesOf("no type"));
      assert.equal(typeof plain.contentType, "string", "a blob put without contentType still has one");
      assert.ok(plain.contentType.length > 0);
      assert.equal(await blobs.get("docs:absent"), undefined);
      assert.equal(await blobs.head("docs:absent"), undefined);
    }),

    "accepts a zero-byte blob": withBlobs(async (blobs) => {
      const empty = new Uint8Array(0);
      const info = await blobs.put("empty", empty, { contentType: "application/octet-stream" });
      assertInfo(info, { key: "empty", bytes: empty, contentType: "application/octet-stream" }, "put");
      const blob = await blobs.get("empty");
      assert.ok(blob, "a zero-byte blob exists once put");
      assertBlob(blob, { key: "empty", bytes: empty, contentType: "application/octet-stream" }, "get");
      assert.equal(
        blob.info.sha256,
        "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
        "the sha256 of zero bytes",
      );
      assert.deepEqual(await blobs.head("empty"), blob.info);
      assert.equal(await blobs.delete("empty"), true);
    }),

    "accepts a blob of exactly MAX_BLOB_BYTES": withBlobs(async (blobs) => {
      const big = Buffer.alloc(MAX_BLOB_BYTES, patterned(4093, 3));
      big.writeUInt32BE(0xdeadbeef, MAX_BLOB_BYTES - 4);
      const sha256 = sha256Hex(big);
      const info = await blobs.put("big", big, { contentType: "application/pdf" });
      assert.deepEqual(info, { key: "big", size: MAX_BLOB_BYTES, contentType: "application/pdf", sha256 });
      const blob = await blobs.get("big");
      assert.ok(blob, "the largest allowed blob is stored");
      assert.equal(blob.bytes.byteLength, MAX_BLOB_BYTES);
      assert.ok(
        Buffer.from(blob.bytes.buffer, blob.bytes.byteOffset, blob.bytes.byteLength).equals(big),
        "same bytes",
      );
      assert.deepEqual(blob.info, info);
      assert.deepEqual(await blobs.head("big"), info);
      assert.equal(await blobs.delete("big"), true);
    }),

    "refuses a blob over MAX_BLOB_BYTES with blob_too_large and changes nothing": withBlobs(async (blobs) => {
      const small = bytesOf("the old bytes");
      const before = await blobs.put("doc", small, { contentType: "text/plain" });
      const tooLarge = new Uint8Array(MAX_BLOB_BYTES + 1);
      await rejectsWithCode(
        () => blobs.put("doc", tooLarge),
        "blob_too_large",
        "put of MAX_BLOB_BYTES + 1 over a blob",
      );
      await rejectsWithCode(
        () => blobs.put("fresh", tooLarge),
        "blob_too_large",
        "put of MAX_BLOB_BYTES + 1",
      );
      const blob = await blobs.get("doc");
      assert.ok(blob);
      assertBlob(blob, { key: "doc", bytes: small, contentType: "text/plain" }, "the old blob is unchanged");
      assert.deepEqual(blob.info, before);
      assert.equal(await blobs.get("fresh"), undefined, "nothing was stored under the fresh key");
      assert.equal(await blobs.head("fresh"), undefined);
    }),

    "put is atomic: readers see the old or the new bytes, never a mix": withBlobs(async (blobs) => {
      const versions = [patterned(262_144, 1), patterned(262_147, 2), patterned(1, 3), new Uint8Array(0)];
      const known = new Map(versions.map((bytes) => [sha256Hex(bytes), bytes]));
      await blobs.put("atomic", Uint8Array.from(versions[0] as Uint8Array));
      const check = (blob: Blob | undefined, what: string): void => {
        assert.ok(blob, `${what}: the blob never disappears while it is replaced`);
        const actual = sha256Hex(blob.bytes);
        const match = known.get(actual);
        assert.ok(match, `${what}: the bytes are exactly one of the versions put, never a mix`);
        assert.equal(blob.info.sha256, actual, `${what}: info.sha256 describes the bytes returned`);
        assert.equal(
          blob.info.size,
          blob.bytes.byteLength,
          `${what}: info.size describes the bytes returned`,
        );
      };
      const work: Promise<void>[] = [];
      for (let round = 0; round < 12; round++) {
        const bytes = versions[round % versions.length] as Uint8Array;
        work.push(blobs.put("atomic", Uint8Array.from(bytes)).then(() => undefined));
        for (let reader = 0; reader < 3; reader++) {
          work.push(blobs.get("atomic").then((blob) => check(blob, `read ${round}.${reader}`)));
        }
        work.push(
          blobs.head("atomic").then((info) => {
            assert.ok(info && known.has(info.sha256), `head ${round}: describes one of the versions put`);
          }),
        );
      }
      await Promise.all(work);
      const last = await blobs.get("atomic");
      check(last, "final read");
      assert.deepEqual(await blobs.head("atomic"), last?.info, "head and get agree after the writes");
    }),

    "delete returns whether a blob was removed; get and head then return undefined": withBlobs(
      async (blobs) => {
        assert.equal(await blobs.delete("doc"), false, "deleting an absent blob returns false");
        await blobs.put("doc", bytesOf("bytes"));
        await blobs.put("other", bytesOf("other"));
        assert.equal(await blobs.delete("doc"), true, "deleting a blob returns true");
        assert.equal(await blobs.get("doc"), undefined, "get returns undefined after delete");
        assert.equal(await blobs.head("doc"), undefined, "head returns undefined after delete");
        assert.equal(await blobs.delete("doc"), false, "a second delete returns false");
        const other = await blobs.get("other");
        assert.ok(other, "deleting one blob leaves the others");
        await blobs.put("doc", bytesOf("again"));
        assert.equal(
          Buffer.from((await blobs.get("doc"))?.bytes ?? []).toString("utf8"),
          "again",
          "put after delete",
        );
        const concurrent = await Promise.all(Array.from({ length: 10 }, () => blobs.delete("other")));
        assert.equal(
          concurrent.filter(Boolean).length,
          1,
          "of concurrent deletes, exactly one removes the blob",
        );
      },
    ),

    "durable: acknowledged blobs survive reopen": async () => {
      const blobs = await options.create();
      let current: BlobStore | undefined = blobs;
      try {
        if (!options.reopen) {
          assert.equal(
            blobs.capabilities.durable,
            false,
            "this blob store declares durable: true; pass reopen to blobStoreContract so the suite can check that acknowledged blobs survive a restart",
          );
          return;
        }
        if (!blobs.capabilities.durable) return;
        const letter = patterned(70_000, 5);
        await blobs.put("d:letter", bytesOf("first version"));
        await blobs.put("d:letter", letter, { contentType: "application/pdf" });
        await blobs.put("d:empty", new Uint8Array(0), { contentType: "text/plain" });
        await blobs.put("d:gone", bytesOf("gone"));
        await blobs.delete("d:gone");
        current = undefined;
        await blobs.close();
        current = await options.reopen(blobs);
        const blob = await current.get("d:letter");
        assert.ok(blob, "the blob survives");
        assertBlob(blob, { key: "d:letter", bytes: letter, contentType: "application/pdf" }, "after reopen");
        const empty = await current.get("d:empty");
        assert.ok(empty, "a zero-byte blob survives");
        assertBlob(
          empty,
          { key: "d:empty", bytes: new Uint8Array(0), contentType: "text/plain" },
          "after reopen",
        );
        assert.equal(await current.head("d:gone"), undefined, "deletes survive");
      } finally {
        await current?.close();
      }
    },
  };

  return {
    name: options.name ? `blob store contract (${options.name})` : "blob store contract",
    tests: BLOB_STORE_CONTRACT_NAMES.map((name): ContractTest & { name: BlobStoreContractName } => ({
      name,
      run: tests[name],
    })),
  };
}

function bytesOf(text: string): Uint8Array {
  return new TextEncoder().encode(text);
}

/** Deterministic, non-repeating-looking bytes: cheap to make, and any mix of two versions is detectable. */
function patterned(length: number, seed: number): Uint8Array {
  const bytes = new Uint8Array(length);
  let state = (seed * 2654435761) >>> 0 || 1;
  for (let i = 0; i < length; i++) {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    bytes[i] = state & 0xff;
  }
  return bytes;
}

function sha256Hex(bytes: Uint8Array): string {
  return createHash("sha256").update(bytes).digest("hex");
}

function assertInfo(
  info: BlobInfo,
  expected: { key: string; bytes: Uint8Array; contentType: string },
  what: string,
): void {
  assert.deepEqual(
    info,
    {
      key: expected.key,
      size: expected.bytes.byteLength,
      contentType: expected.contentType,
      sha256: sha256Hex(expected.bytes),
    },
    `${what}: info holds the key, size, contentType and lowercase hex sha256`,
  );
}

function assertBlob(
  blob: Blob,
  expected: { key: string; bytes: Uint8Array; contentType: string },
  what: string,
): void {
  assertInfo(blob.info, expected, what);
  assert.ok(blob.bytes instanceof Uint8Array, `${what}: bytes is a Uint8Array`);
  assert.equal(blob.bytes.byteLength, expected.bytes.byteLength, `${what}: as many bytes as were put`);
  assert.ok(Buffer.from(blob.bytes).equals(Buffer.from(expected.bytes)), `${what}: exactly the bytes put`);
}
