import { describe, expect, it } from "vitest";
import type { ProviderJobStatus } from "./follow-provider.ts";
import { type ProviderAnswer, reconcileSubmission } from "./reconcile-submission.ts";
import type { OrderStatus } from "./statuses.ts";
import type { Lifecycle } from "./timeline.ts";
import { startLifecycle, transition } from "./transition.ts";

const T0 = Date.UTC(2026, 5, 1);

function ids() {
  let n = 0;
  return { uuid: () => `rec-${++n}` };
}

/** A paid letter whose submission timed out: queued, prepared, then submission_pending. */
function pendingOrder(): Lifecycle & { id: string } {
  let order: Lifecycle & { id: string } = {
    id: "ord-9",
    ...startLifecycle({ source: "payment", at: T0, id: "e1" }),
  };
  order = transition(order, "document_preparing", { source: "system", at: T0 + 1, id: "e2" });
  order = transition(order, "document_prepared", { source: "system", at: T0 + 2, id: "e3" });
  return transition(order, "submission_pending", {
    source: "system",
    at: T0 + 3,
    id: "e4",
    reason: "the provider did not answer in time",
  });
}

describe("reconcileSubmission", () => {
  const found: Array<[ProviderJobStatus, OrderStatus, OrderStatus[]]> = [
    ["submitted", "submitted", ["submitted"]],
    ["accepted", "accepted", ["submitted", "accepted"]],
    ["in_transit", "in_transit", ["submitted", "accepted", "in_transit"]],
    ["delivered", "delivered", ["submitted", "accepted", "in_transit", "delivered"]],
    ["returned", "returned", ["submitted", "accepted", "in_transit", "returned"]],
    ["failed", "failed", ["failed"]],
    ["canceled", "canceled", ["submitted", "canceled"]],
  ];
  for (const [reported, final, steps] of found) {
    it(`found ${reported}: advances the order to ${final} as reconciliation`, () => {
      const order = pendingOrder();
      const result = reconcileSubmission(
        order,
        { outcome: "found", status: reported, reference: "sim_1" },
        { at: T0 + 10_000, ids: ids() },
      );
      expect(result.decision).toBe("advance");
      expect(result.order.status).toBe(final);
      expect(result.events.map((e) => e.status_after)).toEqual(steps);
      expect(result.events[0]?.status_before).toBe("submission_pending");
      expect(result.events.every((e) => e.source === "reconciliation")).toBe(true);
      expect(result.order.timeline).toEqual([...order.timeline, ...result.events]);
      expect(result.decision === "advance" && result.reference).toBe("sim_1");
      expect(order.status).toBe("submission_pending");
    });
  }

  it("not_found: safe to submit again; the order stays pending until that submission answers", () => {
    const order = pendingOrder();
    const result = reconcileSubmission(order, { outcome: "not_found" }, { at: T0 + 10_000, ids: ids() });
    expect(result.decision).toBe("resubmit");
    expect(result.order).toEqual(order);
    expect(result.events).toEqual([]);
    // The resubmission answered: only reconciliation may record it.
    expect(() =>
      transition(result.order, "submitted", { source: "system", at: T0 + 11_000, id: "e5" }),
    ).toThrow(expect.objectContaining({ code: "transition_not_allowed" }));
    const submitted = transition(result.order, "submitted", {
      source: "reconciliation",
      at: T0 + 11_000,
      id: "e5",
    });
    expect(submitted.status).toBe("submitted");
  });

  it("unknown: stays submission_pending and changes nothing", () => {
    const order = pendingOrder();
    const result = reconcileSubmission(
      order,
      { outcome: "unknown", reason: "lookup timed out" },
      { at: T0 + 10_000, ids: ids() },
    );
    expect(result.decision).toBe("wait");
    expect(result.order).toEqual(order);
    expect(result.events).toEqual([]);
  });

  it("refuses an order that is not submission_pending", () => {
    for (const status of ["document_prepared", "submitted", "accepted", "failed"] as OrderStatus[]) {
      expect(() =>
        reconcileSubmission({ status, timeline: [] }, { outcome: "not_found" }, { at: T0, ids: ids() }),
      ).toThrow(expect.objectContaining({ code: "transition_not_allowed" }));
    }
  });

  it("refuses a malformed answer with invalid_input", () => {
    const bad: unknown[] = [
      undefined,
      {},
      { outcome: "maybe" },
      { outcome: "found" },
      { outcome: "found", status: "printed" },
    ];
    for (const answer of bad) {
      expect(() =>
        reconcileSubmission(pendingOrder(), answer as ProviderAnswer, { at: T0, ids: ids() }),
      ).toThrow(expect.objectContaining({ code: "invalid_input" }));
    }
  });

  it("carries a reason into every event it appends", () => {
    const result = reconcileSubmission(
      pendingOrder(),
      { outcome: "found", status: "in_transit" },
      { at: T0, ids: ids(), reason: "found by idempotency key" },
    );
    expect(result.events.map((e) => e.reason)).toEqual(Array(3).fill("found by idempotency key"));
    expect(result.decision === "advance" && "reference" in result).toBe(false);
  });
});
