import { availableParallelism } from "node:os";
import { describe, expect, it } from "vitest";
import { PdfWorkError } from "./pdf-work-error.ts";
import { resolvePoolOptions } from "./pool-options.ts";

describe("resolvePoolOptions", () => {
  it("defaults: 2 threads (fewer on fewer cores), a queue of 64, a 20 s deadline, threads idle 30 s, 1 GB each", () => {
    expect(resolvePoolOptions()).toEqual({
      threads: Math.min(2, availableParallelism()),
      minThreads: 1,
      maxQueue: 64,
      deadlineMs: 20_000,
      idleTimeoutMs: 30_000,
      maxMemoryMb: 1024,
    });
  });

  it("keeps the options given", () => {
    const options = {
      threads: 3,
      minThreads: 0,
      maxQueue: 0,
      deadlineMs: 1,
      idleTimeoutMs: 0,
      maxMemoryMb: 256,
    };
    expect(resolvePoolOptions(options)).toEqual(options);
  });

  it.each([
    ["threads", { threads: 0 }],
    ["threads", { threads: 1.5 }],
    ["maxQueue", { maxQueue: -1 }],
    ["maxQueue", { maxQueue: Number.POSITIVE_INFINITY }],
    ["deadlineMs", { deadlineMs: 0 }],
    ["deadlineMs", { deadlineMs: "20000" }],
    ["deadlineMs", { deadlineMs: 2 ** 31 }],
    ["idleTimeoutMs", { idleTimeoutMs: Number.NaN }],
    ["maxMemoryMb", { maxMemoryMb: 16 }],
    ["minThreads", { threads: 1, minThreads: 2 }],
    ["minThreads", { minThreads: -1 }],
    ["options", null],
  ])("refuses a bad %s with invalid_pdf_work_options and the field", (field, options) => {
    let caught: unknown;
    try {
      resolvePoolOptions(options as never);
    } catch (error) {
      caught = error;
    }
    expect(PdfWorkError.isInstance(caught)).toBe(true);
    expect(caught).toMatchObject({ code: "invalid_pdf_work_options", field });
    expect((caught as Error).message).toContain(field);
  });
});
