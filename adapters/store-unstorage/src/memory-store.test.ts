import { blobStoreContract, storeContract } from "@mailpiece/conformance";
import { registerSuite } from "@mailpiece/conformance/vitest";
import { describe, expect, it } from "vitest";
import { createMemoryBlobStore, createMemoryStore } from "./memory-store.ts";

registerSuite(storeContract({ name: "memory", create: async ({ clock }) => createMemoryStore({ clock }) }));
registerSuite(blobStoreContract({ name: "memory", create: async () => createMemoryBlobStore() }), {
  timeoutMs: 60_000,
});

describe("createMemoryStore", () => {
  it("declares that it is neither durable nor shared", () => {
    expect(createMemoryStore().capabilities).toEqual({ durable: false, shared: false });
    expect(createMemoryBlobStore().capabilities).toEqual({ durable: false, shared: false });
  });
});
