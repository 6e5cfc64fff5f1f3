import { describe, expect, it } from "vitest";
import { baseToPath, classifyName, decodeName, encodeName, keyToPath } from "./fs-key-path.ts";

describe("encodeName", () => {
  it("keeps lower-case letters, digits, '_', '-' and inner dots; encodes the rest", () => {
    expect(encodeName("orders")).toBe("orders");
    expect(encodeName("2f0c-a_b.pdf")).toBe("2f0c-a_b.pdf");
    expect(encodeName("Ab")).toBe("%41b");
    expect(encodeName("~")).toBe("%7E");
    expect(encodeName("..")).toBe("%2E%2E");
    expect(encodeName(".a.")).toBe("%2Ea%2E");
    expect(encodeName("é")).toBe("%C3%A9");
  });

  it("is reversed by decodeName, which refuses names it would not produce", () => {
    for (const part of ["orders", "A", "..", ".", "a.b", "~..", "x".repeat(150), "AbC.dEf", "%41"]) {
      expect(decodeName(encodeName(part))).toBe(part);
    }
    for (const name of ["A", "%2e", "a%", "%41%", "", ".a", "a.", "a+b", "%2fx"]) {
      expect(decodeName(name)).toBeUndefined();
    }
  });
});

describe("keyToPath", () => {
  it("gives inner segments a directory marked '+' and the last segment a plain file", () => {
    expect(keyToPath("orders:1")).toEqual(["orders+", "1"]);
    expect(keyToPath("a")).toEqual(["a"]);
    expect(keyToPath("a:b:c")).toEqual(["a+", "b+", "c"]);
    expect(baseToPath("a:b")).toEqual(["a+", "b+"]);
  });

  it("never makes '.', '..' or a hidden name, so no key leaves the directory", () => {
    for (const key of ["..", "..:..:x", "~..:~.", ".a:b.", "a:..:..:..:etc:passwd"]) {
      for (const name of keyToPath(key)) {
        expect(name.startsWith(".")).toBe(false);
        expect(name).not.toContain("/");
        expect(name).not.toContain("\\");
      }
    }
  });

  it("keeps keys that differ only in case apart on case-insensitive file systems", () => {
    const pairs = [
      ["A", "a"],
      ["orders:AbC", "orders:abc"],
      ["X:y", "x:y"],
    ];
    for (const [upper, lower] of pairs) {
      expect(
        keyToPath(upper as string)
          .join("/")
          .toLowerCase(),
      ).not.toBe(
        keyToPath(lower as string)
          .join("/")
          .toLowerCase(),
      );
    }
  });

  it("splits a long segment over '=' directories, keeping names short", () => {
    const segment = "A".repeat(300);
    const path = keyToPath(`k:${segment}`);
    expect(path.length).toBeGreaterThan(3);
    expect(path[0]).toBe("k+");
    for (const name of path) expect(name.length).toBeLessThanOrEqual(201);
    expect(path.slice(1, -1).every((name) => name.endsWith("="))).toBe(true);
    const decoded = path.slice(1).map((name) => classifyName(name));
    expect(decoded.map((n) => ("part" in n ? n.part : "")).join("")).toBe(segment);
  });

  it("refuses an empty segment", () => {
    expect(() => keyToPath("a::b")).toThrow();
  });
});

describe("classifyName", () => {
  it("tells files, directories and foreign names apart", () => {
    expect(classifyName("orders+")).toEqual({ kind: "inner", part: "orders" });
    expect(classifyName("%41bc=")).toEqual({ kind: "continued", part: "Abc" });
    expect(classifyName("1")).toEqual({ kind: "file", part: "1" });
    expect(classifyName(".tmp-1-ab")).toEqual({ kind: "other" });
    expect(classifyName(".lock")).toEqual({ kind: "other" });
    expect(classifyName("Readme")).toEqual({ kind: "other" });
  });
});
