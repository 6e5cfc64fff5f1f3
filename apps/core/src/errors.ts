/** Stable codes for failures of the use cases that are not a problem with the request. */
export type CoreErrorCode = "internal_error" | "storage_unavailable";

const MARKER = Symbol.for("mailpiece.core_error");

export class CoreError extends Error {
  readonly code: CoreErrorCode;
  readonly [MARKER] = true;

  constructor(code: CoreErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "CoreError";
    this.code = code;
  }

  static isInstance(value: unknown): value is CoreError {
    return typeof value === "object" && value !== null && (value as Record<symbol, unknown>)[MARKER] === true;
  }
}
