import type { Store } from "@mailpiece/ports";
import { PortError } from "@mailpiece/ports";

export interface RateLimit {
  /** Attempts allowed per window. */
  limit: number;
  windowMs: number;
}

export type RateDecision =
  | { allowed: true; remaining: number }
  | { allowed: false; retryAfterSeconds: number };

/**
 * Counts one attempt for `subject` in the current fixed window, in the shared store (so several server processes
 * count together). Counting is compare-and-set, so concurrent attempts are never lost.
 */
export async function consumeRate(
  store: Store,
  name: string,
  subject: string,
  rule: RateLimit,
  now: number,
): Promise<RateDecision> {
  const window = Math.floor(now / rule.windowMs);
  const key = `ratelimit:${name}:${subject.replace(/[^A-Za-z0-9._-]/g, "_").slice(0, 200)}:${window}`;
  const windowEnd = (window + 1) * rule.windowMs;
  const ttlMs = windowEnd - now + 1000;
  for (let attempt = 0; attempt < 50; attempt++) {
    const current = await store.get<number>(key);
    const count = current?.value ?? 0;
    if (count >= rule.limit) {
      return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil((windowEnd - now) / 1000)) };
    }
    try {
      if (current) await store.put(key, count + 1, { ifVersion: current.version, ttlMs });
      else {
        const created = await store.create(key, 1, { ttlMs });
        if (!created.created) continue;
      }
      return { allowed: true, remaining: rule.limit - count - 1 };
    } catch (error) {
      if (PortError.isInstance(error) && error.code === "version_conflict") continue;
      throw error;
    }
  }
  return { allowed: false, retryAfterSeconds: 1 };
}
