import { defineError, type ErrorOptions } from "@mailpiece/errors";
import { hasMarker, markLegacy } from "./error-markers.ts";

/** Stable error codes raised by adapters through the ports. Apps map them to HTTP in one place. */
export type PortErrorCode =
  | "invalid_key"
  | "version_conflict"
  | "value_not_serializable"
  | "blob_too_large"
  | "store_unavailable";

const LEGACY_MARKER = Symbol.for("mailpiece.port_error");

const PortErrorBase = defineError<PortErrorCode>("PortError");

/** The one error class of the ports package. `code` is a stable wire contract; `message` is for people. */
export class PortError extends PortErrorBase {
  constructor(code: PortErrorCode, message: string, options?: ErrorOptions) {
    super(code, message, options);
    markLegacy(this, LEGACY_MARKER);
  }

  /** True for any PortError, also one created by another copy of this package (older copies included). */
  static override isInstance(value: unknown): value is PortError {
    return PortErrorBase.isInstance(value) || hasMarker(value, LEGACY_MARKER);
  }
}
