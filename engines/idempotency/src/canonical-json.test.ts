import { describe, expect, it } from "vitest";
import { canonicalJson } from "./canonical-json.ts";
import { IdempotencyError } from "./errors.ts";
import { fingerprintBytes, fingerprintJson } from "./fingerprint.ts";

describe("canonicalJson", () => {
  it("sorts keys at every depth and drops undefined members", () => {
    expect(canonicalJson({ b: 1, a: { d: [1, { z: 1, y: 2 }], c: undefined } })).toBe(
      '{"a":{"d":[1,{"y":2,"z":1}]},"b":1}',
    );
  });
  it("refuses values that have no JSON form", () => {
    const refusal = (value: unknown) => {
      try {
        canonicalJson(value);
      } catch (error) {
        return IdempotencyError.isInstance(error) ? error.code : error;
      }
      return "accepted";
    };
    expect(refusal({ a: Number.NaN })).toBe("value_not_serialisable");
    expect(refusal({ a: [Number.POSITIVE_INFINITY] })).toBe("value_not_serialisable");
    expect(refusal({ a: 1n })).toBe("value_not_serialisable");
    expect(refusal({ a: Symbol("s") })).toBe("value_not_serialisable");
    expect(refusal({ a: 1 })).toBe("accepted");
  });
});

describe("fingerprints", () => {
  it("differ for bodies that differ by one byte, and agree for equal values in any key order", () => {
    expect(fingerprintBytes('{"a":1}')).not.toBe(fingerprintBytes('{"a":1} '));
    expect(fingerprintJson({ a: 1, b: 2 })).toBe(fingerprintJson({ b: 2, a: 1 }));
    expect(fingerprintBytes("x")).toMatch(/^sha256:[0-9a-f]{64}$/);
  });
});
