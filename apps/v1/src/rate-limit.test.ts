import { describe, expect, it } from "vitest";
import { createSlidingWindowLimiter } from "./rate-limit.ts";

describe("the sliding-window limiter", () => {
  it("allows `limit` requests in any window, refuses the next with the seconds until the oldest leaves", () => {
    const limiter = createSlidingWindowLimiter(3, 60_000);
    expect(limiter.consume("a", 0)).toEqual({ allowed: true, remaining: 2 });
    expect(limiter.consume("a", 10_000)).toEqual({ allowed: true, remaining: 1 });
    expect(limiter.consume("a", 20_000)).toEqual({ allowed: true, remaining: 0 });
    expect(limiter.consume("a", 30_000)).toEqual({ allowed: false, retryAfterSeconds: 30 });
    // A refused request counts nothing: the oldest leaves at 60 000 and one request fits again.
    expect(limiter.consume("a", 59_999)).toEqual({ allowed: false, retryAfterSeconds: 1 });
    expect(limiter.consume("a", 60_000)).toEqual({ allowed: true, remaining: 0 });
    expect(limiter.consume("a", 60_001)).toEqual({ allowed: false, retryAfterSeconds: 10 });
    // No burst at a window edge: the next two fit only as the requests of 10 000 and 20 000 leave.
    expect(limiter.consume("a", 70_000).allowed).toBe(true);
    expect(limiter.consume("a", 70_001).allowed).toBe(false);
    expect(limiter.consume("a", 80_000).allowed).toBe(true);
  });

  it("counts each subject on its own, and check counts nothing", () => {
    const limiter = createSlidingWindowLimiter(2, 1_000);
    limiter.consume("a", 0);
    limiter.consume("a", 0);
    expect(limiter.check("a", 500)).toEqual({ allowed: false, retryAfterSeconds: 1 });
    expect(limiter.check("b", 500)).toEqual({ allowed: true, remaining: 2 });
    expect(limiter.check("b", 500)).toEqual({ allowed: true, remaining: 2 });
    expect(limiter.consume("b", 500)).toEqual({ allowed: true, remaining: 1 });
    expect(limiter.check("a", 1_000)).toEqual({ allowed: true, remaining: 2 });
  });

  it("holds at most maxSubjects, forgetting the least recently seen", () => {
    const limiter = createSlidingWindowLimiter(1, 60_000, 2);
    limiter.consume("a", 0);
    limiter.consume("b", 0);
    expect(limiter.consume("a", 1).allowed).toBe(false); // a is seen again: b is now the oldest
    limiter.consume("c", 2);
    expect(limiter.size).toBe(2);
    expect(limiter.check("a", 3).allowed).toBe(false);
    expect(limiter.check("b", 3).allowed).toBe(true);
  });

  it("refuses a limit or window that cannot count", () => {
    expect(() => createSlidingWindowLimiter(0, 1_000)).toThrow(RangeError);
    expect(() => createSlidingWindowLimiter(1.5, 1_000)).toThrow(RangeError);
    expect(() => createSlidingWindowLimiter(1, 0)).toThrow(RangeError);
  });
});
