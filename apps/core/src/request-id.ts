const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** True for a request_id in the canonical UUID form, the only form that may reach the store as part of a key. */
export function isRequestId(value: unknown): value is string {
  return typeof value === "string" && UUID.test(value);
}

/**
 * The request_id of a request body, when it is a UUID. Idempotency looks a request up before the body is fully
 * validated (a paid retry is answered without preparing its document again), so anything else, however it is
 * malformed, is left to validation and never used as a key.
 */
export function requestIdOf(body: unknown): string | undefined {
  const value =
    typeof body === "object" && body !== null ? (body as Record<string, unknown>).request_id : undefined;
  return isRequestId(value) ? value : undefined;
}
