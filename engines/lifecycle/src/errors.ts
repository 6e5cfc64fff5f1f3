import { defineError, type ErrorOptions } from "@mailpiece/errors";

/**
 * Stable error codes of the lifecycle engine. Apps map them to HTTP in one place.
 * - `unknown_status`: a status that is not one of the order statuses (the order's or the one asked for).
 * - `transition_not_allowed`: the state machine has no edge from the order's status to the one asked for, or the
 *   edge needs another source (leaving `submission_pending` is reserved to reconciliation).
 * - `invalid_input`: malformed transition details (id, time, source, reason), step extras or a provider answer.
 * - `inconsistent_timeline`: the order's timeline does not chain (an event's `status_before` is not the previous
 *   event's `status_after`), does not end at the order's status, or already holds the event id.
 */
export type LifecycleErrorCode =
  | "unknown_status"
  | "transition_not_allowed"
  | "invalid_input"
  | "inconsistent_timeline";

/** The options of a LifecycleError: those of every Mailpiece error, and the input at fault. */
export interface LifecycleErrorOptions extends ErrorOptions {
  field?: string;
}

const LifecycleErrorBase = defineError<LifecycleErrorCode>("LifecycleError");

/**
 * The one error class of the lifecycle package. `code` is a stable wire contract; `message` is for people.
 * `field` names the input at fault for `invalid_input` (for example `at` or `extra.refunded_at`).
 */
export class LifecycleError extends LifecycleErrorBase {
  readonly field: string | undefined;

  constructor(code: LifecycleErrorCode, message: string, options: LifecycleErrorOptions = {}) {
    super(code, message, options);
    this.field = options.field;
  }

  /** True for any LifecycleError, also one created by another copy of this package. */
  static override isInstance(value: unknown): value is LifecycleError {
    return LifecycleErrorBase.isInstance(value);
  }
}
