import { defineError } from "@mailpiece/errors";

/**
 * The codes of the kit's own errors: a kit option or a command-line flag that is wrong (`invalid_option`), a test
 * name that no suite has (`unknown_test`), a surface the kit does not know (`unknown_surface`), a surface asked for
 * that the deployment does not declare (`surface_not_declared`), and a deployment that could not be asked what it
 * declares (`discovery_failed`).
 */
export type ConformanceErrorCode =
  | "invalid_option"
  | "unknown_test"
  | "unknown_surface"
  | "surface_not_declared"
  | "discovery_failed";

/** The error of the conformance kit; `issues` name the option or flag at fault. */
export class ConformanceError extends defineError<ConformanceErrorCode>("ConformanceError") {}
