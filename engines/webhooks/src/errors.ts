import { defineError } from "@mailpiece/errors";

/**
 * Stable codes of WebhookError. Messages never carry a secret, a signing key or a signature.
 * - `invalid_secret`: a signing secret is not `whsec_` followed by the standard base64 of 24 to 64 bytes.
 * - `invalid_key`: an ed25519 key is not `whsk_` (secret key) or `whpk_` (public key) followed by the standard base64
 *   of 32 bytes.
 * - `invalid_message`: what is to be signed cannot be: a message id with characters other than letters, digits, `_`
 *   and `-`, a timestamp that is not a whole number of seconds, no secret to sign with.
 * - `invalid_event`: an event body or type that does not fit the rules (unknown kind or status, bad mode, id or
 *   created time).
 * - `invalid_retry_schedule`: a retry schedule that is not a list of whole positive milliseconds (at most 20 entries,
 *   each at most 7 days).
 * - `signature_header_invalid`: a signature header is missing or cannot be read.
 * - `timestamp_out_of_tolerance`: the signed timestamp is further from now than the tolerance (300 s by default).
 * - `signature_mismatch`: no signature in the header matches the body with the given secret or key.
 */
export type WebhookErrorCode =
  | "invalid_secret"
  | "invalid_key"
  | "invalid_message"
  | "invalid_event"
  | "invalid_retry_schedule"
  | "signature_header_invalid"
  | "timestamp_out_of_tolerance"
  | "signature_mismatch";

/** The one error class of the webhooks package. `code` is a stable wire contract; `message` is for people. */
export class WebhookError extends defineError<WebhookErrorCode>("WebhookError") {}
