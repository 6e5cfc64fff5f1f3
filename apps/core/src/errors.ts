import type { ErrorOptions, Issue } from "@mailpiece/errors";
import { defineError } from "@mailpiece/errors";

/**
 * Why a use case did not do what it was asked. Every surface maps these codes in one table of its own (HTTP
 * statuses, JSON-RPC tool errors):
 * - `validation_failed`: the request has problems; `issues` names each with the path of its field and a stable code.
 * - `request_id_conflict`: the request_id was already used with a different body.
 * - `rate_limited`: the client passed one of its limits; `retryAfterSeconds` says when to try again.
 * - `not_found`: no such order, campaign, flower letter, form, stored document or workspace.
 * - `unauthorized`: no API key, or not a current one; `forbidden`: the key cannot act here (a live key of a workspace
 *   that is not live-enabled); `permission_denied`, `approval_required`: the key lacks the permission, or live mail
 *   needs an approval first.
 * - `idempotency_key_required`: a Projects API order without an Idempotency-Key; `insufficient_credits`: the
 *   workspace's available credits do not cover the price (nothing is reserved); `payment_method_required`: an
 *   automatic refill needs a saved card first.
 * - `preview_link_invalid`: a preview link was tampered with or has expired.
 * - `upload_token_invalid`, `upload_token_expired`, `upload_already_filled`, `upload_too_large`, `upload_not_pdf`:
 *   an upload slot cannot take this file.
 * - `invalid_query`: a listing's query (limit, cursor) is not acceptable.
 * - `payment_rail_unavailable`: this deployment does not accept the payment rail asked for.
 * - `florist_unavailable`: no florist is configured, or it cannot be reached.
 * - `address_search_unavailable`: the address provider cannot answer, for a search or for the lookup of an order's
 *   address id; `retryAfterSeconds` says when to try again.
 * - `checkout_expired`, `checkout_canceled`: a checkout session can no longer be paid; `checkout_completed`: a paid
 *   session cannot be canceled.
 * - `state_conflict`: the resource is not in a state that allows this action (a draft already released, an endpoint
 *   disabled, a template archived); the message says which state it is in.
 * - `service_busy`: document work is queued past its limit; `retryAfterSeconds` says when to try again.
 * - `storage_unavailable`: the store does not answer.
 * - `internal_error`: anything else; the request changed nothing that it should not have.
 */
export type CoreErrorCode =
  | "validation_failed"
  | "request_id_conflict"
  | "rate_limited"
  | "not_found"
  | "unauthorized"
  | "forbidden"
  | "permission_denied"
  | "approval_required"
  | "idempotency_key_required"
  | "insufficient_credits"
  | "payment_method_required"
  | "preview_link_invalid"
  | "upload_token_invalid"
  | "upload_token_expired"
  | "upload_already_filled"
  | "upload_too_large"
  | "upload_not_pdf"
  | "invalid_query"
  | "payment_rail_unavailable"
  | "florist_unavailable"
  | "address_search_unavailable"
  | "checkout_expired"
  | "checkout_canceled"
  | "checkout_completed"
  | "state_conflict"
  | "service_busy"
  | "storage_unavailable"
  | "internal_error";

export interface CoreErrorOptions extends ErrorOptions {
  /** For `rate_limited` and `service_busy`: whole seconds until a retry may succeed. */
  retryAfterSeconds?: number;
}

const MailpieceCoreError = defineError<CoreErrorCode>("CoreError");

/**
 * The one failure of the core's use cases: they return what was asked for, or throw a CoreError. Problems with a
 * request are `validation_failed` with every issue, never one at a time.
 */
export class CoreError extends MailpieceCoreError {
  readonly retryAfterSeconds: number | undefined;

  constructor(code: CoreErrorCode, message: string, options: CoreErrorOptions = {}) {
    const { retryAfterSeconds, ...rest } = options;
    super(code, message, rest);
    this.retryAfterSeconds = retryAfterSeconds;
  }

  /** True for any CoreError, also one created by another copy of this package. */
  static override isInstance(value: unknown): value is CoreError {
    return MailpieceCoreError.isInstance(value);
  }
}

/** `validation_failed` for these issues of an order (or another `subject`), with a message that counts them. */
export function invalidRequest(issues: readonly Issue[], subject = "order"): CoreError {
  const count = issues.length;
  return new CoreError(
    "validation_failed",
    `The ${subject} has ${count} problem${count === 1 ? "" : "s"}; each issue names the field, a stable code and what to change.`,
    { issues },
  );
}

/** `rate_limited`: the client passed its limit of `what`. */
export function rateLimitedError(retryAfterSeconds: number, what: string): CoreError {
  return new CoreError(
    "rate_limited",
    `Too many ${what} from this client; try again in ${retryAfterSeconds} s.`,
    { retryAfterSeconds },
  );
}

/** `request_id_conflict` for a request_id bound to another body; `what` is "mailing" or "flower letter". */
export function requestIdConflict(requestId: string, what: string): CoreError {
  return new CoreError(
    "request_id_conflict",
    `request_id ${requestId} was already used with a different body. Retry with the byte-for-byte identical body, or use a new request_id for a new ${what}.`,
  );
}
