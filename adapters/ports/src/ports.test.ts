import { describe, expect, it } from "vitest";
import { isValidKey, manualClock, PortError } from "./index.ts";

describe("isValidKey", () => {
  it("accepts segment keys made of the allowed characters", () => {
    expect(isValidKey("orders:2f0c6a1e-0000-4000-8000-000000000000")).toBe(true);
    expect(isValidKey("a")).toBe(true);
    expect(isValidKey(`a${"b".repeat(511)}`)).toBe(true);
  });
  it("refuses empty, leading separators, slashes, spaces and overlong keys", () => {
    for (const key of ["", ":a", "a/b", "a b", "../x", `a${"b".repeat(512)}`, 5, undefined]) {
      expect(isValidKey(key)).toBe(false);
    }
  });
});

describe("PortError", () => {
  it("is recognised by its marker, also across copies", () => {
    const error = new PortError("version_conflict", "stale");
    expect(PortError.isInstance(error)).toBe(true);
    expect(error.code).toBe("version_conflict");
    expect(PortError.isInstance(new Error("x"))).toBe(false);
    const lookalike = Object.assign(new Error("x"), { [Symbol.for("mailpiece.port_error")]: true });
    expect(PortError.isInstance(lookalike)).toBe(true);
  });
});

describe("manualClock", () => {
  it("moves only when told", () => {
    const clock = manualClock(1000);
    expect(clock.now()).toBe(1000);
    clock.advance(250);
    expect(clock.now()).toBe(1250);
    clock.set(5);
    expect(clock.now()).toBe(5);
  });
});
