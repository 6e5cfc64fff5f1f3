import { describe, expect, it } from "vitest";
import { createSortedKeys } from "./sorted-keys.ts";

/** A small deterministic generator, so a failure repeats. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

describe("createSortedKeys", () => {
  it("keeps keys once each, in UTF-16 code unit order", () => {
    const keys = createSortedKeys(["k:b", "k:A", "k:a:", "k:a", "k:b", "k:_", "k:0"]);
    expect(keys.size).toBe(6);
    expect(keys.range("", undefined, 100)).toEqual(["k:0", "k:A", "k:_", "k:a", "k:a:", "k:b"]);
    keys.add("k:a-b");
    keys.add("k:a");
    keys.delete("k:A");
    keys.delete("k:missing");
    expect(keys.range("k:", undefined, 100)).toEqual(["k:0", "k:_", "k:a", "k:a-b", "k:a:", "k:b"]);
    expect(keys.has("k:a-b")).toBe(true);
    expect(keys.has("k:A")).toBe(false);
  });

  it("returns the keys under a prefix after a key, at most count of them", () => {
    const keys = createSortedKeys(["a", "order", "order-5", "order:2", "orders", "orders:1", "p:order"]);
    expect(keys.range("order", undefined, 10)).toEqual(["order", "order-5", "order:2", "orders", "orders:1"]);
    expect(keys.range("order", undefined, 2)).toEqual(["order", "order-5"]);
    expect(keys.range("order", "order-5", 10)).toEqual(["order:2", "orders", "orders:1"]);
    expect(keys.range("order", "order-4", 1), "after a key that is not there").toEqual(["order-5"]);
    expect(keys.range("order", "a", 10), "after a key below the prefix").toHaveLength(5);
    expect(keys.range("order", "orders:1", 10)).toEqual([]);
    expect(keys.range("order", "p", 10), "after a key above the prefix").toEqual([]);
    expect(keys.range("orders:1:", undefined, 10)).toEqual([]);
    expect(keys.range("zzz", undefined, 10)).toEqual([]);
  });

  it("agrees with filtering and sorting every key, through random adds and deletes", () => {
    const next = random(7);
    const alphabet = ["a", "b", "A", "0", ":", "-", ".", "_"];
    const word = (length: number) =>
      Array.from({ length }, () => alphabet[Math.floor(next() * alphabet.length)]).join("");
    const keys = createSortedKeys();
    const model = new Set<string>();
    for (let step = 0; step < 5000; step++) {
      const key = `x${word(1 + Math.floor(next() * 4))}`;
      if (next() < 0.6) {
        keys.add(key);
        model.add(key);
      } else {
        keys.delete(key);
        model.delete(key);
      }
      if (step % 50 === 0) {
        const prefix = `x${word(Math.floor(next() * 3))}`;
        const after = next() < 0.5 ? undefined : `x${word(Math.floor(next() * 4))}`;
        const count = 1 + Math.floor(next() * 8);
        const expected = [...model]
          .filter((k) => k.startsWith(prefix) && (after === undefined || k > after))
          .sort()
          .slice(0, count);
        expect(keys.range(prefix, after, count), `${prefix} after ${after}`).toEqual(expected);
        expect(keys.size).toBe(model.size);
      }
    }
  });
});
