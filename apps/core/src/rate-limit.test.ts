import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createFileStore, createMemoryStore } from "@mailpiece/store-unstorage";
import { describe, expect, it } from "vitest";
import { consumeRate, createLocalRateLimiter, createRequestLimiter } from "./rate-limit.ts";

describe("the local sliding-window limiter", () => {
  it("allows `limit` attempts in a window, refuses the next with the seconds until one fits, and counts no refusal", () => {
    const limiter = createLocalRateLimiter({ limit: 3, windowMs: 60_000 });
    expect(limiter.consume("a", 0)).toEqual({ allowed: true, remaining: 2 });
    expect(limiter.consume("a", 10_000)).toEqual({ allowed: true, remaining: 1 });
    expect(limiter.consume("a", 20_000)).toEqual({ allowed: true, remaining: 0 });
    // Three attempts in the window [0, 60 000): one more fits when a third of them has slid out, at 80 000.
    expect(limiter.consume("a", 30_000)).toEqual({ allowed: false, retryAfterSeconds: 50 });
    expect(limiter.consume("a", 60_000)).toEqual({ allowed: false, retryAfterSeconds: 20 });
    expect(limiter.consume("a", 79_999)).toEqual({ allowed: false, retryAfterSeconds: 1 });
    expect(limiter.consume("a", 80_000)).toEqual({ allowed: true, remaining: 0 });
    expect(limiter.consume("a", 80_001).allowed).toBe(false);
  });

  it("has no burst at a window edge: a client that used its limit just before it is refused just after it", () => {
    const limiter = createLocalRateLimiter({ limit: 2, windowMs: 60_000 });
    expect(limiter.consume("a", 59_000).allowed).toBe(true);
    expect(limiter.consume("a", 59_500).allowed).toBe(true);
    expect(limiter.consume("a", 60_001)).toEqual({ allowed: false, retryAfterSeconds: 30 });
    expect(limiter.consume("a", 90_000).allowed).toBe(true);
    // A whole quiet window forgets everything.
    expect(limiter.check("a", 180_000)).toEqual({ allowed: true, remaining: 1 });
  });

  it("counts each subject on its own, and check counts nothing", () => {
    const limiter = createLocalRateLimiter({ limit: 2, windowMs: 1_000 });
    limiter.consume("a", 0);
    limiter.consume("a", 0);
    expect(limiter.check("a", 500)).toEqual({ allowed: false, retryAfterSeconds: 1 });
    expect(limiter.check("b", 500)).toEqual({ allowed: true, remaining: 1 });
    expect(limiter.check("b", 500)).toEqual({ allowed: true, remaining: 1 });
    expect(limiter.consume("b", 500)).toEqual({ allowed: true, remaining: 1 });
    expect(limiter.consume("b", 500)).toEqual({ allowed: true, remaining: 0 });
    expect(limiter.check("a", 2_000)).toEqual({ allowed: true, remaining: 1 });
  });

  it("holds at most maxSubjects, forgetting the least recently seen", () => {
    const limiter = createLocalRateLimiter({ limit: 1, windowMs: 60_000 }, 2);
    limiter.consume("a", 0);
    limiter.consume("b", 0);
    expect(limiter.consume("a", 1).allowed).toBe(false); // a is seen again: b is now the oldest
    limiter.consume("c", 2);
    expect(limiter.size).toBe(2);
    expect(limiter.check("a", 3).allowed).toBe(false);
    expect(limiter.check("b", 3).allowed).toBe(true);
  });

  it("refuses a limit or window that cannot count", () => {
    expect(() => createLocalRateLimiter({ limit: 0, windowMs: 1_000 })).toThrow(RangeError);
    expect(() => createLocalRateLimiter({ limit: 1.5, windowMs: 1_000 })).toThrow(RangeError);
    expect(() => createLocalRateLimiter({ limit: 1, windowMs: 0 })).toThrow(RangeError);
  });
});

describe("the shared limiter on the store", () => {
  it("slides as the local one does, counts budgets in units, and refuses what can never fit", async () => {
    const store = createMemoryStore();
    const rule = { limit: 10, windowMs: 60_000 };
    expect(await consumeRate(store, "bytes", "a", rule, 58_000, 6)).toEqual({ allowed: true, remaining: 4 });
    expect(await consumeRate(store, "bytes", "a", rule, 59_000, 4)).toEqual({ allowed: true, remaining: 0 });
    // Just past the edge the ten units of the last window still count (no burst); five fit at 90 000.
    expect(await consumeRate(store, "bytes", "a", rule, 61_000, 5)).toEqual({
      allowed: false,
      retryAfterSeconds: 29,
    });
    expect(await consumeRate(store, "bytes", "b", rule, 61_000, 5)).toEqual({ allowed: true, remaining: 5 });
    expect(await consumeRate(store, "bytes", "a", rule, 90_000, 5)).toEqual({ allowed: true, remaining: 0 });
    expect(await consumeRate(store, "bytes", "a", rule, 90_000, 11)).toEqual({
      allowed: false,
      retryAfterSeconds: 60,
    });
  });
});

describe("the shared limiter under contention", () => {
  it("counts every one of 100 concurrent attempts of one client, none refused for the contention", async () => {
    const dir = mkdtempSync(join(tmpdir(), "mailpiece-rate-"));
    const store = await createFileStore({ dir });
    try {
      const rule = { limit: 1000, windowMs: 3_600_000 };
      const now = 1_800_000_000_000;
      const decisions = await Promise.all(
        Array.from({ length: 100 }, () => consumeRate(store, "unpaid", "203.0.113.7", rule, now)),
      );
      expect(decisions.filter((d) => !d.allowed)).toEqual([]);
      // Each was counted once: the next attempt sees all 100.
      expect(await consumeRate(store, "unpaid", "203.0.113.7", rule, now)).toEqual({
        allowed: true,
        remaining: 1000 - 101,
      });
    } finally {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("request limiters", () => {
  it("decide alike in memory and on a shared store, where check counts nothing and the store holds the count", async () => {
    let now = Date.UTC(2026, 10, 24, 12, 0, 30);
    const clock = { now: () => now };
    const memory = createMemoryStore();
    const shared = Object.assign(Object.create(memory), { capabilities: { durable: false, shared: true } });
    const rule = { limit: 2, windowMs: 60_000 };
    const onStore = createRequestLimiter({ store: shared, clock }, "test", rule);
    const local = createRequestLimiter({ store: memory, clock }, "test", rule);
    for (const limiter of [onStore, local]) {
      const answers = [];
      answers.push(await limiter.check("a"));
      answers.push(await limiter.consume("a"), await limiter.consume("a"));
      answers.push(await limiter.check("a"), await limiter.consume("a"), await limiter.consume("b"));
      expect(answers).toEqual([
        { allowed: true, remaining: 1 },
        { allowed: true, remaining: 1 },
        { allowed: true, remaining: 0 },
        { allowed: false, retryAfterSeconds: 60 },
        { allowed: false, retryAfterSeconds: 60 },
        { allowed: true, remaining: 1 },
      ]);
    }
    // Only the limiter on the shared store wrote counters: the local one keeps them in memory.
    expect((await memory.list("ratelimit:test:")).records.map((r) => [r.key.split(":")[2], r.value])).toEqual(
      [
        ["a", 2],
        ["b", 1],
      ],
    );
    now += 2 * 60_000;
    expect(await onStore.consume("a")).toEqual({ allowed: true, remaining: 1 });
    expect(() => createRequestLimiter({ store: shared, clock }, "test", { limit: 0, windowMs: 1 })).toThrow(
      RangeError,
    );
  });
});
