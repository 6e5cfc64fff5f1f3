import { defineError } from "@mailpiece/errors";
import { describe, expect, it } from "vitest";
import { LifecycleError, type LifecycleErrorCode } from "./errors.ts";
import type { OrderStatus } from "./statuses.ts";
import type { Lifecycle, TimelineEvent, TransitionMeta } from "./timeline.ts";
import { startLifecycle, transition } from "./transition.ts";

const T0 = Date.UTC(2026, 2, 14, 9, 30);

function codeOf(action: () => unknown): LifecycleErrorCode | undefined {
  try {
    action();
  } catch (error) {
    if (LifecycleError.isInstance(error)) return error.code;
    throw error;
  }
  return undefined;
}

function fieldOf(action: () => unknown): string | undefined {
  try {
    action();
  } catch (error) {
    if (LifecycleError.isInstance(error)) return error.field;
  }
  return undefined;
}

describe("startLifecycle", () => {
  it("starts queued with one order.queued event and no status before", () => {
    expect(startLifecycle({ source: "payment", at: T0, id: "evt-1" })).toEqual({
      status: "queued",
      timeline: [
        {
          id: "evt-1",
          event_type: "order.queued",
          status_before: null,
          status_after: "queued",
          source: "payment",
          created_at: "2026-03-14T09:30:00.000Z",
        },
      ],
    });
  });

  it("checks its details like any transition", () => {
    expect(codeOf(() => startLifecycle({ source: "payment", at: Number.NaN, id: "e" }))).toBe(
      "invalid_input",
    );
  });
});

describe("transition", () => {
  it("walks a letter from queued to delivered with one chained event per step", () => {
    let clock = T0;
    let n = 0;
    const meta = (source: TransitionMeta["source"] = "system"): TransitionMeta => {
      clock += 60_000;
      n += 1;
      return { source, at: clock, id: `evt-${n}` };
    };
    let order: Lifecycle & { id: string; price_cents: number } = {
      id: "ord-1",
      price_cents: 340,
      ...startLifecycle(meta("payment")),
    };
    const path: OrderStatus[] = [
      "document_preparing",
      "document_prepared",
      "submitted",
      "accepted",
      "in_transit",
      "delivered",
    ];
    for (const to of path) {
      order = transition(
        order,
        to,
        meta(to === "submitted" ? "system" : to === "document_prepared" ? "system" : "provider"),
      );
    }
    expect(order.status).toBe("delivered");
    expect(order.id).toBe("ord-1");
    expect(order.price_cents).toBe(340);
    expect(order.timeline.map((e) => [e.status_before, e.status_after, e.event_type])).toEqual([
      [null, "queued", "order.queued"],
      ["queued", "document_preparing", "order.document_preparing"],
      ["document_preparing", "document_prepared", "order.document_prepared"],
      ["document_prepared", "submitted", "order.submitted"],
      ["submitted", "accepted", "order.accepted"],
      ["accepted", "in_transit", "order.in_transit"],
      ["in_transit", "delivered", "order.delivered"],
    ]);
    expect(order.timeline.map((e) => e.id)).toEqual([
      "evt-1",
      "evt-2",
      "evt-3",
      "evt-4",
      "evt-5",
      "evt-6",
      "evt-7",
    ]);
    expect(order.timeline.map((e) => e.created_at)).toEqual([
      "2026-03-14T09:31:00.000Z",
      "2026-03-14T09:32:00.000Z",
      "2026-03-14T09:33:00.000Z",
      "2026-03-14T09:34:00.000Z",
      "2026-03-14T09:35:00.000Z",
      "2026-03-14T09:36:00.000Z",
      "2026-03-14T09:37:00.000Z",
    ]);
  });

  it("is pure: the input order and its timeline are not changed", () => {
    const order = startLifecycle({ source: "payment", at: T0, id: "e1" });
    const before = structuredClone(order);
    const moved = transition(order, "document_preparing", { source: "system", at: T0 + 1, id: "e2" });
    expect(order).toEqual(before);
    expect(moved.timeline).not.toBe(order.timeline);
    expect(moved.timeline).toHaveLength(2);
  });

  it("records a reason only when one is given", () => {
    const order = startLifecycle({ source: "payment", at: T0, id: "e1" });
    const failed = transition(order, "failed", {
      source: "system",
      at: T0,
      id: "e2",
      reason: "PDF is encrypted",
    });
    expect(failed.timeline[1]?.reason).toBe("PDF is encrypted");
    const canceled = transition(order, "canceled", { source: "customer", at: T0, id: "e3" });
    expect(canceled.timeline[1]).not.toHaveProperty("reason");
  });

  it("refuses unknown statuses with unknown_status", () => {
    const order = startLifecycle({ source: "payment", at: T0, id: "e1" });
    expect(
      codeOf(() => transition(order, "mailed" as OrderStatus, { source: "system", at: T0, id: "e2" })),
    ).toBe("unknown_status");
    const odd = { status: "awaiting_payment" as OrderStatus, timeline: [] };
    expect(codeOf(() => transition(odd, "queued", { source: "system", at: T0, id: "e2" }))).toBe(
      "unknown_status",
    );
  });

  it("refuses malformed details with invalid_input and names the field", () => {
    const order = startLifecycle({ source: "payment", at: T0, id: "e1" });
    const cases: Array<[Partial<TransitionMeta> | null, string]> = [
      [{ source: "system", at: T0, id: "" }, "id"],
      [{ source: "system", at: T0, id: "x".repeat(256) }, "id"],
      [{ source: "system", at: T0 }, "id"],
      [{ source: "system", at: Number.POSITIVE_INFINITY, id: "e2" }, "at"],
      [{ source: "system", at: 8.64e15 + 1, id: "e2" }, "at"],
      [{ source: "system", id: "e2" }, "at"],
      [{ source: "system", at: "2026-01-01" as unknown as number, id: "e2" }, "at"],
      [{ source: "robot" as TransitionMeta["source"], at: T0, id: "e2" }, "source"],
      [{ source: "system", at: T0, id: "e2", reason: "" }, "reason"],
      [{ source: "system", at: T0, id: "e2", reason: "r".repeat(1001) }, "reason"],
      [null, "meta"],
    ];
    for (const [meta, field] of cases) {
      const act = () => transition(order, "document_preparing", meta as TransitionMeta);
      expect(codeOf(act), JSON.stringify(meta)).toBe("invalid_input");
      expect(fieldOf(act)).toBe(field);
    }
    expect(
      transition(order, "document_preparing", { source: "system", at: T0, id: "x".repeat(255) }).status,
    ).toBe("document_preparing");
  });

  it("refuses a timeline that does not end at the order's status", () => {
    const order = {
      ...startLifecycle({ source: "payment", at: T0, id: "e1" }),
      status: "document_preparing" as const,
    };
    expect(codeOf(() => transition(order, "document_prepared", { source: "system", at: T0, id: "e2" }))).toBe(
      "inconsistent_timeline",
    );
  });

  it("refuses a timeline whose events do not chain", () => {
    const first = startLifecycle({ source: "payment", at: T0, id: "e1" });
    const jump: TimelineEvent = {
      id: "e2",
      event_type: "order.document_prepared",
      status_before: "document_preparing",
      status_after: "document_prepared",
      source: "system",
      created_at: new Date(T0).toISOString(),
    };
    const order: Lifecycle = { status: "document_prepared", timeline: [...first.timeline, jump] };
    expect(codeOf(() => transition(order, "submitted", { source: "system", at: T0, id: "e3" }))).toBe(
      "inconsistent_timeline",
    );
  });

  it("refuses an event id the timeline already holds", () => {
    const order = startLifecycle({ source: "payment", at: T0, id: "e1" });
    expect(
      codeOf(() => transition(order, "document_preparing", { source: "system", at: T0, id: "e1" })),
    ).toBe("inconsistent_timeline");
  });

  it("accepts an order with an empty timeline and starts its history there", () => {
    const moved = transition({ status: "document_prepared", timeline: [] }, "submitted", {
      source: "system",
      at: T0,
      id: "e1",
    });
    expect(moved.timeline).toEqual([
      expect.objectContaining({ status_before: "document_prepared", status_after: "submitted" }),
    ]);
  });

  it("throws LifecycleError instances recognised across copies", () => {
    const order = startLifecycle({ source: "payment", at: T0, id: "e1" });
    let caught: unknown;
    try {
      transition(order, "delivered", { source: "system", at: T0, id: "e2" });
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(LifecycleError);
    expect((caught as Error).message).toContain("queued");
    // A second install of the package makes its class with the same name.
    const Copied = defineError<LifecycleErrorCode>("LifecycleError");
    expect(LifecycleError.isInstance(new Copied("unknown_status", "x"))).toBe(true);
    expect(LifecycleError.isInstance(caught)).toBe(true);
    expect(LifecycleError.isInstance(new Error("x"))).toBe(false);
  });
});
