import type { V1ErrorCode, V1ErrorScope } from "@mailpiece/v1";

/**
 * The codes of the Projects API's error table (STATUS_TABLE of @mailpiece/v1, which gives each its status) that the
 * test-mode drafts answer; the README lists them. A CoreError mapped to any other code is unexpected here.
 */
export const TEST_DRAFTS_CODES = [
  "invalid_json",
  "invalid_path",
  "idempotency_key_required",
  "preview_link_invalid",
  "not_found",
  "method_not_allowed",
  "idempotency_conflict",
  "payload_too_large",
  "unsupported_media_type",
  "validation_failed",
  "rate_limited",
  "internal_error",
  "service_busy",
  "storage_unavailable",
] as const satisfies readonly V1ErrorCode[];

export type TestDraftsErrorCode = (typeof TEST_DRAFTS_CODES)[number];

/**
 * The Projects API's errors as the test drafts answer them (toV1Error's scope): their codes only, and the messages
 * of failures that bring none saying that nothing was stored (nothing here is ever charged).
 */
export const TEST_DRAFTS_ERRORS: V1ErrorScope = {
  codes: TEST_DRAFTS_CODES,
  messages: {
    storageUnavailable: "The store does not answer; nothing was stored. Try again.",
    serviceBusy: (seconds) =>
      `Documents are being prepared for other requests; nothing was stored. Try again in ${seconds} s.`,
    internalError:
      "Something failed on our side; nothing was stored. Try again later; if it persists, contact support.",
  },
};
