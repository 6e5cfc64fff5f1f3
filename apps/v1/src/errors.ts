import type { CoreErrorCode } from "@mailpiece/core";
import { CoreError, documentWorkBusy } from "@mailpiece/core";
import type { ErrorOptions, Issue } from "@mailpiece/errors";
import { defineError } from "@mailpiece/errors";
import { PortError } from "@mailpiece/ports";
import { HTTPError } from "h3";

/**
 * Every error code the Projects API answers, with its HTTP status and what it means. This is the one place a code
 * meets its status: the renderer and the README read it.
 */
export const STATUS_TABLE = {
  invalid_json: { status: 400, means: "the body is not valid JSON (or is empty where a body is required)" },
  invalid_query: { status: 400, means: "a query parameter is not acceptable; `issues` names it" },
  invalid_path: { status: 400, means: "the path holds a malformed percent-encoding" },
  idempotency_key_required: { status: 400, means: "order creation without an Idempotency-Key header" },
  unauthorized: { status: 401, means: "missing or invalid bearer key" },
  forbidden: {
    status: 403,
    means: "the key cannot act on the resource (a live key of a workspace not live-enabled)",
  },
  permission_denied: { status: 403, means: "the key lacks the permission for this operation" },
  approval_required: { status: 403, means: "live mail from this key needs an approval first" },
  preview_link_invalid: {
    status: 403,
    means: "a preview link of a test-mode draft (/v1/test) was tampered with or has expired",
  },
  not_found: { status: 404, means: "unknown route, or a resource outside the key's workspace" },
  method_not_allowed: { status: 405, means: "another method on a known path; Allow lists the methods" },
  length_required: { status: 411, means: "an upload without Content-Length" },
  insufficient_credits: {
    status: 402,
    means: "the workspace's available credits do not cover the price; nothing was reserved",
  },
  idempotency_conflict: { status: 409, means: "the Idempotency-Key was used with another request" },
  payment_method_required: {
    status: 409,
    means: "an automatic refill needs a saved card: open a payment-method setup session first",
  },
  state_conflict: {
    status: 409,
    means: "the resource is not in a state that allows this action (a released draft, a disabled endpoint)",
  },
  payload_too_large: { status: 413, means: "the body is larger than the limit" },
  unsupported_media_type: { status: 415, means: "the body is not JSON (Content-Type: application/json)" },
  validation_failed: {
    status: 422,
    means: "`issues` lists every problem with the path of its field and a stable code",
  },
  rate_limited: {
    status: 429,
    means: "too many requests for this key (or failed keys from this client); Retry-After says when to retry",
  },
  internal_error: { status: 500, means: "an unexpected failure on the service side" },
  payment_rail_unavailable: {
    status: 503,
    means: "this deployment takes no card payments for these credits",
  },
  service_busy: { status: 503, means: "the service holds too much work; Retry-After says when to retry" },
  storage_unavailable: { status: 503, means: "the store behind the deployment does not answer; retry later" },
} as const satisfies Record<string, { status: number; means: string }>;

export type V1ErrorCode = keyof typeof STATUS_TABLE;

/** Codes that always say when to retry: retry_after_seconds in the body (for 429) and Retry-After. */
const RETRY_AFTER_DEFAULTS: Partial<Record<V1ErrorCode, number>> = {
  rate_limited: 1,
  service_busy: 2,
  storage_unavailable: 5,
};

/** The codes whose answers always carry Retry-After. */
export const RETRY_AFTER_CODES = Object.keys(RETRY_AFTER_DEFAULTS) as readonly V1ErrorCode[];

/**
 * The Projects API's code for each CoreError code it expects from the use cases it maps. A code missing here (one
 * this API never expects, such as a machine-order code) is an internal_error reported to onUnexpectedError: a new
 * code of the core must be mapped on purpose before a client sees it. Later route modules add their codes here.
 */
const CORE_CODES: Partial<Record<CoreErrorCode, V1ErrorCode>> = {
  validation_failed: "validation_failed",
  unauthorized: "unauthorized",
  forbidden: "forbidden",
  permission_denied: "permission_denied",
  approval_required: "approval_required",
  not_found: "not_found",
  invalid_query: "invalid_query",
  idempotency_key_required: "idempotency_key_required",
  insufficient_credits: "insufficient_credits",
  state_conflict: "state_conflict",
  payment_method_required: "payment_method_required",
  request_id_conflict: "idempotency_conflict",
  rate_limited: "rate_limited",
  payment_rail_unavailable: "payment_rail_unavailable",
  preview_link_invalid: "preview_link_invalid",
  service_busy: "service_busy",
  storage_unavailable: "storage_unavailable",
  internal_error: "internal_error",
};

/** The error body of every Projects API failure. */
export interface V1ErrorBody {
  error: V1ErrorCode;
  message: string;
  issues?: Issue[];
  retry_after_seconds?: number;
}

export interface V1ErrorOptions extends ErrorOptions {
  /** Whole seconds before a retry may succeed: Retry-After, and retry_after_seconds in a 429 body. */
  retryAfterSeconds?: number;
  /** Headers the answer carries besides its own (Allow, WWW-Authenticate). */
  headers?: Record<string, string>;
}

const V1ErrorBase = defineError<V1ErrorCode>("V1Error");

/** A failure the Projects API answers with an error body; route handlers throw it. */
export class V1Error extends V1ErrorBase {
  /** True for a V1Error, also one made by another copy of this package. */
  static override isInstance(value: unknown): value is V1Error {
    return V1ErrorBase.isInstance(value);
  }

  readonly retryAfterSeconds: number | undefined;
  readonly headers: Record<string, string>;

  constructor(code: V1ErrorCode, message: string, options: V1ErrorOptions = {}) {
    super(code, message, options);
    this.retryAfterSeconds = options.retryAfterSeconds;
    this.headers = options.headers ?? {};
  }
}

/** The headers of every Projects API answer. */
export const RESPONSE_HEADERS: Readonly<Record<string, string>> = {
  "cache-control": "no-store",
  "x-content-type-options": "nosniff",
};

/** `WWW-Authenticate` of every 401 (RFC 6750). */
export const WWW_AUTHENTICATE = 'Bearer realm="api"';

/** The one renderer of Projects API errors: the status from STATUS_TABLE, Retry-After where the code needs one. */
export function errorResponse(error: V1Error): Response {
  const code = error.code;
  const retryAfter = error.retryAfterSeconds ?? RETRY_AFTER_DEFAULTS[code];
  const body: V1ErrorBody = {
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
      ...(code === "unauthorized" ? { "www-authenticate": WWW_AUTHENTICATE } : {}),
      ...(retryAfter === undefined ? {} : { "retry-after": String(retryAfter) }),
      ...error.headers,
    },
  });
}

/** The messages toV1Error writes itself, for failures that bring none a client may read. */
export interface V1FallbackMessages {
  /** An unavailable store (PortError store_unavailable): storage_unavailable. */
  storageUnavailable: string;
  /** Busy document work: service_busy, with the seconds before a retry. */
  serviceBusy: (retryAfterSeconds: number) => string;
  /** Anything unexpected: internal_error. */
  internalError: string;
}

const FALLBACK_MESSAGES: V1FallbackMessages = {
  storageUnavailable: "The store does not answer; nothing was changed. Try again.",
  serviceBusy: (seconds) =>
    `Documents are being prepared for other requests; nothing was stored or charged. Try again in ${seconds} s.`,
  internalError: "Something failed on our side. Try again later; if it persists, contact support.",
};

/**
 * How a group of endpoints of the Projects API that answer fewer codes narrows and words toV1Error (the test-mode
 * drafts at /v1/test).
 */
export interface V1ErrorScope {
  /**
   * The codes these endpoints answer: a CoreError mapped to another code is unexpected here (an internal_error,
   * reported). Default: every code of STATUS_TABLE.
   */
  codes?: readonly V1ErrorCode[];
  /** The fallback messages, worded for what these endpoints do (what was not stored or charged). */
  messages?: Partial<V1FallbackMessages>;
}

/**
 * What a thrown value is as a Projects API error: a V1Error as it is; a CoreError through CORE_CODES (same message,
 * issues and retry time); h3's own refusals (no route, another method, a malformed path, a body past its limit) and
 * an unavailable store or busy document work by their codes. Anything else is an internal_error that reveals
 * nothing, and is reported to `onUnexpectedError`. `scope` narrows the codes and words the messages for endpoints
 * that answer fewer codes.
 */
export function toV1Error(
  thrown: unknown,
  onUnexpectedError?: (error: unknown) => void,
  scope: V1ErrorScope = {},
): V1Error {
  const messages = { ...FALLBACK_MESSAGES, ...scope.messages };
  const error = unwrap(thrown);
  if (V1Error.isInstance(error)) return error;
  if (CoreError.isInstance(error)) {
    const code = CORE_CODES[error.code];
    if (code !== undefined && code !== "internal_error" && (scope.codes?.includes(code) ?? true)) {
      return new V1Error(code, error.message, {
        ...(error.issues.length > 0 ? { issues: error.issues } : {}),
        ...(error.retryAfterSeconds === undefined ? {} : { retryAfterSeconds: error.retryAfterSeconds }),
        cause: error,
      });
    }
  } else if (PortError.isInstance(error) && error.code === "store_unavailable") {
    return new V1Error("storage_unavailable", messages.storageUnavailable, { cause: error });
  } else if (HTTPError.isError(error)) {
    if (error.status === 404) return new V1Error("not_found", "No such resource.");
    if (error.status === 405) return new V1Error("method_not_allowed", "This method is not allowed here.");
    if (error.status === 413) {
      return new V1Error("payload_too_large", "The body is larger than this API accepts.");
    }
    // The router refuses a path it cannot decode (a malformed percent-encoding) before any handler runs.
    if (error.status === 400 && !error.unhandled) {
      return new V1Error("invalid_path", "The path holds a malformed percent-encoding.");
    }
  }
  const busy = documentWorkBusy(error);
  if (busy) {
    return new V1Error("service_busy", messages.serviceBusy(busy.retryAfterSeconds), {
      retryAfterSeconds: busy.retryAfterSeconds,
    });
  }
  onUnexpectedError?.(error);
  return new V1Error("internal_error", messages.internalError);
}

/**
 * The error behind h3's wrapping: h3 wraps a thrown Error as the cause of an HTTPError, or as the `cause` of the
 * details object it keeps as its cause. An HTTPError of h3's own (a malformed path) is itself.
 */
function unwrap(thrown: unknown): unknown {
  let error = thrown;
  for (let depth = 0; depth < 3 && HTTPError.isError(error); depth++) {
    const cause: unknown = error.cause;
    const inner =
      cause instanceof Error
        ? cause
        : typeof cause === "object" && cause !== null && (cause as { cause?: unknown }).cause instanceof Error
          ? (cause as { cause: Error }).cause
          : undefined;
    if (inner === undefined) break;
    error = inner;
  }
  return error;
}

/** 422 for these issues: every problem at once, each with the path of its field. */
export function validationFailed(issues: readonly Issue[]): V1Error {
  const count = issues.length;
  return new V1Error(
    "validation_failed",
    `The request has ${count} problem${count === 1 ? "" : "s"}; each issue names the field, a stable code and what to change.`,
    { issues },
  );
}

/** 400 for a query parameter that is not acceptable. */
export function invalidQuery(issue: Issue): V1Error {
  return new V1Error("invalid_query", issue.message, { issues: [issue] });
}
