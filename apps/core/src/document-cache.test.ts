import { describe, expect, it } from "vitest";
import { createDocumentCache } from "./document-cache.ts";

const doc = (n: number) => ({ bytes: new Uint8Array(n) });

describe("createDocumentCache", () => {
  it("keeps entries within the byte bound, dropping the least recently used first", () => {
    const cache = createDocumentCache(100);
    cache.set("a", doc(40));
    cache.set("b", doc(40));
    expect(cache.get("a")).toBeDefined(); // a is now the most recent
    cache.set("c", doc(40)); // over the bound: b, the least recent, leaves
    expect(cache.get("b")).toBeUndefined();
    expect(cache.get("a")).toBeDefined();
    expect(cache.get("c")).toBeDefined();
    expect(cache.size).toBe(2);
  });

  it("never keeps an entry larger than the bound, and replaces an entry under the same key", () => {
    const cache = createDocumentCache(100);
    cache.set("big", doc(101));
    expect(cache.get("big")).toBeUndefined();
    cache.set("a", doc(60));
    cache.set("a", doc(30));
    cache.set("b", doc(60));
    expect(cache.get("a")?.bytes.byteLength).toBe(30);
    expect(cache.get("b")).toBeDefined();
  });
});
