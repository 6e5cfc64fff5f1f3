import { WebhookError } from "./errors.ts";

/** What a signature covers: the raw body, exactly as sent (a string is taken as UTF-8). */
export type WebhookBody = string | Uint8Array;

/** How far a signed timestamp may be from the receiver's clock, either way, in seconds. */
export const DEFAULT_TOLERANCE_SECONDS = 300;

/** The bytes of a body. */
export function bodyBytes(body: WebhookBody): Buffer {
  if (typeof body === "string") return Buffer.from(body, "utf8");
  if (body instanceof Uint8Array) return Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  throw new WebhookError("invalid_message", "the body must be a string or bytes");
}

/** A signed timestamp: whole seconds since the epoch, not negative. Throws `invalid_message`. */
export function checkTimestamp(timestamp: number): number {
  if (!Number.isSafeInteger(timestamp) || timestamp < 0) {
    throw new WebhookError("invalid_message", "the timestamp must be whole seconds since the epoch");
  }
  return timestamp;
}

/** At least one secret or key to sign with. Throws `invalid_message`. */
export function atLeastOne<T>(values: readonly T[] | undefined, what: string): readonly T[] {
  if (!Array.isArray(values) || values.length === 0) {
    throw new WebhookError("invalid_message", `at least one ${what} is needed to sign`);
  }
  return values;
}

/**
 * Throws `timestamp_out_of_tolerance` when `timestamp` is more than `toleranceSeconds` from `now` (both in seconds),
 * in the past or in the future.
 */
export function checkTolerance(timestamp: number, now: number, toleranceSeconds: number): void {
  if (!Number.isFinite(now) || !(toleranceSeconds >= 0)) {
    throw new WebhookError("invalid_message", "now and the tolerance must be numbers of seconds");
  }
  if (Math.abs(Math.floor(now) - timestamp) > toleranceSeconds) {
    throw new WebhookError(
      "timestamp_out_of_tolerance",
      `the signed timestamp is more than ${toleranceSeconds} s from now`,
    );
  }
}
