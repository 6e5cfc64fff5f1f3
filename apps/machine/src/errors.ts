import type { CoreErrorCode } from "@mailpiece/core";
import { CoreError, documentWorkBusy } from "@mailpiece/core";
import type { ErrorOptions, Issue } from "@mailpiece/errors";
import { defineError } from "@mailpiece/errors";
import type { HTTPError } from "h3";
import type { MachineErrorCode } from "./status-table.ts";
import { statusOf } from "./status-table.ts";

export type { MachineErrorCode } from "./status-table.ts";

/** The error body of every machine API failure: a stable code, a sentence, the issues found, when to retry. */
export interface MachineErrorBody {
  error: MachineErrorCode;
  message: string;
  issues?: Issue[];
  retry_after_seconds?: number;
}

export interface MachineErrorOptions extends ErrorOptions {
  /** Whole seconds to wait before trying again: the body's retry_after_seconds and the Retry-After header. */
  retryAfterSeconds?: number;
  /** Headers the answer carries besides the body's own (e.g. Allow). */
  headers?: Record<string, string>;
}

/**
 * A failure the machine API answers with an error body. Handlers throw it; the app's one onError renders it with
 * `errorAnswer`, at the status the status table gives its code.
 */
const MachineErrorBase = defineError<MachineErrorCode>("MachineError");

export class MachineError extends MachineErrorBase {
  /** True for a MachineError, also one made by another copy of this package. */
  static override isInstance(value: unknown): value is MachineError {
    return MachineErrorBase.isInstance(value);
  }

  readonly retryAfterSeconds: number | undefined;
  readonly headers: Record<string, string>;

  constructor(code: MachineErrorCode, message: string, options: MachineErrorOptions = {}) {
    super(code, message, options);
    this.retryAfterSeconds = options.retryAfterSeconds;
    this.headers = options.headers ?? {};
  }
}

const NO_STORE = { "cache-control": "no-store" };

/**
 * The one renderer of machine API errors: the status comes from the status table, and a body that says when to
 * retry says it in Retry-After too.
 */
export function errorAnswer(
  error: MachineErrorCode,
  message: string,
  extra: { issues?: readonly Issue[]; retry_after_seconds?: number; headers?: Record<string, string> } = {},
): Response {
  return renderError(statusOf(error), error, message, extra);
}

/** The answer for a thrown MachineError. */
export function answerFor(error: MachineError): Response {
  return errorAnswer(error.code, error.message, {
    ...(error.issues.length > 0 ? { issues: error.issues } : {}),
    ...(error.retryAfterSeconds === undefined ? {} : { retry_after_seconds: error.retryAfterSeconds }),
    headers: error.headers,
  });
}

/**
 * The machine API's one onError: a MachineError is answered as it says; h3's own refusals (no route, another
 * method, a malformed path) and busy document workers get their codes; anything else is reported to
 * `onUnexpectedError` and answered as an internal_error that reveals nothing. A host app that mounts the machine
 * app can answer its own errors with it too.
 */
export function answerMachineError(error: HTTPError, onUnexpectedError?: (error: unknown) => void): Response {
  const cause = error.cause;
  if (MachineError.isInstance(cause)) return answerFor(cause);
  if (CoreError.isInstance(cause)) return answerFor(fromCore(cause));
  if (error.status === 404) return errorAnswer("not_found", "No such resource.");
  if (error.status === 405) return errorAnswer("method_not_allowed", "This method is not allowed here.");
  // The router refuses a path it cannot decode (a malformed percent-encoding) before any handler runs.
  if (error.status === 400 && !error.unhandled) {
    return errorAnswer("invalid_path", "The path holds a malformed percent-encoding.");
  }
  const busy = documentWorkBusy(error);
  if (busy) {
    return errorAnswer(
      "service_busy",
      `Documents are being prepared for other requests; nothing was stored or charged. Try again in ${busy.retryAfterSeconds} s.`,
      { retry_after_seconds: busy.retryAfterSeconds },
    );
  }
  onUnexpectedError?.(error.cause ?? error);
  return errorAnswer("internal_error", "Something failed on our side; the request changed nothing.");
}

function renderError(
  status: number,
  error: MachineErrorCode,
  message: string,
  extra: { issues?: readonly Issue[]; retry_after_seconds?: number; headers?: Record<string, string> },
): Response {
  const body: MachineErrorBody = {
    error,
    message,
    ...(extra.issues
      ? { issues: extra.issues.map(({ path, code, message }) => ({ path, code, message })) }
      : {}),
    ...(extra.retry_after_seconds === undefined ? {} : { retry_after_seconds: extra.retry_after_seconds }),
  };
  const retryAfter: Record<string, string> =
    extra.retry_after_seconds === undefined ? {} : { "retry-after": String(extra.retry_after_seconds) };
  return Response.json(body, { status, headers: { ...NO_STORE, ...retryAfter, ...extra.headers } });
}

/** 422: the request is not acceptable; every issue names its field, a stable code and what to change. */
export function validationFailed(issues: readonly Issue[]): MachineError {
  const count = issues.length;
  return new MachineError(
    "validation_failed",
    `The order has ${count} problem${count === 1 ? "" : "s"}; each issue names the field, a stable code and what to change.`,
    { issues },
  );
}

/** The machine API's code for each failure of the core. */
const CORE_CODES: Record<CoreErrorCode, MachineErrorCode> = {
  validation_failed: "validation_failed",
  request_id_conflict: "request_id_conflict",
  rate_limited: "rate_limited",
  not_found: "not_found",
  preview_link_invalid: "preview_link_invalid",
  upload_token_invalid: "not_found",
  upload_token_expired: "validation_failed",
  upload_already_filled: "validation_failed",
  upload_too_large: "payload_too_large",
  upload_not_pdf: "validation_failed",
  invalid_query: "invalid_query",
  payment_rail_unavailable: "payment_rail_unavailable",
  florist_unavailable: "florist_unavailable",
  address_search_unavailable: "service_busy",
  checkout_expired: "checkout_closed",
  checkout_canceled: "checkout_closed",
  checkout_completed: "checkout_closed",
  service_busy: "service_busy",
  storage_unavailable: "store_unavailable",
  internal_error: "internal_error",
  // The machine API takes no API keys: its use cases never refuse with these.
  unauthorized: "internal_error",
  forbidden: "internal_error",
  permission_denied: "internal_error",
  approval_required: "internal_error",
  idempotency_key_required: "internal_error",
  insufficient_credits: "internal_error",
  state_conflict: "internal_error",
  payment_method_required: "internal_error",
};

/** A failure of the core as the machine API answers it: same message, issues and retry time, the code mapped. */
export function fromCore(error: CoreError): MachineError {
  return new MachineError(CORE_CODES[error.code], error.message, {
    ...(error.issues.length > 0 ? { issues: error.issues } : {}),
    ...(error.retryAfterSeconds === undefined ? {} : { retryAfterSeconds: error.retryAfterSeconds }),
    cause: error,
  });
}
