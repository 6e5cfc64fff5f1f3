/** Time comes from an injected clock, so tests can advance it (quote expiry, TTLs, timelines). */
export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
}

/** Ids come from an injected generator, so tests can make them predictable. */
export interface IdGenerator {
  /** A new RFC 9562 UUID string. */
  uuid(): string;
}

export const systemClock: Clock = { now: () => Date.now() };

export const randomIds: IdGenerator = { uuid: () => crypto.randomUUID() };

/** A clock that only moves when told: for tests. */
export function manualClock(
  start = Date.UTC(2026, 0, 1),
): Clock & { advance(ms: number): void; set(ms: number): void } {
  let t = start;
  return {
    now: () => t,
    advance(ms: number) {
      t += ms;
    },
    set(ms: number) {
      t = ms;
    },
  };
}
