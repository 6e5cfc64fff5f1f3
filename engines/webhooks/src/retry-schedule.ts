import { WebhookError } from "./errors.ts";

/** Delays before each retry after a failed attempt (spec 3): 1 min, 5 min, 30 min, 2 h, 12 h, 24 h. */
export const DEFAULT_RETRY_SCHEDULE_MS: readonly number[] = Object.freeze([
  60_000, 300_000, 1_800_000, 7_200_000, 43_200_000, 86_400_000,
]);

const MAX_RETRIES = 20;
const MAX_DELAY_MS = 7 * 24 * 60 * 60 * 1000;

/**
 * A retry schedule, checked: at most 20 delays, each a whole number of milliseconds from 1 to 7 days. An empty
 * schedule means one attempt and no retry. Throws `invalid_retry_schedule`.
 */
export function checkRetrySchedule(schedule: readonly number[]): readonly number[] {
  if (!Array.isArray(schedule) || schedule.length > MAX_RETRIES) {
    throw new WebhookError(
      "invalid_retry_schedule",
      `a retry schedule is a list of at most ${MAX_RETRIES} delays`,
    );
  }
  for (const delay of schedule) {
    if (!Number.isSafeInteger(delay) || delay < 1 || delay > MAX_DELAY_MS) {
      throw new WebhookError(
        "invalid_retry_schedule",
        `each retry delay is a whole number of milliseconds from 1 to ${MAX_DELAY_MS}`,
      );
    }
  }
  return Object.freeze([...schedule]);
}

/**
 * Reads a schedule written as comma-separated milliseconds (`60000,300000,1800000`), as an operator sets it in the
 * environment; spaces around entries are ignored. Throws `invalid_retry_schedule`.
 */
export function parseRetrySchedule(text: string): readonly number[] {
  if (typeof text !== "string") {
    throw new WebhookError("invalid_retry_schedule", "the retry schedule must be text");
  }
  if (text.trim() === "") return checkRetrySchedule([]);
  const entries = text.split(",").map((entry) => entry.trim());
  if (!entries.every((entry) => /^[0-9]{1,12}$/.test(entry))) {
    throw new WebhookError(
      "invalid_retry_schedule",
      "the retry schedule is whole milliseconds separated by commas, such as 60000,300000",
    );
  }
  return checkRetrySchedule(entries.map(Number));
}
