import { WebhookError, type WebhookErrorCode } from "./errors.ts";

/** The code of the WebhookError `run` throws, or "no error"; anything else thrown is thrown again. */
export function codeOf(run: () => unknown): WebhookErrorCode | "no error" {
  try {
    run();
    return "no error";
  } catch (error) {
    if (WebhookError.isInstance(error)) return error.code;
    throw error;
  }
}
