import { strict as assert } from "node:assert";
import { createHash } from "node:crypto";
import type { Blob, BlobInfo, BlobStore } from "@mailpiece/ports";
import { MAX_BLOB_BYTES, PortError } from "@mailpiece/ports";
import { kitTests, notApplicable, type Suite, type TestBody } from "../kit.ts";
import { refusalAssertion } from "../refused-with.ts";
import { BLOB_STORE_REQUIREMENTS } from "./blob-store-requirements.ts";

const rejectsWithCode = refusalAssertion(PortError);

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
  "putStream stores the streamed bytes like put, with size, contentType and sha256",
  "putStream is atomic: readers see the old or the new bytes, never a mix",
  "putStream accepts a body of exactly MAX_BLOB_BYTES",
  "putStream refuses a body over MAX_BLOB_BYTES with blob_too_large and leaves no blob behind",
  "putStream refuses a body whose length differs from the declared size, changing nothing",
  "putStream changes nothing when the body fails",
  "getStream streams exactly the bytes and info of the blob, or undefined when absent",
] as const;

export type BlobStoreContractName = (typeof BLOB_STORE_CONTRACT_NAMES)[number];

/** The tests of `putStream` (those whose name starts with it): they answer not applicable for a store without it. */
export const BLOB_STORE_PUT_STREAM_TESTS: readonly BlobStoreContractName[] = BLOB_STORE_CONTRACT_NAMES.filter(
  (name) => name.startsWith("putStream "),
);

/** The tests of `getStream` (those whose name starts with it): they answer not applicable for a store without it. */
export const BLOB_STORE_GET_STREAM_TESTS: readonly BlobStoreContractName[] = BLOB_STORE_CONTRACT_NAMES.filter(
  (name) => name.startsWith("getStream "),
);

const NOT_DURABLE = "the blob store declares durable: false";
const NO_PUT_STREAM = "the blob store has no putStream";
const NO_GET_STREAM = "the blob store has no getStream";

export interface BlobStoreContractOptions {
  /** Shown in reports, e.g. `file`. */
  name?: string;
  /** Opens a new, empty blob store. Every test opens its own and closes it when done. */
  create(): Promise<BlobStore>;
  /** Opens the data of `previous` again, as a restarted process would; the suite has closed `previous` first. */
  reopen?(previous: BlobStore): Promise<BlobStore>;
  /** Tests that cannot apply to the adapter, left out of the suite; a name the kit does not have is refused. */
  disable?: readonly BlobStoreContractName[];
}

/**
 * The BlobStore contract: one named test per MUST sentence of `BlobStore` (adapters/ports/src/blob-store.ts). The
 * tests of `putStream` and `getStream` answer not applicable for a blob store that does not have the method, and
 * the durability test for one that declares `durable: false`.
 */
export function blobStoreContract(options: BlobStoreContractOptions): Suite<BlobStoreContractName> {
  const withBlobs =
    (body: (blobs: BlobStore) => ReturnType<TestBody>): TestBody =>
    async () => {
      const blobs = await options.create();
      try {
        return await body(blobs);
      } finally {
        await blobs.close();
      }
    };

  const tests: Record<BlobStoreContractName, TestBody> = {
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
        if (blobs.putStream) {
          const putStream = blobs.putStream.bind(blobs);
          await rejectsWithCode(
            () => putStream(key, iterableOf([bytesOf("x")])),
            "invalid_key",
            `putStream(${label})`,
          );
        }
        if (blobs.getStream) {
          const getStream = blobs.getStream.bind(blobs);
          await rejectsWithCode(() => getStream(key), "invalid_key", `getStream(${label})`);
        }
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
          return notApplicable(NOT_DURABLE);
        }
        if (!blobs.capabilities.durable) return notApplicable(NOT_DURABLE);
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

    "putStream stores the streamed bytes like put, with size, contentType and sha256": withBlobs(
      async (blobs) => {
        const putStream = putStreamOf(blobs);
        if (!putStream) return notApplicable(NO_PUT_STREAM);
        const chunks = [
          patterned(1, 1),
          new Uint8Array(0),
          patterned(7, 2),
          patterned(65_536, 3),
          patterned(300_001, 4),
        ];
        const expected = concat(chunks);
        const info = await putStream("docs:letter.pdf", webStreamOf(chunks), {
          contentType: "application/pdf",
        });
        assertInfo(
          info,
          { key: "docs:letter.pdf", bytes: expected, contentType: "application/pdf" },
          "putStream",
        );
        for (const chunk of chunks) chunk.fill(0);
        const blob = await blobs.get("docs:letter.pdf");
        assert.ok(blob, "get finds the streamed blob");
        assertBlob(
          blob,
          { key: "docs:letter.pdf", bytes: expected, contentType: "application/pdf" },
          "get after the caller reused its chunks",
        );
        assert.deepEqual(
          await blobs.head("docs:letter.pdf"),
          info,
          "head returns the info putStream returned",
        );
        assert.deepEqual(
          await blobs.put("docs:same", expected, { contentType: "application/pdf" }),
          { ...info, key: "docs:same" },
          "put of the same bytes returns the same info",
        );

        const replaced = [bytesOf("%PDF-1.7 "), bytesOf("replaced")];
        const again = await putStream("docs:letter.pdf", iterableOf(replaced), {
          contentType: "application/x-pdf",
          size: 17,
        });
        assertInfo(
          again,
          { key: "docs:letter.pdf", bytes: concat(replaced), contentType: "application/x-pdf" },
          "putStream over a blob, from an async iterable",
        );
        const latest = await blobs.get("docs:letter.pdf");
        assert.ok(latest);
        assertBlob(
          latest,
          { key: "docs:letter.pdf", bytes: concat(replaced), contentType: "application/x-pdf" },
          "get after the replacing putStream",
        );

        const empty = await putStream("docs:empty", iterableOf([]));
        assert.equal(empty.size, 0, "a body with no chunks is a zero-byte blob");
        assert.equal(empty.sha256, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
        assert.equal(typeof empty.contentType, "string", "a blob put without contentType still has one");
        assert.ok(empty.contentType.length > 0);
        const emptyBlob = await blobs.get("docs:empty");
        assert.ok(emptyBlob, "a zero-byte streamed blob exists");
        assertBlob(
          emptyBlob,
          { key: "docs:empty", bytes: new Uint8Array(0), contentType: empty.contentType },
          "get of a zero-byte streamed blob",
        );
      },
    ),

    "putStream is atomic: readers see the old or the new bytes, never a mix": withBlobs(async (blobs) => {
      const putStream = putStreamOf(blobs);
      if (!putStream) return notApplicable(NO_PUT_STREAM);
      const versions = [patterned(196_608, 11), patterned(196_611, 12), patterned(1, 13), new Uint8Array(0)];
      const known = new Map(versions.map((bytes) => [sha256Hex(bytes), bytes]));
      await blobs.put("atomic", Uint8Array.from(versions[0] as Uint8Array));
      let reads = 0;
      for (let round = 0; round < 6; round++) {
        const bytes = versions[(round + 1) % versions.length] as Uint8Array;
        let written = false;
        // The body yields small chunks with a turn of the event loop between them, so readers run in the middle.
        const writing: Promise<BlobInfo> = putStream("atomic", slowIterableOf(bytes, 16_384)).finally(() => {
          written = true;
        });
        const readers = Array.from({ length: 3 }, async (_, reader) => {
          do {
            const what = `round ${round}, reader ${reader}, read ${reads++}`;
            const blob = await blobs.get("atomic");
            assert.ok(blob, `${what}: the blob never disappears while it is replaced`);
            const actual = sha256Hex(blob.bytes);
            assert.ok(
              known.has(actual),
              `${what}: the bytes are exactly one of the versions put, never a part`,
            );
            assert.equal(blob.info.sha256, actual, `${what}: info.sha256 describes the bytes returned`);
            assert.equal(
              blob.info.size,
              blob.bytes.byteLength,
              `${what}: info.size describes the bytes returned`,
            );
            const head = await blobs.head("atomic");
            assert.ok(head && known.has(head.sha256), `${what}: head describes one of the versions put`);
            // A turn of the event loop, so that a store answering without I/O still lets the body go on.
            await nextTurn();
          } while (!written);
        });
        const [returned] = await Promise.all([writing, ...readers]);
        assert.equal(
          returned.sha256,
          sha256Hex(bytes),
          `round ${round}: putStream returns the info of its body`,
        );
      }
      const last = await blobs.get("atomic");
      assert.ok(last);
      assert.equal(sha256Hex(last.bytes), sha256Hex(versions[6 % versions.length] as Uint8Array));
    }),

    "putStream accepts a body of exactly MAX_BLOB_BYTES": withBlobs(async (blobs) => {
      const putStream = putStreamOf(blobs);
      if (!putStream) return notApplicable(NO_PUT_STREAM);
      const body = largeBody(MAX_BLOB_BYTES, 21);
      const info = await putStream("big", body.chunks(), { contentType: "application/pdf" });
      assert.deepEqual(info, {
        key: "big",
        size: MAX_BLOB_BYTES,
        contentType: "application/pdf",
        sha256: body.sha256,
      });
      assert.deepEqual(await blobs.head("big"), info, "head describes the streamed blob");
      const blob = await blobs.get("big");
      assert.ok(blob, "the largest allowed streamed blob is stored");
      assert.equal(blob.bytes.byteLength, MAX_BLOB_BYTES);
      assert.equal(sha256Hex(blob.bytes), body.sha256, "same bytes");
      assert.deepEqual(blob.info, info);
      assert.equal(await blobs.delete("big"), true);
    }),

    "putStream refuses a body over MAX_BLOB_BYTES with blob_too_large and leaves no blob behind": withBlobs(
      async (blobs) => {
        const putStream = putStreamOf(blobs);
        if (!putStream) return notApplicable(NO_PUT_STREAM);
        const small = bytesOf("the old bytes");
        const before = await blobs.put("doc", small, { contentType: "text/plain" });
        const tooLarge = largeBody(MAX_BLOB_BYTES + 1, 22);
        await rejectsWithCode(
          () => putStream("doc", tooLarge.chunks()),
          "blob_too_large",
          "putStream of MAX_BLOB_BYTES + 1 over a blob",
        );
        await rejectsWithCode(
          () => putStream("fresh", tooLarge.chunks(), { contentType: "application/pdf" }),
          "blob_too_large",
          "putStream of MAX_BLOB_BYTES + 1",
        );
        let read = false;
        const unread = (async function* () {
          read = true;
          yield bytesOf("x");
        })();
        await rejectsWithCode(
          () => putStream("declared", unread, { size: MAX_BLOB_BYTES + 1 }),
          "blob_too_large",
          "putStream with size MAX_BLOB_BYTES + 1",
        );
        assert.equal(read, false, "a declared size over MAX_BLOB_BYTES is refused before the body is read");
        const blob = await blobs.get("doc");
        assert.ok(blob);
        assertBlob(
          blob,
          { key: "doc", bytes: small, contentType: "text/plain" },
          "the old blob is unchanged",
        );
        assert.deepEqual(blob.info, before);
        for (const key of ["fresh", "declared"]) {
          assert.equal(await blobs.get(key), undefined, `nothing was stored under ${key}`);
          assert.equal(await blobs.head(key), undefined);
        }
      },
    ),

    "putStream refuses a body whose length differs from the declared size, changing nothing": withBlobs(
      async (blobs) => {
        const putStream = putStreamOf(blobs);
        if (!putStream) return notApplicable(NO_PUT_STREAM);
        const small = bytesOf("the old bytes");
        const before = await blobs.put("doc", small, { contentType: "text/plain" });
        const shorter = [bytesOf("ten bytes!")];
        const longer = [bytesOf("twelve "), bytesOf("bytes")];
        await rejectsSomehow(
          () => putStream("doc", iterableOf(shorter), { size: 11 }),
          "10 bytes declared as 11",
        );
        await rejectsSomehow(
          () => putStream("doc", webStreamOf(longer), { size: 11 }),
          "12 bytes declared as 11",
        );
        await rejectsSomehow(
          () => putStream("fresh", iterableOf(longer), { size: 0 }),
          "12 bytes declared as 0",
        );
        await rejectsSomehow(() => putStream("fresh", iterableOf([]), { size: 1 }), "0 bytes declared as 1");
        const blob = await blobs.get("doc");
        assert.ok(blob);
        assertBlob(
          blob,
          { key: "doc", bytes: small, contentType: "text/plain" },
          "the old blob is unchanged",
        );
        assert.deepEqual(blob.info, before);
        assert.equal(await blobs.head("fresh"), undefined, "nothing was stored under a fresh key");
        const exact = await putStream("doc", iterableOf([bytesOf("eleven byte")]), { size: 11 });
        assert.equal(exact.size, 11, "a body of the declared size is stored");
        assert.equal((await putStream("zero", iterableOf([]), { size: 0 })).size, 0, "so is an empty one");
      },
    ),

    "putStream changes nothing when the body fails": withBlobs(async (blobs) => {
      const putStream = putStreamOf(blobs);
      if (!putStream) return notApplicable(NO_PUT_STREAM);
      const small = bytesOf("the old bytes");
      const before = await blobs.put("doc", small, { contentType: "text/plain" });
      const failing = (bytes: number) =>
        (async function* () {
          const chunk = patterned(65_536, 31);
          for (let sent = 0; sent < bytes; sent += chunk.byteLength) yield Uint8Array.from(chunk);
          throw new Error("the body failed");
        })();
      const erroring = new ReadableStream<Uint8Array>({
        start(controller) {
          controller.enqueue(bytesOf("some bytes"));
          controller.error(new Error("the stream failed"));
        },
      });
      await rejectsSomehow(() => putStream("doc", failing(200_000)), "a body that throws over a blob");
      await rejectsSomehow(() => putStream("doc", erroring), "a web stream that errors over a blob");
      await rejectsSomehow(
        () => putStream("doc", failing(12 * 1024 * 1024)),
        "a 12 MiB body that then throws",
      );
      await rejectsSomehow(() => putStream("fresh", failing(0)), "a body that throws at once");
      await rejectsSomehow(
        () => putStream("fresh", failing(12 * 1024 * 1024)),
        "a 12 MiB body under a fresh key",
      );
      const blob = await blobs.get("doc");
      assert.ok(blob);
      assertBlob(blob, { key: "doc", bytes: small, contentType: "text/plain" }, "the old blob is unchanged");
      assert.deepEqual(blob.info, before);
      assert.equal(await blobs.get("fresh"), undefined, "nothing was stored under a fresh key");
      assert.equal(await blobs.head("fresh"), undefined);
    }),

    "getStream streams exactly the bytes and info of the blob, or undefined when absent": withBlobs(
      async (blobs) => {
        const getStream = blobs.getStream?.bind(blobs);
        if (!getStream) return notApplicable(NO_GET_STREAM);
        assert.equal(await getStream("docs:absent"), undefined, "getStream of an absent blob");
        const bytes = patterned(300_001, 41);
        const info = await blobs.put("docs:letter.pdf", bytes, { contentType: "application/pdf" });
        const streamed = await getStream("docs:letter.pdf");
        assert.ok(streamed, "getStream finds the blob");
        assert.deepEqual(streamed.info, info, "getStream returns the info put returned");
        assert.deepEqual(await blobs.head("docs:letter.pdf"), streamed.info, "and the info head returns");
        const read = await readAll(streamed.body);
        assert.equal(read.byteLength, bytes.byteLength, "the body yields as many bytes as were put");
        assert.ok(Buffer.from(read).equals(Buffer.from(bytes)), "the body yields exactly the bytes put");

        await blobs.put("docs:empty", new Uint8Array(0), { contentType: "text/plain" });
        const empty = await getStream("docs:empty");
        assert.ok(empty, "getStream finds a zero-byte blob");
        assert.equal(empty.info.size, 0);
        assert.equal(
          (await readAll(empty.body)).byteLength,
          0,
          "the body of a zero-byte blob yields nothing",
        );

        const cancelled = await getStream("docs:letter.pdf");
        assert.ok(cancelled);
        const reader = cancelled.body.getReader();
        await reader.read();
        await reader.cancel();
        assert.equal(
          await blobs.delete("docs:letter.pdf"),
          true,
          "delete after a body was read in part and cancelled",
        );
        assert.equal(await getStream("docs:letter.pdf"), undefined, "getStream after delete");
      },
    ),
  };

  return {
    name: options.name ? `blob store contract (${options.name})` : "blob store contract",
    tests: kitTests(BLOB_STORE_CONTRACT_NAMES, tests, BLOB_STORE_REQUIREMENTS, options.disable),
  };
}

type PutStream = NonNullable<BlobStore["putStream"]>;

function putStreamOf(blobs: BlobStore): PutStream | undefined {
  return blobs.putStream?.bind(blobs);
}

function concat(chunks: readonly Uint8Array[]): Uint8Array {
  return new Uint8Array(Buffer.concat(chunks));
}

/** Yields each chunk in turn (the chunks themselves, not copies). */
function iterableOf(chunks: readonly Uint8Array[]): AsyncIterable<Uint8Array> {
  return (async function* () {
    yield* chunks;
  })();
}

/** A web stream of the chunks (the chunks themselves, not copies), one per pull. */
function webStreamOf(chunks: readonly Uint8Array[]): ReadableStream<Uint8Array> {
  let next = 0;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      const chunk = chunks[next++];
      if (chunk === undefined) controller.close();
      else controller.enqueue(chunk);
    },
  });
}

function nextTurn(): Promise<void> {
  return new Promise<void>((resolve) => setImmediate(resolve));
}

/** `bytes` in chunks of `chunkSize`, with a turn of the event loop before each. */
function slowIterableOf(bytes: Uint8Array, chunkSize: number): AsyncIterable<Uint8Array> {
  return (async function* () {
    for (let start = 0; start < bytes.byteLength; start += chunkSize) {
      await nextTurn();
      yield bytes.slice(start, start + chunkSize);
    }
  })();
}

const LARGE_CHUNK = 1024 * 1024;

/**
 * A body of `length` bytes that is never whole in memory: fresh 1 MiB chunks of a pattern, each stamped with its
 * index (so a lost, repeated or reordered chunk changes the hash), with its sha256.
 */
function largeBody(length: number, seed: number): { chunks(): AsyncIterable<Uint8Array>; sha256: string } {
  const template = patterned(LARGE_CHUNK, seed);
  function* parts(): Generator<Uint8Array> {
    for (let index = 0, start = 0; start < length; index++, start += LARGE_CHUNK) {
      const chunk = template.slice(0, Math.min(LARGE_CHUNK, length - start));
      if (chunk.byteLength >= 4) new DataView(chunk.buffer).setUint32(0, index);
      yield chunk;
    }
  }
  const hash = createHash("sha256");
  for (const part of parts()) hash.update(part);
  const sha256 = hash.digest("hex");
  return {
    chunks: () =>
      (async function* () {
        yield* parts();
      })(),
    sha256,
  };
}

async function readAll(body: ReadableStream<Uint8Array>): Promise<Uint8Array> {
  const chunks: Uint8Array[] = [];
  const reader = body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    assert.ok(value instanceof Uint8Array, "the body yields Uint8Array chunks");
    chunks.push(value);
  }
  return concat(chunks);
}

/** Asserts that `action` rejects, with any error. */
async function rejectsSomehow(action: () => Promise<unknown>, what: string): Promise<void> {
  let outcome: unknown;
  try {
    outcome = await action();
  } catch {
    return;
  }
  assert.fail(`${what}: expected putStream to reject, but it succeeded with ${JSON.stringify(outcome)}`);
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
