import { FormsError } from "@mailpiece/forms";
import { PostcardError } from "@mailpiece/postcard";
import { TypesetterError } from "@mailpiece/typesetter";
import { describe, expect, it } from "vitest";
import { fromWireError } from "./engine-errors.ts";
import { toWireError } from "./wire-error.ts";

const ENGINES = { TypesetterError, PostcardError, FormsError };

/** As an error crosses a thread: to data, through structured clone, back to an error. */
function crossed(error: unknown): Error {
  return fromWireError(structuredClone(toWireError(error, ENGINES)));
}

describe("engine errors across a thread", () => {
  it("a TypesetterError keeps its class, code, field and message", () => {
    const error = crossed(
      new TypesetterError("invalid_letter_input", "render.font_size must be…", { field: "render" }),
    );
    expect(TypesetterError.isInstance(error)).toBe(true);
    expect(error).toBeInstanceOf(TypesetterError);
    expect(error).toMatchObject({
      code: "invalid_letter_input",
      field: "render",
      message: "render.font_size must be…",
    });
  });

  it("a TypesetterError without a field stays without one", () => {
    const error = crossed(new TypesetterError("pdf_unreadable", "The PDF is empty."));
    expect(TypesetterError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ code: "pdf_unreadable", field: undefined, message: "The PDF is empty." });
  });

  it("a PostcardError keeps its class, code, field and message", () => {
    const error = crossed(new PostcardError("invalid_postcard_size", "The size…", { field: "size" }));
    expect(PostcardError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ code: "invalid_postcard_size", field: "size", message: "The size…" });
  });

  it("a FormsError keeps its class, code, issues and message", () => {
    const issues = [{ path: "form.fields.served_on", code: "date_in_future", message: "Not in the future." }];
    const error = crossed(new FormsError("form_invalid", "The answers are refused.", { issues }));
    expect(FormsError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ code: "form_invalid", issues, message: "The answers are refused." });
  });

  it("any other error becomes a plain Error with the message", () => {
    const error = crossed(new TypeError("Cannot read properties of null"));
    expect(error.constructor).toBe(Error);
    expect(error.message).toBe("Cannot read properties of null");
    expect(crossed("a string thrown").message).toBe("a string thrown");
    expect(TypesetterError.isInstance(error) || FormsError.isInstance(error)).toBe(false);
  });
});
