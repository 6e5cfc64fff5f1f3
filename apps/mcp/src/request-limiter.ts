/** A per-client budget of requests in fixed windows, kept in this process's memory. */
export interface RequestLimiter {
  consume(client: string, now: number): { allowed: true } | { allowed: false; retryAfterSeconds: number };
}

/** At most `limit` requests per client per `windowMs`; clients of past windows are forgotten. */
export function createRequestLimiter(limit: number, windowMs: number): RequestLimiter {
  let window = -1;
  let counts = new Map<string, number>();
  return {
    consume(client, now) {
      const current = Math.floor(now / windowMs);
      if (current !== window) {
        window = current;
        counts = new Map();
      }
      const used = counts.get(client) ?? 0;
      if (used >= limit) {
        return {
          allowed: false,
          retryAfterSeconds: Math.max(1, Math.ceil(((current + 1) * windowMs - now) / 1000)),
        };
      }
      counts.set(client, used + 1);
      return { allowed: true };
    },
  };
}
