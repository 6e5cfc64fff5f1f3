import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PortError } from "@mailpiece/ports";
import { createStorage } from "unstorage";
import { afterAll, describe, expect, it } from "vitest";
import { atomicFsDriver } from "./atomic-fs-driver.ts";
import { decodeBlobHeader } from "./blob-item.ts";
import { createUnstorageBlobStore } from "./unstorage-blob-store.ts";

const capabilities = { durable: false, shared: false };
const roots: string[] = [];
afterAll(async () => {
  for (const root of roots) await rm(root, { recursive: true, force: true });
});

describe("createUnstorageBlobStore", () => {
  it("keeps a blob and its info in one item", async () => {
    const storage = createStorage();
    const blobs = createUnstorageBlobStore({ storage, name: "test", capabilities });
    await blobs.put("doc", new Uint8Array([1, 2, 3]), { contentType: "application/pdf" });
    const item = (await storage.getItemRaw("doc")) as Uint8Array;
    const decoded = decodeBlobHeader(item);
    expect(decoded.ok && decoded.header).toEqual({
      size: 3,
      contentType: "application/pdf",
      sha256: "039058c6f2c0cb492c533b0a4d14ef77cc0f78abccced5287d84a1a2011cfb81",
    });
    expect(decoded.ok && [...item.subarray(decoded.bodyOffset)]).toEqual([1, 2, 3]);
  });

  it("reads head from the first bytes of a file, and from the whole file when the header is long", async () => {
    const root = await mkdtemp(join(tmpdir(), "mailpiece-blob-head-"));
    roots.push(root);
    const blobs = createUnstorageBlobStore({
      storage: createStorage({ driver: atomicFsDriver({ base: root }) }),
      name: "test",
      capabilities,
    });
    const longType = `application/x-${"long".repeat(600)}`;
    await blobs.put("short", new Uint8Array(10_000), { contentType: "application/pdf" });
    await blobs.put("long", new Uint8Array(10_000), { contentType: longType });
    expect(await blobs.head("short")).toMatchObject({ size: 10_000, contentType: "application/pdf" });
    expect(await blobs.head("long")).toMatchObject({ size: 10_000, contentType: longType });
  });

  it("reports an item that is not a blob as store_unavailable", async () => {
    const storage = createStorage();
    const blobs = createUnstorageBlobStore({ storage, name: "test", capabilities });
    await storage.setItemRaw("junk", new Uint8Array([1, 2, 3, 4, 5, 6, 7, 8, 9]));
    const error = await blobs.get("junk").catch((e: unknown) => e);
    expect(PortError.isInstance(error) && error.code).toBe("store_unavailable");
    expect((error as Error).message).toBe('[mailpiece] [test-blob-store] the blob "junk" is unreadable');
  });
});
