import { describe, expect, it } from "vitest";
import { defineError, isMailpieceError } from "./index.ts";

type ToyCode = "too_big" | "too_small";
class ToyError extends defineError<ToyCode>("ToyError") {}
class OtherError extends defineError<"other">("OtherError") {}

describe("defineError", () => {
  it("makes an Error with the code, message, issues, cause and the class name", () => {
    const cause = new Error("underneath");
    const error = new ToyError("too_big", "It is too big.", {
      cause,
      issues: [{ path: "size", code: "out_of_range", message: "at most 3" }],
    });
    expect(error).toBeInstanceOf(Error);
    expect(error).toBeInstanceOf(ToyError);
    expect(error.name).toBe("ToyError");
    expect(error.code).toBe("too_big");
    expect(error.message).toBe("It is too big.");
    expect(error.cause).toBe(cause);
    expect(error.issues).toEqual([{ path: "size", code: "out_of_range", message: "at most 3" }]);
    expect(String(error)).toBe("ToyError: It is too big.");
    expect(error.stack).toContain("ToyError");
  });

  it("has no issues and no cause unless given", () => {
    const error = new ToyError("too_small", "small");
    expect(error.issues).toEqual([]);
    expect("cause" in error).toBe(false);
  });

  it("recognises its own errors, also from another copy of the package, and no others", () => {
    const CopiedToyError = defineError<ToyCode>("ToyError");
    expect(ToyError.isInstance(new CopiedToyError("too_big", "x"))).toBe(true);
    expect(ToyError.isInstance(new ToyError("too_big", "x"))).toBe(true);
    expect(ToyError.isInstance(new OtherError("other", "x"))).toBe(false);
    expect(ToyError.isInstance(Object.assign(new Error("x"), { code: "too_big" }))).toBe(false);
    expect(ToyError.isInstance(undefined)).toBe(false);
    expect(ToyError.isInstance("ToyError")).toBe(false);
  });

  it("tells any Mailpiece error from other errors", () => {
    expect(isMailpieceError(new ToyError("too_big", "x"))).toBe(true);
    expect(isMailpieceError(new OtherError("other", "x"))).toBe(true);
    expect(isMailpieceError(new TypeError("x"))).toBe(false);
    expect(isMailpieceError({ code: "too_big", issues: [] })).toBe(false);
  });

  it("keeps the marker out of JSON and of own enumerable keys", () => {
    const error = new ToyError("too_big", "x");
    expect(Object.keys(error).sort()).toEqual(["code", "issues", "name"].sort());
  });
});
