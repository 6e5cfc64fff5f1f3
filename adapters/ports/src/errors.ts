import { defineError } from "@mailpiece/errors";

/** Stable error codes raised by adapters through the ports. Apps map them to HTTP in one place. */
export type PortErrorCode =
  | "invalid_key"
  | "version_conflict"
  | "value_not_serializable"
  | "blob_too_large"
  | "store_unavailable";

/** The one error class of the ports package. `code` is a stable wire contract; `message` is for people. */
export class PortError extends defineError<PortErrorCode>("PortError") {}
