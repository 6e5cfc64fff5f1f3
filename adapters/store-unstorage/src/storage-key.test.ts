import { createStorage, normalizeKey } from "unstorage";
import { describe, expect, it } from "vitest";
import { fromStorageKey, storageBaseFor, toStorageKey } from "./storage-key.ts";

const tricky = [
  "a",
  "a:b",
  "a::b",
  "a:",
  "a::",
  "a:.",
  "a:..",
  "a:...",
  "a:..:b",
  "a.:b",
  "a:.b",
  "a-b",
  "A",
  `a${":".repeat(511)}`,
];

describe("toStorageKey", () => {
  it("survives unstorage's key normalisation unchanged", () => {
    for (const key of tricky) {
      expect(normalizeKey(toStorageKey(key))).toBe(toStorageKey(key));
    }
  });

  it("is one-to-one and reversible", () => {
    const mapped = tricky.map(toStorageKey);
    expect(new Set(mapped).size).toBe(tricky.length);
    for (const key of tricky) expect(fromStorageKey(toStorageKey(key))).toBe(key);
  });

  it("keeps segments: a:..:b becomes a:~..:b, not a path step", () => {
    expect(toStorageKey("a:..:b")).toBe("a:~..:b");
    expect(toStorageKey("a::b")).toBe("a:~:b");
    expect(toStorageKey("orders:1")).toBe("orders:1");
  });

  it("round-trips through a real unstorage instance without collisions", async () => {
    const storage = createStorage();
    for (const [index, key] of tricky.entries()) await storage.setItem(toStorageKey(key), String(index));
    const back = (await storage.getKeys()).map(fromStorageKey).sort();
    expect(back).toEqual([...tricky].sort());
  });
});

describe("fromStorageKey", () => {
  it("refuses keys it did not make", () => {
    for (const foreign of ["~a", "a:~b", "", "x y", "a:$", "a:.."]) {
      expect(fromStorageKey(foreign)).toBeUndefined();
    }
  });
});

describe("storageBaseFor", () => {
  it("is the whole segments before the last separator", () => {
    expect(storageBaseFor("order")).toBe("");
    expect(storageBaseFor("orders:")).toBe("orders");
    expect(storageBaseFor("orders:12")).toBe("orders");
    expect(storageBaseFor("a::b")).toBe("a:~");
    expect(storageBaseFor("")).toBe("");
  });
});
