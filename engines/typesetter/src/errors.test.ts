import { isMailpieceError } from "@mailpiece/errors";
import { describe, expect, it } from "vitest";
import { TypesetterError } from "./errors.ts";

describe("TypesetterError", () => {
  it("is a Mailpiece error, recognised across copies of the package by its marker", () => {
    const error = new TypesetterError("pdf_encrypted", "locked", { field: "pdf" });
    expect(TypesetterError.isInstance(error)).toBe(true);
    expect(isMailpieceError(error)).toBe(true);
    expect(error).toBeInstanceOf(Error);
    expect(error.field).toBe("pdf");
    expect(error.name).toBe("TypesetterError");
    expect(TypesetterError.isInstance({ [Symbol.for("mailpiece.error.TypesetterError")]: true })).toBe(true);
    expect(TypesetterError.isInstance(new Error("locked"))).toBe(false);
    expect(TypesetterError.isInstance(null)).toBe(false);
  });

  it("carries its field as its one issue, unless given issues, and its cause", () => {
    const cause = new Error("inner");
    const error = new TypesetterError("invalid_letter_input", "The date is not a date.", {
      field: "date",
      cause,
    });
    expect(error.issues).toEqual([
      { path: "date", code: "invalid_letter_input", message: "The date is not a date." },
    ]);
    expect(error.cause).toBe(cause);
    const issues = [{ path: "recipient.lines.0", code: "too_long", message: "Too long." }];
    expect(new TypesetterError("invalid_letter_input", "x", { field: "recipient", issues }).issues).toEqual(
      issues,
    );
    const bare = new TypesetterError("pdf_unreadable", "The PDF is empty.");
    expect(bare.field).toBeUndefined();
    expect(bare.issues).toEqual([]);
  });
});
