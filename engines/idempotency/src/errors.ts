import { defineError } from "@mailpiece/errors";

/**
 * Stable codes of IdempotencyError.
 * - `value_not_serialisable`: a value to fingerprint holds something JSON cannot carry (a non-finite number, a
 *   bigint, a function or a symbol).
 */
export type IdempotencyErrorCode = "value_not_serialisable";

/** The one error class of the idempotency package. `code` is a stable wire contract; `message` is for people. */
export class IdempotencyError extends defineError<IdempotencyErrorCode>("IdempotencyError") {}
