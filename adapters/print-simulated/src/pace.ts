/**
 * How fast a simulated job moves, in milliseconds after submission: accepted into production, handed to the
 * carrier, then delivered (or returned). `status` reads the job's place from these and the clock; nothing runs
 * in the background.
 */
export interface Pace {
  acceptAfterMs: number;
  inTransitAfterMs: number;
  deliverAfterMs: number;
}

/** Fast enough to watch a paid letter reach submitted and accepted within seconds in development. */
export const DEFAULT_PACE: Readonly<Pace> = Object.freeze({
  acceptAfterMs: 2_000,
  inTransitAfterMs: 10_000,
  deliverAfterMs: 30_000,
});

/** The pace with defaults filled in; throws RangeError unless every step is a whole number of ms, in order. */
export function resolvePace(pace: Partial<Pace> = {}): Pace {
  const resolved: Pace = { ...DEFAULT_PACE, ...stripUndefined(pace) };
  for (const key of ["acceptAfterMs", "inTransitAfterMs", "deliverAfterMs"] as const) {
    const value = resolved[key];
    if (!Number.isSafeInteger(value) || value < 0) {
      throw new RangeError(`pace.${key} must be a whole number of milliseconds >= 0, got ${value}`);
    }
  }
  if (
    resolved.acceptAfterMs > resolved.inTransitAfterMs ||
    resolved.inTransitAfterMs > resolved.deliverAfterMs
  ) {
    throw new RangeError("pace must satisfy acceptAfterMs <= inTransitAfterMs <= deliverAfterMs");
  }
  return resolved;
}

function stripUndefined(pace: Partial<Pace>): Partial<Pace> {
  return Object.fromEntries(Object.entries(pace).filter(([, value]) => value !== undefined));
}
