import { CoreError } from "@mailpiece/core";
import type { H3Event } from "h3";
import { assertBodySize, HTTPError } from "h3";
import { COMMON_HEADERS } from "./security.ts";

/** One problem with a request, by the path of its field. */
export interface AdminIssue {
  path: string;
  code: string;
  message: string;
}

/** A refusal the admin API answers as `{error, message, issues?}` at `status`. */
export class AdminError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly issues: readonly AdminIssue[] = [],
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = "AdminError";
  }
}

/** The statuses of the core's codes that the admin API can meet; anything else is unexpected. */
const CORE_STATUS: Partial<Record<string, number>> = {
  validation_failed: 422,
  invalid_query: 400,
  not_found: 404,
  state_conflict: 409,
  unauthorized: 401,
  forbidden: 403,
  rate_limited: 429,
  service_busy: 503,
  storage_unavailable: 503,
};

const JSON_HEADERS = {
  ...COMMON_HEADERS,
  "content-type": "application/json; charset=utf-8",
  "content-security-policy": "default-src 'none'; frame-ancestors 'none'",
};

export function json(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), { status, headers: { ...JSON_HEADERS, ...headers } });
}

export function errorJson(error: AdminError): Response {
  return json(
    error.status,
    {
      error: error.code,
      message: error.message,
      ...(error.issues.length > 0 ? { issues: error.issues } : {}),
    },
    error.headers,
  );
}

/**
 * An AdminError for what a handler threw: its own refusals, the core's codes at their statuses, h3's refusals of a
 * body; undefined for anything unexpected.
 */
export function asAdminError(error: unknown): AdminError | undefined {
  if (error instanceof AdminError) return error;
  if (CoreError.isInstance(error)) {
    const status = CORE_STATUS[error.code];
    if (status === undefined) return undefined;
    const retry = error.retryAfterSeconds;
    return new AdminError(
      status,
      error.code,
      error.message,
      error.issues,
      retry === undefined ? {} : { "retry-after": String(retry) },
    );
  }
  if (HTTPError.isError(error) && error.status === 413) return tooLarge();
  return undefined;
}

const tooLarge = () => new AdminError(413, "body_too_large", "The request body is too large.");

/** The media type of the request's body, lower case, without parameters. */
const mediaType = (event: H3Event) =>
  (event.req.headers.get("content-type") ?? "").split(";")[0]!.trim().toLowerCase();

/** The request body as text, refused with 413 past `limitBytes` (declared or streamed). */
async function readText(event: H3Event, limitBytes: number): Promise<string> {
  try {
    assertBodySize(event, limitBytes);
    return await event.req.text();
  } catch (error) {
    if (HTTPError.isError(error) && error.status === 413) throw tooLarge();
    if (HTTPError.isError(error))
      throw new AdminError(400, "invalid_body", "The request body cannot be read.");
    throw error;
  }
}

/** A JSON object body of at most `limitBytes`: 415 for another media type, 400 for anything but an object. */
export async function readJsonObject(event: H3Event, limitBytes: number): Promise<Record<string, unknown>> {
  const type = mediaType(event);
  if (type !== "application/json") {
    throw new AdminError(
      415,
      "unsupported_media_type",
      "Send the body as JSON with Content-Type: application/json.",
    );
  }
  const text = await readText(event, limitBytes);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new AdminError(400, "invalid_json", "The body is not valid JSON.");
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new AdminError(400, "invalid_json", "The body must be a JSON object.");
  }
  return value as Record<string, unknown>;
}

/** Like readJsonObject, but a request without a body (no Content-Type, no length or 0) reads as `{}`. */
export async function readOptionalJsonObject(
  event: H3Event,
  limitBytes: number,
): Promise<Record<string, unknown>> {
  const length = event.req.headers.get("content-length");
  const chunked = event.req.headers.has("transfer-encoding");
  if (mediaType(event) === "" && (length === "0" || (length === null && !chunked))) return {};
  return readJsonObject(event, limitBytes);
}

/** A form post's fields (the first value of each name), or undefined when it is not a readable form. */
export async function readForm(event: H3Event, limitBytes: number): Promise<Map<string, string> | undefined> {
  if (mediaType(event) !== "application/x-www-form-urlencoded") return undefined;
  let text: string;
  try {
    text = await readText(event, limitBytes);
  } catch (error) {
    if (error instanceof AdminError) return undefined;
    throw error;
  }
  const fields = new Map<string, string>();
  for (const [name, value] of new URLSearchParams(text)) if (!fields.has(name)) fields.set(name, value);
  return fields;
}

/** A page size from the query: undefined when absent; 400 invalid_query unless a whole number. */
export function limitOf(value: string | null): number | undefined {
  if (value === null || value === "") return undefined;
  if (!/^[0-9]{1,3}$/.test(value) || Number(value) < 1 || Number(value) > 200) {
    throw new AdminError(400, "invalid_query", "limit must be an integer from 1 to 200.", [
      { path: "limit", code: "invalid_limit", message: "limit must be an integer from 1 to 200." },
    ]);
  }
  return Number(value);
}
