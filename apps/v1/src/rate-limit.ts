/** What a limiter answers for one request. */
export type RateDecision =
  | { allowed: true; remaining: number }
  | { allowed: false; retryAfterSeconds: number };

/**
 * A sliding-window request limit kept in this process's memory: at most `limit` requests per subject in any
 * `windowMs`. Several server processes each count on their own, so a deployment of N processes behind a balancer
 * lets a subject make up to N × limit requests per window.
 */
export interface SlidingWindowLimiter {
  /** Counts one request of `subject` at `now` (ms), or refuses it (counting nothing) when the window is full. */
  consume(subject: string, now: number): RateDecision;
  /** Whether `subject` is over its limit at `now`, without counting anything. */
  check(subject: string, now: number): RateDecision;
  /** Subjects held (for tests and metrics). */
  readonly size: number;
}

interface Window {
  /** The times of the requests in the window, a ring buffer of `limit` slots. */
  times: Float64Array;
  /** Slot of the oldest request held. */
  head: number;
  /** Requests held. */
  count: number;
}

/**
 * A sliding-window log per subject in a ring buffer of `limit` request times (8 bytes each): exact, with no burst
 * at window edges. At most `maxSubjects` subjects are held; past that the least recently seen one is forgotten
 * (every request, allowed or not, makes its subject the most recently seen), which only matters when more subjects than that are active in one
 * window.
 */
export function createSlidingWindowLimiter(
  limit: number,
  windowMs: number,
  maxSubjects = 10_000,
): SlidingWindowLimiter {
  if (!Number.isInteger(limit) || limit < 1) throw new RangeError("limit must be a positive integer");
  if (!Number.isFinite(windowMs) || windowMs <= 0) throw new RangeError("windowMs must be positive");
  const windows = new Map<string, Window>();

  /** The subject's window with the requests that left it dropped; undefined when nothing is held. */
  const current = (subject: string, now: number): Window | undefined => {
    const window = windows.get(subject);
    if (!window) return undefined;
    while (window.count > 0 && window.times[window.head]! <= now - windowMs) {
      window.head = (window.head + 1) % limit;
      window.count--;
    }
    return window;
  };

  const decide = (window: Window | undefined, now: number): RateDecision => {
    const count = window?.count ?? 0;
    if (window === undefined || count < limit) return { allowed: true, remaining: limit - count };
    const oldest = window.times[window.head]!;
    return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil((oldest + windowMs - now) / 1000)) };
  };

  return {
    check(subject, now) {
      return decide(current(subject, now), now);
    },
    consume(subject, now) {
      let window = current(subject, now);
      // Re-inserted below: a Map keeps insertion order, so its first subject is the least recently seen.
      if (window) {
        windows.delete(subject);
      } else {
        window = { times: new Float64Array(limit), head: 0, count: 0 };
        if (windows.size >= maxSubjects) windows.delete(windows.keys().next().value as string);
      }
      windows.set(subject, window);
      const decision = decide(window, now);
      if (!decision.allowed) return decision;
      window.times[(window.head + window.count) % limit] = now;
      window.count++;
      return { allowed: true, remaining: limit - window.count };
    },
    get size() {
      return windows.size;
    },
  };
}
