/**
 * Every error code the machine API answers, with its HTTP status and what it means. This is the one place a code
 * meets its status: the error renderer, the app's onError and the OpenAPI description all read it.
 */
export const STATUS_TABLE = {
  invalid_json: { status: 400, means: "the body is not valid JSON" },
  invalid_multipart: { status: 400, means: "the multipart/form-data body cannot be read" },
  invalid_query: { status: 400, means: "a query parameter is not acceptable" },
  invalid_path: { status: 400, means: "the path holds a malformed percent-encoding" },
  preview_link_invalid: { status: 403, means: "the preview link was tampered with or has expired" },
  not_found: { status: 404, means: "no such resource" },
  method_not_allowed: {
    status: 405,
    means: "another method on a known path; Allow lists the methods it answers",
  },
  request_id_conflict: {
    status: 409,
    means: "request_id was already used with a different body; use a new request_id for a new mailing",
  },
  checkout_closed: {
    status: 409,
    means: "the checkout session can no longer be paid (expired or canceled) or canceled (paid)",
  },
  payload_too_large: { status: 413, means: "the body is larger than the limit" },
  unsupported_media_type: { status: 415, means: "the content type is not the one this operation reads" },
  validation_failed: {
    status: 422,
    means: "`issues` lists every problem with the path of its field and a stable code",
  },
  rate_limited: {
    status: 429,
    means: "too many requests from this client; Retry-After and retry_after_seconds say when to try again",
  },
  internal_error: {
    status: 500,
    means: "an unexpected failure on the service side; the request changed nothing",
  },
  payment_rail_unavailable: { status: 503, means: "this deployment does not accept this payment rail" },
  florist_unavailable: {
    status: 503,
    means: "this deployment has no florist, or the florist cannot be reached",
  },
  service_busy: {
    status: 503,
    means:
      "the service holds too much work (document workers or request bodies); nothing was stored; Retry-After says when to try again",
  },
  store_unavailable: { status: 503, means: "the store behind the deployment does not answer" },
} as const satisfies Record<string, { status: number; means: string }>;

export type MachineErrorCode = keyof typeof STATUS_TABLE;

export const ERROR_CODES = Object.keys(STATUS_TABLE) as MachineErrorCode[];

/** Codes whose bodies always say when to retry (retry_after_seconds and Retry-After). */
export const RETRY_AFTER_CODES: readonly MachineErrorCode[] = ["rate_limited", "service_busy"];

export function statusOf(code: MachineErrorCode): number {
  return STATUS_TABLE[code].status;
}

/** The statuses of the table, each once, in ascending order. */
export function errorStatuses(): number[] {
  return [...new Set(ERROR_CODES.map(statusOf))].sort((a, b) => a - b);
}

/** The codes answered with `status`, in table order. */
export function codesWithStatus(status: number): MachineErrorCode[] {
  return ERROR_CODES.filter((code) => statusOf(code) === status);
}
