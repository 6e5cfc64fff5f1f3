import { DEFAULT_RETRY_SCHEDULE_MS } from "./retry-schedule.ts";

/** What one attempt got: an HTTP status, or an error code when no status came (timeout, refused, TLS...). */
export type DeliveryAnswer = { status: number } | { error: string };

/**
 * What to do after an attempt:
 * - `delivered`: any 2xx; the delivery is over.
 * - `disable_endpoint`: 410 Gone; the receiver wants no more events: the endpoint is disabled.
 * - `retry`: any other answer (3xx, which is never followed, 4xx, 5xx) or no answer, while the schedule has a next
 *   step; `at` is when to try again.
 * - `failed`: the same after the schedule's last step: given up for good.
 */
export type DeliveryDecision =
  | { outcome: "delivered" }
  | { outcome: "disable_endpoint" }
  | { outcome: "retry"; at: number }
  | { outcome: "failed" };

/** True for a status that counts as delivered: 200 to 299. */
export function isDelivered(status: number): boolean {
  return Number.isInteger(status) && status >= 200 && status <= 299;
}

/**
 * Decides after attempt number `attempt` (1 for the first) at `now` (ms): a failed attempt is retried after
 * `schedule[attempt - 1]` (default 1 min, 5 min, 30 min, 2 h, 12 h, 24 h), so there are at most
 * `schedule.length` retries.
 */
export function decideDelivery(input: {
  answer: DeliveryAnswer;
  attempt: number;
  now: number;
  schedule?: readonly number[];
}): DeliveryDecision {
  const { answer, attempt, now } = input;
  if ("status" in answer) {
    if (isDelivered(answer.status)) return { outcome: "delivered" };
    if (answer.status === 410) return { outcome: "disable_endpoint" };
  }
  const delay = (input.schedule ?? DEFAULT_RETRY_SCHEDULE_MS)[Math.max(0, Math.floor(attempt) - 1)];
  return delay === undefined ? { outcome: "failed" } : { outcome: "retry", at: now + delay };
}
