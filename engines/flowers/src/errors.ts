import type { Issue } from "@mailpiece/orders";

/**
 * Stable codes of FlowersError.
 * - `flower_letter_invalid`: `parseFlowerLetterRequest` found problems; `issues` lists every one.
 * - `invalid_bounds`: quote bounds are malformed (operator configuration).
 * - `invalid_amount`: an amount is not an integer number of cents.
 */
export type FlowersErrorCode = "flower_letter_invalid" | "invalid_bounds" | "invalid_amount";

const MARKER = Symbol.for("mailpiece.flowers_error");

/** The one error class of the flowers package. `code` is a stable wire contract; `message` is for people. */
export class FlowersError extends Error {
  readonly code: FlowersErrorCode;
  readonly issues: readonly Issue[];
  readonly [MARKER] = true;

  constructor(
    code: FlowersErrorCode,
    message: string,
    issues: readonly Issue[] = [],
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = "FlowersError";
    this.code = code;
    this.issues = issues;
  }

  /** True for any FlowersError, also one created by another copy of this package. */
  static isInstance(value: unknown): value is FlowersError {
    return typeof value === "object" && value !== null && (value as Record<symbol, unknown>)[MARKER] === true;
  }
}
