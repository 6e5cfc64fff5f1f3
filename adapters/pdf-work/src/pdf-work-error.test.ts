import { describe, expect, it } from "vitest";
import { closedError, PdfWorkError } from "./pdf-work-error.ts";

describe("PdfWorkError", () => {
  it("carries its code, message and retry hint", () => {
    const error = new PdfWorkError("pdf_work_busy", "busy", { retryAfterSeconds: 3 });
    expect(error).toBeInstanceOf(Error);
    expect(error.name).toBe("PdfWorkError");
    expect(error.code).toBe("pdf_work_busy");
    expect(error.message).toBe("busy");
    expect(error.retryAfterSeconds).toBe(3);
    expect(error.field).toBeUndefined();
  });

  it("isInstance is true for its errors, also from another copy of the class, and false otherwise", () => {
    expect(PdfWorkError.isInstance(closedError())).toBe(true);
    expect(closedError().code).toBe("pdf_work_closed");
    const foreign = { [Symbol.for("mailpiece.error.PdfWorkError")]: true, code: "pdf_work_closed" };
    expect(PdfWorkError.isInstance(foreign)).toBe(true);
    expect(PdfWorkError.isInstance(new Error("pdf_work_closed"))).toBe(false);
    expect(PdfWorkError.isInstance(null)).toBe(false);
    expect(PdfWorkError.isInstance("pdf_work_busy")).toBe(false);
  });
});
