import type { Store } from "@mailpiece/ports";
import { PortError } from "@mailpiece/ports";
import { CoreError, rateLimitedError } from "./errors.ts";

export interface RateLimit {
  /** Attempts allowed per window. */
  limit: number;
  windowMs: number;
}

export type RateDecision =
  | { allowed: true; remaining: number }
  | { allowed: false; retryAfterSeconds: number };

/**
 * The decision of a sliding-window counter: the attempts of the current fixed window (number `index`) plus those of
 * the previous one, weighted by how much of the previous window the sliding window ending at `now` still covers. It
 * has no burst at window edges (a client that used its limit just before an edge is refused just after it) and costs
 * two counters per subject however large the limit; it assumes the previous window's attempts were spread evenly
 * over it. A refusal tells the seconds until `cost` more fits.
 */
function slidingDecision(
  rule: RateLimit,
  index: number,
  previous: number,
  current: number,
  now: number,
  cost: number,
): RateDecision {
  const { limit, windowMs } = rule;
  const start = index * windowMs;
  const used = previous * (1 - (now - start) / windowMs) + current;
  // The tolerance absorbs floating-point error in the weight, so an attempt fits at the exact moment computed below.
  if (used + cost <= limit + 1e-9) {
    return { allowed: true, remaining: Math.max(0, Math.floor(limit - used - cost + 1e-9)) };
  }
  // The first moment when it fits: within this window as the previous one's weight falls, or else in the next one,
  // where this window's attempts are the previous ones. What is larger than the limit never fits.
  const free =
    cost > limit
      ? now + windowMs
      : current + cost <= limit
        ? start + windowMs * (1 - (limit - cost - current) / previous)
        : start + windowMs * (2 - (limit - cost) / current);
  return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil((Math.round(free) - now) / 1000)) };
}

/**
 * Counts one attempt (or `cost` units of a budget, such as bytes) for `subject` in a sliding window (see
 * slidingDecision), in the shared store, so several server processes count together. Counting is compare-and-set,
 * so concurrent attempts are never lost. An attempt that would pass the limit is refused and counts nothing.
 */
export async function consumeRate(
  store: Store,
  name: string,
  subject: string,
  rule: RateLimit,
  now: number,
  cost = 1,
): Promise<RateDecision> {
  const { index, key, previous, current: firstRead } = await readWindows(store, name, subject, rule, now);
  // A window's count is read through the next window too.
  const ttlMs = (index + 2) * rule.windowMs - now + 1000;
  for (let attempt = 0; attempt < CONTENDED_ATTEMPTS; attempt++) {
    // After a conflict, a short random pause spreads the contenders out, so each round has a few winners.
    if (attempt > 0)
      await new Promise((resolve) => setTimeout(resolve, Math.random() * Math.min(20, attempt)));
    const current = attempt === 0 ? firstRead : await store.get<number>(key);
    const count = current?.value ?? 0;
    const decision = slidingDecision(rule, index, previous, count, now, cost);
    if (!decision.allowed) return decision;
    try {
      if (current) await store.put(key, count + cost, { ifVersion: current.version, ttlMs });
      else {
        const created = await store.create(key, cost, { ttlMs });
        if (!created.created) continue;
      }
      return decision;
    } catch (error) {
      if (PortError.isInstance(error) && error.code === "version_conflict") continue;
      throw error;
    }
  }
  // Contention is not a rate limit: the client is told to try again, as when the store cannot answer.
  throw new CoreError("storage_unavailable", "Too many requests are counted at once; try again shortly.", {
    retryAfterSeconds: 1,
  });
}

/**
 * The counters of `subject` under `name` at `now`: the fixed window's index and key, the previous window's count and
 * the current window's record. Both are read at once, so counting on a shared store waits for one round trip.
 */
async function readWindows(store: Store, name: string, subject: string, rule: RateLimit, now: number) {
  const index = Math.floor(now / rule.windowMs);
  const prefix = `ratelimit:${name}:${subject.replace(/[^A-Za-z0-9._-]/g, "_").slice(0, 200)}:`;
  const key = `${prefix}${index}`;
  const [previous, current] = await Promise.all([
    store.get<number>(`${prefix}${index - 1}`),
    store.get<number>(key),
  ]);
  return { index, key, previous: previous?.value ?? 0, current };
}

/** What `consumeRate` would answer for one attempt of `subject` at `now`, counting nothing. */
export async function peekRate(
  store: Store,
  name: string,
  subject: string,
  rule: RateLimit,
  now: number,
): Promise<RateDecision> {
  const { index, previous, current } = await readWindows(store, name, subject, rule, now);
  return slidingDecision(rule, index, previous, current?.value ?? 0, now, 1);
}

/**
 * A request limit of one kind (`name`), per subject: on a store shared by several processes (`shared: true`), the
 * counters are kept in it so every process counts together; otherwise in this process's memory, which is then the
 * only one. Either way the same sliding-window rule decides (see slidingDecision).
 */
export interface RequestLimiter {
  /** Counts one request of `subject`, or refuses it, counting nothing. */
  consume(subject: string): Promise<RateDecision>;
  /** What `consume` would answer now, counting nothing. */
  check(subject: string): Promise<RateDecision>;
}

export function createRequestLimiter(
  ctx: { store: Store; clock: { now(): number } },
  name: string,
  rule: RateLimit,
): RequestLimiter {
  if (ctx.store.capabilities.shared) {
    if (!Number.isInteger(rule.limit) || rule.limit < 1)
      throw new RangeError("limit must be a positive integer");
    if (!Number.isFinite(rule.windowMs) || rule.windowMs <= 0)
      throw new RangeError("windowMs must be positive");
    return {
      consume: (subject) => consumeRate(ctx.store, name, subject, rule, ctx.clock.now()),
      check: (subject) => peekRate(ctx.store, name, subject, rule, ctx.clock.now()),
    };
  }
  const local = createLocalRateLimiter(rule);
  return {
    consume: async (subject) => local.consume(subject, ctx.clock.now()),
    check: async (subject) => local.check(subject, ctx.clock.now()),
  };
}

/** How often one count is tried against concurrent ones before the request is turned away as contended. */
const CONTENDED_ATTEMPTS = 500;

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
  /** Counts one attempt of `subject` at `now` (ms), or refuses it, counting nothing. */
  consume(subject: string, now: number): RateDecision;
  /** What `consume` would answer at `now`, counting nothing. */
  check(subject: string, now: number): RateDecision;
  /** Subjects held. */
  readonly size: number;
}

interface Windows {
  /** Index of the fixed window `current` counts in. */
  index: number;
  current: number;
  previous: number;
}

/**
 * A sliding-window counter in memory (see slidingDecision). At most `maxSubjects` subjects are held; past that the
 * least recently seen is forgotten.
 */
export function createLocalRateLimiter(rule: RateLimit, maxSubjects = 100_000): LocalRateLimiter {
  const { limit, windowMs } = rule;
  if (!Number.isInteger(limit) || limit < 1) throw new RangeError("limit must be a positive integer");
  if (!Number.isFinite(windowMs) || windowMs <= 0) throw new RangeError("windowMs must be positive");
  const subjects = new Map<string, Windows>();

  /** The subject's counters moved to the window of `now` (without storing them). */
  const at = (held: Windows | undefined, now: number): Windows => {
    const index = Math.floor(now / windowMs);
    if (!held || held.index < index - 1) return { index, current: 0, previous: 0 };
    if (held.index === index - 1) return { index, current: 0, previous: held.current };
    return held;
  };
  const decide = (w: Windows, now: number) => slidingDecision(rule, w.index, w.previous, w.current, now, 1);

  return {
    check(subject, now) {
      return decide(at(subjects.get(subject), now), now);
    },
    consume(subject, now) {
      const held = subjects.get(subject);
      const w = at(held, now);
      // Re-inserted: a Map keeps insertion order, so its first subject is the least recently seen.
      if (held) subjects.delete(subject);
      else if (subjects.size >= maxSubjects) subjects.delete(subjects.keys().next().value as string);
      subjects.set(subject, w);
      const decision = decide(w, now);
      if (decision.allowed) w.current++;
      return decision;
    },
    get size() {
      return subjects.size;
    },
  };
}
