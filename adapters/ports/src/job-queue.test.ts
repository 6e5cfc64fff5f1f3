import { describe, expect, it } from "vitest";
import { backoffDelay, DEFAULT_RETRY_POLICY, isValidJobKey, isValidQueueName } from "./index.ts";

describe("backoffDelay", () => {
  it("doubles the base delay for each attempt after the first, up to the cap", () => {
    const policy = { maxAttempts: 10, backoffBaseMs: 1000, backoffCapMs: 5000 };
    expect([1, 2, 3, 4, 5, 60].map((attempts) => backoffDelay(attempts, policy))).toEqual([
      1000, 2000, 4000, 5000, 5000, 5000,
    ]);
  });

  it("by default: 1 s after the first attempt, 1 h at most, 20 attempts", () => {
    expect(DEFAULT_RETRY_POLICY).toEqual({ maxAttempts: 20, backoffBaseMs: 1000, backoffCapMs: 3_600_000 });
    expect(backoffDelay(1, DEFAULT_RETRY_POLICY)).toBe(1000);
    expect(backoffDelay(13, DEFAULT_RETRY_POLICY)).toBe(3_600_000);
    expect(backoffDelay(2000, DEFAULT_RETRY_POLICY)).toBe(3_600_000);
  });
});

describe("queue names and job keys", () => {
  it("accept letters, digits, '.', '_', '-' (and ':' in keys)", () => {
    expect(isValidQueueName("fulfilment")).toBe(true);
    expect(isValidQueueName(`q${"a".repeat(63)}`)).toBe(true);
    expect(isValidJobKey("order:o_1:fulfil")).toBe(true);
    expect(isValidJobKey(`k${"a".repeat(199)}`)).toBe(true);
  });

  it("refuse anything else", () => {
    for (const name of ["", "a:b", "-a", "a b", `q${"a".repeat(64)}`, 5, undefined]) {
      expect(isValidQueueName(name)).toBe(false);
    }
    for (const key of ["", ":a", "a/b", "a b", `k${"a".repeat(200)}`, null]) {
      expect(isValidJobKey(key)).toBe(false);
    }
  });
});
