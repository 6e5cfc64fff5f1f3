import type { Issue } from "@mailpiece/orders";

/** Stable codes of the machine API's error bodies. */
export type MachineErrorCode =
  | "validation_failed"
  | "invalid_json"
  | "unsupported_media_type"
  | "payload_too_large"
  | "not_found"
  | "method_not_allowed"
  | "request_id_conflict"
  | "rate_limited"
  | "payment_rail_unavailable"
  | "preview_link_invalid"
  | "invalid_query"
  | "florist_unavailable"
  | "invalid_multipart"
  | "invalid_path"
  | "service_busy"
  | "internal_error";

/** The error body of every machine API failure: a stable code, a sentence, and for 422 every issue found. */
export interface MachineErrorBody {
  error: MachineErrorCode;
  message: string;
  issues?: Issue[];
  retry_after_seconds?: number;
}

const NO_STORE = { "cache-control": "no-store" };

export function errorResponse(
  status: number,
  error: MachineErrorCode,
  message: string,
  extra: { issues?: Issue[]; headers?: Record<string, string>; retry_after_seconds?: number } = {},
): Response {
  const body: MachineErrorBody = {
    error,
    message,
    ...(extra.issues ? { issues: extra.issues } : {}),
    ...(extra.retry_after_seconds === undefined ? {} : { retry_after_seconds: extra.retry_after_seconds }),
  };
  // A body that says when to retry says it in Retry-After too, so no caller sets one without the other.
  const retryAfter: Record<string, string> =
    extra.retry_after_seconds === undefined ? {} : { "retry-after": String(extra.retry_after_seconds) };
  return Response.json(body, { status, headers: { ...NO_STORE, ...retryAfter, ...extra.headers } });
}

export function validationFailed(issues: Issue[]): Response {
  const count = issues.length;
  return errorResponse(
    422,
    "validation_failed",
    `The order has ${count} problem${count === 1 ? "" : "s"}; each issue names the field, a stable code and what to change.`,
    { issues },
  );
}
