import type { H3Event, Middleware } from "h3";

/**
 * The request bytes the app holds at once. A JSON body is held several times over while it is parsed and its PDF
 * decoded and checked, so a few large requests at once could exhaust memory: past the budget a request is turned
 * away (503, Retry-After), before its body is read when it declares its length, else as soon as it passes the
 * budget while streaming; a smaller one still gets in.
 */
export interface BodyBudget {
  /** A reservation for one request; release it when the request is answered. */
  lease(): BodyLease;
  /** Bytes reserved by all leases. */
  readonly held: number;
}

export interface BodyLease {
  /**
   * Makes sure `total` bytes are reserved for this request (a declared length, or the bytes read so far); false
   * when that would pass the budget. A lone request always fits.
   */
  reserve(total: number): boolean;
  release(): void;
}

export function createBodyBudget(limitBytes: number): BodyBudget {
  let held = 0;
  return {
    lease() {
      let mine = 0;
      return {
        reserve(total) {
          if (total <= mine) return true;
          const more = total - mine;
          if (held - mine > 0 && held + more > limitBytes) return false;
          held += more;
          mine = total;
          return true;
        },
        release() {
          held -= mine;
          mine = 0;
        },
      };
    },
    get held() {
      return held;
    },
  };
}

const leases = new WeakMap<H3Event, BodyLease>();

/** Route middleware: a lease on `budget` for the request, released once it is answered. */
export function holdBodyBudget(budget: BodyBudget): Middleware {
  return async (event, next) => {
    const lease = budget.lease();
    leases.set(event, lease);
    try {
      return await next();
    } finally {
      lease.release();
    }
  };
}

/** The request's lease, when its route holds the body budget. */
export function leaseOf(event: H3Event): BodyLease | undefined {
  return leases.get(event);
}
