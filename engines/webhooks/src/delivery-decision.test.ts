import { describe, expect, it } from "vitest";
import { decideDelivery, isDelivered } from "./delivery-decision.ts";
import { WebhookError } from "./errors.ts";
import { checkRetrySchedule, DEFAULT_RETRY_SCHEDULE_MS, parseRetrySchedule } from "./retry-schedule.ts";

describe("delivery decisions", () => {
  it("deliver on any 2xx, disable on 410, and retry everything else on the schedule", () => {
    expect([199, 200, 204, 299, 300].map(isDelivered)).toEqual([false, true, true, true, false]);
    expect(decideDelivery({ answer: { status: 202 }, attempt: 7, now: 0 })).toEqual({ outcome: "delivered" });
    expect(decideDelivery({ answer: { status: 410 }, attempt: 1, now: 0 })).toEqual({
      outcome: "disable_endpoint",
    });
    for (const answer of [{ status: 301 }, { status: 404 }, { status: 500 }, { error: "timeout" }]) {
      expect(decideDelivery({ answer, attempt: 1, now: 1000 })).toEqual({ outcome: "retry", at: 61_000 });
    }
  });

  it("retry after 1 min, 5 min, 30 min, 2 h, 12 h and 24 h, then fail for good", () => {
    const delays = [1, 2, 3, 4, 5, 6, 7].map((attempt) => {
      const decision = decideDelivery({ answer: { status: 500 }, attempt, now: 0 });
      return decision.outcome === "retry" ? decision.at : decision.outcome;
    });
    expect(delays).toEqual([60_000, 300_000, 1_800_000, 7_200_000, 43_200_000, 86_400_000, "failed"]);
    expect(decideDelivery({ answer: { error: "x" }, attempt: 2, now: 5, schedule: [10, 20] })).toEqual({
      outcome: "retry",
      at: 25,
    });
    expect(decideDelivery({ answer: { error: "x" }, attempt: 1, now: 5, schedule: [] })).toEqual({
      outcome: "failed",
    });
  });

  it("read a schedule from comma-separated milliseconds, refusing anything else", () => {
    expect(parseRetrySchedule("60000, 300000,1800000")).toEqual([60_000, 300_000, 1_800_000]);
    expect(parseRetrySchedule("")).toEqual([]);
    for (const bad of ["1,,2", "-5", "1.5", "abc", "0", "999999999999"]) {
      expect(() => parseRetrySchedule(bad), bad).toThrow(WebhookError);
    }
    expect(() => checkRetrySchedule(Array.from({ length: 21 }, () => 1))).toThrow(/at most 20/);
    expect(DEFAULT_RETRY_SCHEDULE_MS).toHaveLength(6);
  });
});
