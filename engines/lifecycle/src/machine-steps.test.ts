import { describe, expect, it } from "vitest";
import { MACHINE_STEPS, machineSteps } from "./machine-steps.ts";
import type { OrderStatus } from "./statuses.ts";
import type { Lifecycle, TimelineEvent } from "./timeline.ts";
import { startLifecycle, transition } from "./transition.ts";

const T0 = Date.UTC(2026, 6, 1, 8);
const iso = (ms: number) => new Date(ms).toISOString();
const MIN = 60_000;

/** Walks a new order through `statuses`, one minute apart, starting one minute after T0. */
function timelineThrough(statuses: OrderStatus[]): TimelineEvent[] {
  let order: Lifecycle = startLifecycle({ source: "payment", at: T0 + MIN, id: "e0" });
  statuses.forEach((status, index) => {
    const source = order.status === "submission_pending" ? "reconciliation" : "system";
    order = transition(order, status, { source, at: T0 + (index + 2) * MIN, id: `e${index + 1}` });
  });
  return order.timeline;
}

describe("machineSteps", () => {
  it("derives the steps of a delivered letter from its timeline and extras", () => {
    const timeline = timelineThrough([
      "document_preparing",
      "document_prepared",
      "submitted",
      "accepted",
      "in_transit",
      "delivered",
    ]);
    expect(machineSteps(timeline, { payment_received_at: T0, email_sent_at: iso(T0 + 30 * MIN) })).toEqual([
      { step: "payment_received", at: iso(T0) },
      { step: "receiver_address_verified", at: iso(T0 + 3 * MIN) },
      { step: "sender_address_verified", at: iso(T0 + 3 * MIN) },
      { step: "pdf_normalized", at: iso(T0 + 3 * MIN) },
      { step: "letter_created", at: iso(T0 + 4 * MIN) },
      { step: "email_sent", at: iso(T0 + 30 * MIN) },
    ]);
  });

  it("uses the time the order was queued for payment_received when no payment time is given", () => {
    const steps = machineSteps(timelineThrough([]));
    expect(steps).toEqual([{ step: "payment_received", at: iso(T0 + MIN) }]);
  });

  it("reports no address or pdf step before the document is prepared", () => {
    const steps = machineSteps(timelineThrough(["document_preparing"])).map((s) => s.step);
    expect(steps).toEqual(["payment_received"]);
  });

  it("leaves sender_address_verified out for an order without a sender", () => {
    const steps = machineSteps(timelineThrough(["document_preparing", "document_prepared"]), {
      has_sender: false,
    }).map((s) => s.step);
    expect(steps).toEqual(["payment_received", "receiver_address_verified", "pdf_normalized"]);
  });

  it("never reports letter_created while the submission is pending, and reports it when reconciliation finds the job", () => {
    const pending = timelineThrough(["document_preparing", "document_prepared", "submission_pending"]);
    expect(machineSteps(pending).map((s) => s.step)).not.toContain("letter_created");
    const reconciled = timelineThrough([
      "document_preparing",
      "document_prepared",
      "submission_pending",
      "accepted",
    ]);
    expect(machineSteps(reconciled).find((s) => s.step === "letter_created")).toEqual({
      step: "letter_created",
      at: iso(T0 + 5 * MIN),
    });
  });

  it("reports canceled and refunded for an order canceled before printing", () => {
    const timeline = timelineThrough(["document_preparing", "canceled"]);
    expect(machineSteps(timeline, { refunded_at: T0 + 10 * MIN })).toEqual([
      { step: "payment_received", at: iso(T0 + MIN) },
      { step: "canceled", at: iso(T0 + 3 * MIN) },
      { step: "refunded", at: iso(T0 + 10 * MIN) },
    ]);
  });

  it("reports abandoned for an unpaid order with no timeline", () => {
    expect(machineSteps([], { abandoned_at: "2026-07-02T00:00:00Z" })).toEqual([
      { step: "abandoned", at: "2026-07-02T00:00:00.000Z" },
    ]);
    expect(machineSteps([])).toEqual([]);
  });

  it("orders steps by time, and steps at one instant in MACHINE_STEPS order", () => {
    const timeline = timelineThrough(["document_preparing", "document_prepared", "submitted"]);
    const steps = machineSteps(timeline, { payment_received_at: T0 + 100 * MIN, email_sent_at: T0 });
    expect(steps.map((s) => s.step)).toEqual([
      "email_sent",
      "receiver_address_verified",
      "sender_address_verified",
      "pdf_normalized",
      "letter_created",
      "payment_received",
    ]);
    for (const step of MACHINE_STEPS)
      expect(steps.filter((s) => s.step === step).length).toBeLessThanOrEqual(1);
  });

  it("refuses an unreadable time with invalid_input naming it", () => {
    expect(() => machineSteps([], { refunded_at: "yesterday" })).toThrow(
      expect.objectContaining({ code: "invalid_input", field: "extra.refunded_at" }),
    );
    expect(() => machineSteps([], { email_sent_at: Number.NaN })).toThrow(
      expect.objectContaining({ code: "invalid_input", field: "extra.email_sent_at" }),
    );
    const broken = timelineThrough([]).map((e) => ({ ...e, created_at: "not a date" }));
    expect(() => machineSteps(broken)).toThrow(
      expect.objectContaining({ code: "invalid_input", field: "timeline[0].created_at" }),
    );
  });
});
