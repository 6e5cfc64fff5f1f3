import { describe, expect, it } from "vitest";
import { LifecycleError } from "./errors.ts";
import { isTerminal, ORDER_STATUSES, type OrderStatus, TERMINAL_STATUSES } from "./statuses.ts";
import type { Lifecycle, TransitionSource } from "./timeline.ts";
import { transition } from "./transition.ts";
import { canTransition, TRANSITIONS } from "./transitions.ts";

/** The machine as documented, written out independently of `TRANSITIONS`. */
const ALLOWED: ReadonlyArray<readonly [OrderStatus, OrderStatus]> = [
  ["queued", "document_preparing"],
  ["queued", "failed"],
  ["queued", "canceled"],
  ["document_preparing", "document_prepared"],
  ["document_preparing", "failed"],
  ["document_preparing", "canceled"],
  ["document_prepared", "submitted"],
  ["document_prepared", "submission_pending"],
  ["document_prepared", "failed"],
  ["document_prepared", "canceled"],
  ["submission_pending", "submitted"],
  ["submission_pending", "accepted"],
  ["submission_pending", "failed"],
  ["submitted", "accepted"],
  ["submitted", "failed"],
  ["submitted", "canceled"],
  ["accepted", "in_transit"],
  ["accepted", "failed"],
  ["in_transit", "delivered"],
  ["in_transit", "returned"],
];

const allowed = new Set(ALLOWED.map(([from, to]) => `${from}->${to}`));
const at = Date.UTC(2026, 0, 1);

/** An order sitting in `status` with a one-event timeline that ends there. */
function orderAt(status: OrderStatus): Lifecycle & { id: string } {
  return {
    id: "order-1",
    status,
    timeline: [
      {
        id: "e0",
        event_type: `order.${status}`,
        status_before: null,
        status_after: status,
        source: "system",
        created_at: new Date(at).toISOString(),
      },
    ],
  };
}

const sourceFor = (from: OrderStatus): TransitionSource =>
  from === "submission_pending" ? "reconciliation" : "system";

describe("TRANSITIONS", () => {
  it("is exactly the documented machine", () => {
    const table = ORDER_STATUSES.flatMap((from) => TRANSITIONS[from].map((to) => `${from}->${to}`));
    expect(new Set(table)).toEqual(allowed);
    expect(table).toHaveLength(allowed.size);
    expect(Object.keys(TRANSITIONS).sort()).toEqual([...ORDER_STATUSES].sort());
  });

  it("is frozen data", () => {
    expect(Object.isFrozen(TRANSITIONS)).toBe(true);
    for (const status of ORDER_STATUSES) expect(Object.isFrozen(TRANSITIONS[status])).toBe(true);
  });

  for (const [from, to] of ALLOWED) {
    it(`allows ${from} -> ${to} and records it`, () => {
      expect(canTransition(from, to)).toBe(true);
      const moved = transition(orderAt(from), to, { source: sourceFor(from), at: at + 1000, id: "e1" });
      expect(moved.status).toBe(to);
      expect(moved.timeline.at(-1)).toEqual({
        id: "e1",
        event_type: `order.${to}`,
        status_before: from,
        status_after: to,
        source: sourceFor(from),
        created_at: "2026-01-01T00:00:01.000Z",
      });
    });
  }

  const disallowed = ORDER_STATUSES.flatMap((from) =>
    ORDER_STATUSES.filter((to) => !allowed.has(`${from}->${to}`)).map((to) => [from, to] as const),
  );

  it("leaves 101 pairs disallowed, self-transitions among them", () => {
    expect(disallowed).toHaveLength(ORDER_STATUSES.length ** 2 - ALLOWED.length);
    for (const status of ORDER_STATUSES) expect(canTransition(status, status)).toBe(false);
  });

  it.each(disallowed)("refuses %s -> %s with transition_not_allowed, changing nothing", (from, to) => {
    expect(canTransition(from, to)).toBe(false);
    for (const source of ["system", "reconciliation", "operator"] as const) {
      const order = orderAt(from);
      const before = structuredClone(order);
      let caught: unknown;
      try {
        transition(order, to, { source, at, id: "e1" });
      } catch (error) {
        caught = error;
      }
      expect(LifecycleError.isInstance(caught)).toBe(true);
      expect((caught as LifecycleError).code).toBe("transition_not_allowed");
      expect(order).toEqual(before);
    }
  });
});

describe("isTerminal", () => {
  it("is true exactly for delivered, returned, failed and canceled", () => {
    expect([...TERMINAL_STATUSES].sort()).toEqual(["canceled", "delivered", "failed", "returned"]);
    for (const status of ORDER_STATUSES) {
      expect(isTerminal(status)).toBe(["delivered", "returned", "failed", "canceled"].includes(status));
    }
  });

  it("matches the table: terminal statuses have no way out, every other status has one", () => {
    for (const status of ORDER_STATUSES) {
      expect(TRANSITIONS[status].length === 0).toBe(isTerminal(status));
    }
  });
});

describe("submission_pending", () => {
  it("is left only by reconciliation", () => {
    for (const to of TRANSITIONS.submission_pending) {
      for (const source of ["payment", "customer", "operator", "system", "provider"] as const) {
        expect(() => transition(orderAt("submission_pending"), to, { source, at, id: "e1" })).toThrow(
          expect.objectContaining({ code: "transition_not_allowed" }),
        );
      }
      expect(
        transition(orderAt("submission_pending"), to, { source: "reconciliation", at, id: "e1" }).status,
      ).toBe(to);
    }
  });

  it("has no way to canceled or back to document_prepared: nothing is mailed twice or lost silently", () => {
    expect(TRANSITIONS.submission_pending).not.toContain("canceled");
    expect(TRANSITIONS.submission_pending).not.toContain("document_prepared");
  });
});
