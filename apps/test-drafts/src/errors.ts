import type { CoreErrorCode } from "@mailpiece/core";
import { CoreError, documentWorkBusy } from "@mailpiece/core";
import type { ErrorOptions, Issue } from "@mailpiece/errors";
import { defineError } from "@mailpiece/errors";
import { PortError } from "@mailpiece/ports";
import { HTTPError } from "h3";

/**
 * Every error code the test-mode draft endpoints answer, with its HTTP status and what it means: the one place a
 * code meets its status (the renderer and the README read it).
 */
export const STATUS_TABLE = {
  invalid_json: { status: 400, means: "the body is not valid JSON, or is empty" },
  invalid_path: { status: 400, means: "the path holds a malformed percent-encoding" },
  idempotency_key_required: {
    status: 400,
    means: "a creation without an Idempotency-Key header holding a UUID; reported before anything else",
  },
  preview_link_invalid: { status: 403, means: "the preview link was tampered with or has expired" },
  not_found: { status: 404, means: "unknown route, test order or preview" },
  method_not_allowed: { status: 405, means: "another method on a known path; Allow lists the methods" },
  idempotency_conflict: { status: 409, means: "the Idempotency-Key was used with another body" },
  payload_too_large: { status: 413, means: "the body is larger than the limit" },
  unsupported_media_type: { status: 415, means: "the body is not JSON (Content-Type: application/json)" },
  validation_failed: {
    status: 422,
    means: "`issues` lists every problem with the path of its field and a stable code",
  },
  rate_limited: {
    status: 429,
    means: "this client made too many test drafts; Retry-After and retry_after_seconds say when to retry",
  },
  internal_error: { status: 500, means: "an unexpected failure on the service side; nothing was stored" },
  service_busy: {
    status: 503,
    means: "the document workers hold too much work; Retry-After says when to retry",
  },
  storage_unavailable: { status: 503, means: "the store behind the deployment does not answer; retry later" },
} as const satisfies Record<string, { status: number; means: string }>;

export type TestDraftsErrorCode = keyof typeof STATUS_TABLE;

/** Codes that always say when to retry. */
const RETRY_AFTER_DEFAULTS: Partial<Record<TestDraftsErrorCode, number>> = {
  rate_limited: 1,
  service_busy: 2,
  storage_unavailable: 5,
};

/**
 * The code of each CoreError code the test drafts' use cases throw. Any other is an internal_error reported to
 * onUnexpectedError: a new code is mapped on purpose before a client sees it.
 */
const CORE_CODES: Partial<Record<CoreErrorCode, TestDraftsErrorCode>> = {
  validation_failed: "validation_failed",
  idempotency_key_required: "idempotency_key_required",
  request_id_conflict: "idempotency_conflict",
  rate_limited: "rate_limited",
  not_found: "not_found",
  preview_link_invalid: "preview_link_invalid",
  service_busy: "service_busy",
  storage_unavailable: "storage_unavailable",
};

/** The error body of every failure here. */
export interface TestDraftsErrorBody {
  error: TestDraftsErrorCode;
  message: string;
  issues?: Issue[];
  retry_after_seconds?: number;
}

export interface TestDraftsErrorOptions extends ErrorOptions {
  /** Whole seconds before a retry may succeed: Retry-After, and retry_after_seconds in a 429 body. */
  retryAfterSeconds?: number;
  /** Headers the answer carries besides its own (Allow). */
  headers?: Record<string, string>;
}

const TestDraftsErrorBase = defineError<TestDraftsErrorCode>("TestDraftsError");

/** A failure the test-mode draft endpoints answer with an error body; handlers throw it. */
export class TestDraftsError extends TestDraftsErrorBase {
  /** True for a TestDraftsError, also one made by another copy of this package. */
  static override isInstance(value: unknown): value is TestDraftsError {
    return TestDraftsErrorBase.isInstance(value);
  }

  readonly retryAfterSeconds: number | undefined;
  readonly headers: Record<string, string>;

  constructor(code: TestDraftsErrorCode, message: string, options: TestDraftsErrorOptions = {}) {
    super(code, message, options);
    this.retryAfterSeconds = options.retryAfterSeconds;
    this.headers = options.headers ?? {};
  }
}

/** The headers of every answer: never cached, never sniffed. */
export const RESPONSE_HEADERS: Readonly<Record<string, string>> = {
  "cache-control": "no-store",
  "x-content-type-options": "nosniff",
};

/** The one renderer of errors: the status from STATUS_TABLE, Retry-After where the code needs one. */
export function errorResponse(error: TestDraftsError): Response {
  const code = error.code;
  const retryAfter = error.retryAfterSeconds ?? RETRY_AFTER_DEFAULTS[code];
  const body: TestDraftsErrorBody = {
    error: code,
    message: error.message,
    ...(error.issues.length > 0
      ? { issues: error.issues.map(({ path, code, message }) => ({ path, code, message })) }
      : {}),
    ...(code === "rate_limited" && retryAfter !== undefined ? { retry_after_seconds: retryAfter } : {}),
  };
  return Response.json(body, {
    status: STATUS_TABLE[code].status,
    headers: {
      ...RESPONSE_HEADERS,
      ...(retryAfter === undefined ? {} : { "retry-after": String(retryAfter) }),
      ...error.headers,
    },
  });
}

/**
 * What a thrown value is as an error here: a TestDraftsError as it is; a CoreError through CORE_CODES (same message,
 * issues and retry time); an unavailable store and busy document workers by their codes; h3's refusal of a path it
 * cannot decode. Anything else is an internal_error that reveals nothing, reported to `onUnexpectedError`.
 */
export function toTestDraftsError(
  error: unknown,
  onUnexpectedError?: (error: unknown) => void,
): TestDraftsError {
  if (TestDraftsError.isInstance(error)) return error;
  if (CoreError.isInstance(error)) {
    const code = CORE_CODES[error.code];
    if (code !== undefined) {
      return new TestDraftsError(code, error.message, {
        ...(error.issues.length > 0 ? { issues: error.issues } : {}),
        ...(error.retryAfterSeconds === undefined ? {} : { retryAfterSeconds: error.retryAfterSeconds }),
        cause: error,
      });
    }
  }
  if (PortError.isInstance(error) && error.code === "store_unavailable") {
    return new TestDraftsError(
      "storage_unavailable",
      "The store does not answer; nothing was stored. Try again.",
      {
        cause: error,
      },
    );
  }
  // Every handler answers its own errors: what reaches the app's onError is the router's refusal of a path.
  if (HTTPError.isError(error) && error.status === 400 && !error.unhandled) {
    return new TestDraftsError("invalid_path", "The path holds a malformed percent-encoding.");
  }
  const busy = documentWorkBusy(error);
  if (busy) {
    return new TestDraftsError(
      "service_busy",
      `Documents are being prepared for other requests; nothing was stored. Try again in ${busy.retryAfterSeconds} s.`,
      { retryAfterSeconds: busy.retryAfterSeconds },
    );
  }
  onUnexpectedError?.(error);
  return new TestDraftsError(
    "internal_error",
    "Something failed on our side; nothing was stored. Try again later; if it persists, contact support.",
  );
}
