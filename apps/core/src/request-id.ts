import { isRequestId } from "@mailpiece/orders";

/**
 * The request_id of a request body, when it is a UUID (the order engine's rule). Idempotency looks a request up
 * before the body is fully validated (a paid retry is answered without preparing its document again), so anything
 * else, however it is malformed, is left to validation and never used as a key.
 */
export function requestIdOf(body: unknown): string | undefined {
  const value =
    typeof body === "object" && body !== null ? (body as Record<string, unknown>).request_id : undefined;
  return isRequestId(value) ? value : undefined;
}
