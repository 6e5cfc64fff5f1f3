import { defineError } from "@mailpiece/errors";

/** Stable codes for failures of the use cases that are not a problem with the request. */
export type CoreErrorCode = "internal_error" | "storage_unavailable";

/** The one error class of the core; problems with a request are answered as issues, never thrown. */
export class CoreError extends defineError<CoreErrorCode>("CoreError") {}
