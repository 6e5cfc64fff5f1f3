import {
  BLOB_STORE_GET_STREAM_TESTS,
  BLOB_STORE_PUT_STREAM_TESTS,
  blobStoreContract,
  storeContract,
} from "@mailpiece/conformance";
import { registerSuite } from "@mailpiece/conformance/vitest";
import { describe, expect, it } from "vitest";
import { createMemoryBlobStore, createMemoryStore } from "./memory-store.ts";

// Neither durable nor shared, and without streams: those tests do not apply.
registerSuite(storeContract({ name: "memory", create: async ({ clock }) => createMemoryStore({ clock }) }), {
  notApplicable: [
    "durable: acknowledged writes survive reopen",
    "shared: among several processes at once, one create wins, compare-and-set is exact and no update is lost",
  ],
});
registerSuite(blobStoreContract({ name: "memory", create: async () => createMemoryBlobStore() }), {
  notApplicable: [
    "durable: acknowledged blobs survive reopen",
    ...BLOB_STORE_PUT_STREAM_TESTS,
    ...BLOB_STORE_GET_STREAM_TESTS,
  ],
  timeoutMs: 60_000,
});

describe("createMemoryStore", () => {
  it("declares that it is neither durable nor shared", () => {
    expect(createMemoryStore().capabilities).toEqual({ durable: false, shared: false });
    expect(createMemoryBlobStore().capabilities).toEqual({ durable: false, shared: false });
  });
});
