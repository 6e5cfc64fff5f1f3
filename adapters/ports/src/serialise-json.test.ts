import { describe, expect, it } from "vitest";
import { serialiseJson } from "./serialise-json.ts";

describe("serialiseJson", () => {
  it("serialises plain JSON values as JSON.stringify does", () => {
    for (const value of [null, 0, "x", [1, null], { a: { b: [true] } }, { skipped: undefined, kept: 1 }]) {
      expect(serialiseJson(value)).toEqual({ ok: true, json: JSON.stringify(value) });
    }
  });

  it("honours toJSON", () => {
    expect(serialiseJson({ at: new Date(0) })).toEqual({
      ok: true,
      json: '{"at":"1970-01-01T00:00:00.000Z"}',
    });
  });

  it("refuses what JSON would drop or change silently, naming where", () => {
    const cycle: Record<string, unknown> = {};
    cycle.self = cycle;
    const cases: Array<[unknown, string]> = [
      [undefined, "undefined"],
      [() => 1, "a function"],
      [{ f: () => 1 }, 'a function at "f"'],
      [{ n: 1n }, 'a bigint at "n"'],
      [Symbol("s"), "a symbol"],
      [{ x: Number.NaN }, 'the number NaN at "x"'],
      [[1, undefined], 'undefined in an array at "1"'],
      [{ m: new Map() }, 'an instance of Map at "m"'],
      [cycle, "a cycle"],
    ];
    for (const [value, reason] of cases) {
      expect(serialiseJson(value)).toEqual({ ok: false, reason });
    }
  });
});
