/** Stable error codes raised by adapters through the ports. Apps map them to HTTP in one place. */
export type PortErrorCode =
  | "invalid_key"
  | "version_conflict"
  | "value_not_serializable"
  | "blob_too_large"
  | "store_unavailable";

const MARKER = Symbol.for("mailpiece.port_error");

/** The one error class of the ports package. `code` is a stable wire contract; `message` is for people. */
export class PortError extends Error {
  readonly code: PortErrorCode;
  readonly [MARKER] = true;

  constructor(code: PortErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "PortError";
    this.code = code;
  }

  /** True for any PortError, also one created by another copy of this package. */
  static isInstance(value: unknown): value is PortError {
    return typeof value === "object" && value !== null && (value as Record<symbol, unknown>)[MARKER] === true;
  }
}
