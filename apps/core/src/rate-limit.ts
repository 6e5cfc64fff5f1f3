import type { Store } from "@mailpiece/ports";
import { PortError } from "@mailpiece/ports";
import { rateLimitedError } from "./errors.ts";

export interface RateLimit {
  /** Attempts allowed per window. */
  limit: number;
  windowMs: number;
}

export type RateDecision =
  | { allowed: true; remaining: number }
  | { allowed: false; retryAfterSeconds: number };

/**
 * Counts one attempt (or `cost` units of a budget, such as bytes) for `subject` in the current fixed window, in the
 * shared store (so several server processes count together). Counting is compare-and-set, so concurrent attempts
 * are never lost. An attempt that would pass the limit is refused and counts nothing.
 */
export async function consumeRate(
  store: Store,
  name: string,
  subject: string,
  rule: RateLimit,
  now: number,
  cost = 1,
): Promise<RateDecision> {
  const window = Math.floor(now / rule.windowMs);
  const key = `ratelimit:${name}:${subject.replace(/[^A-Za-z0-9._-]/g, "_").slice(0, 200)}:${window}`;
  const windowEnd = (window + 1) * rule.windowMs;
  const ttlMs = windowEnd - now + 1000;
  for (let attempt = 0; attempt < 50; attempt++) {
    const current = await store.get<number>(key);
    const count = current?.value ?? 0;
    if (count + cost > rule.limit) {
      return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil((windowEnd - now) / 1000)) };
    }
    try {
      if (current) await store.put(key, count + cost, { ifVersion: current.version, ttlMs });
      else {
        const created = await store.create(key, cost, { ttlMs });
        if (!created.created) continue;
      }
      return { allowed: true, remaining: rule.limit - count - cost };
    } catch (error) {
      if (PortError.isInstance(error) && error.code === "version_conflict") continue;
      throw error;
    }
  }
  return { allowed: false, retryAfterSeconds: 1 };
}

/**
 * The one rule for storing something for an unknown client (an unpaid order, a flower letter): it counts against the
 * client's unpaid-creation limit, whatever payment header the request carries, since a credential can only pay an
 * order whose challenge was issued. Throws CoreError rate_limited when the client has passed it.
 */
export async function limitUnpaidCreation(
  ctx: { store: Store; clock: { now(): number } },
  clientKey: string,
  rule: RateLimit,
  what: string,
): Promise<void> {
  const rate = await consumeRate(ctx.store, "unpaid", clientKey, rule, ctx.clock.now());
  if (!rate.allowed) throw rateLimitedError(rate.retryAfterSeconds, what);
}

/** Counts attempts in this process only: for limits that guard work, not money, where a store write would cost more
 * than the work it guards. Several server processes each count on their own. */
export interface LocalRateLimiter {
  consume(subject: string, now: number): RateDecision;
}

/** A fixed-window limiter in memory; it forgets every window that has ended, and holds at most `maxSubjects`. */
export function createLocalRateLimiter(rule: RateLimit, maxSubjects = 100_000): LocalRateLimiter {
  let window = -1;
  let counts = new Map<string, number>();
  return {
    consume(subject, now) {
      const current = Math.floor(now / rule.windowMs);
      if (current !== window) {
        window = current;
        counts = new Map();
      }
      const count = counts.get(subject) ?? 0;
      const windowEnd = (current + 1) * rule.windowMs;
      if (count >= rule.limit) {
        return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil((windowEnd - now) / 1000)) };
      }
      if (count === 0 && counts.size >= maxSubjects) counts.delete(counts.keys().next().value as string);
      counts.set(subject, count + 1);
      return { allowed: true, remaining: rule.limit - count - 1 };
    },
  };
}
