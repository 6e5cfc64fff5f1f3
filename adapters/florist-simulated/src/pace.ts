/**
 * When a simulated order moves. By default it follows its delivery date: out for delivery at `outForDeliveryHour`
 * and delivered at `deliveredHour`, local time on that date, each step at least `minStepMs` after the one before
 * (a same-day order placed at noon still needs time to be made). For demonstrations, `outForDeliveryAfterMs` and
 * `deliverAfterMs` replace the calendar with fixed delays after submission. `status` reads the order's place from
 * these and the clock; nothing runs in the background.
 */
export interface FloristPace {
  outForDeliveryHour: number;
  deliveredHour: number;
  minStepMs: number;
  /** Set together with `deliverAfterMs`, or both null for the calendar. */
  outForDeliveryAfterMs: number | null;
  deliverAfterMs: number | null;
}

export const DEFAULT_FLORIST_PACE: Readonly<FloristPace> = Object.freeze({
  outForDeliveryHour: 9,
  deliveredHour: 14,
  minStepMs: 3_600_000,
  outForDeliveryAfterMs: null,
  deliverAfterMs: null,
});

/** The pace with defaults filled in; throws RangeError for hours or delays that are out of range or out of order. */
export function resolvePace(pace: Partial<FloristPace> = {}): FloristPace {
  const defined = Object.fromEntries(Object.entries(pace).filter(([, v]) => v !== undefined));
  const resolved: FloristPace = { ...DEFAULT_FLORIST_PACE, ...defined };
  for (const key of ["outForDeliveryHour", "deliveredHour"] as const) {
    const hour = resolved[key];
    if (!Number.isInteger(hour) || hour < 0 || hour > 23) {
      throw new RangeError(`pace.${key} must be an hour from 0 to 23, got ${hour}`);
    }
  }
  if (resolved.outForDeliveryHour > resolved.deliveredHour) {
    throw new RangeError("pace must satisfy outForDeliveryHour <= deliveredHour");
  }
  const delays = [resolved.minStepMs, resolved.outForDeliveryAfterMs, resolved.deliverAfterMs];
  for (const delay of delays) {
    if (delay !== null && (!Number.isSafeInteger(delay) || delay < 0)) {
      throw new RangeError(`pace delays must be whole numbers of milliseconds >= 0, got ${delay}`);
    }
  }
  const { outForDeliveryAfterMs: out, deliverAfterMs: deliver } = resolved;
  if ((out === null) !== (deliver === null)) {
    throw new RangeError("pace.outForDeliveryAfterMs and pace.deliverAfterMs are set together or not at all");
  }
  if (out !== null && deliver !== null && out > deliver) {
    throw new RangeError("pace must satisfy outForDeliveryAfterMs <= deliverAfterMs");
  }
  return resolved;
}
