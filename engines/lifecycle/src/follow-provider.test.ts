import { describe, expect, it } from "vitest";
import { LifecycleError } from "./errors.ts";
import { followProvider, PROVIDER_JOB_STATUSES, type ProviderJobStatus } from "./follow-provider.ts";
import type { OrderStatus } from "./statuses.ts";
import type { Lifecycle } from "./timeline.ts";

const AT = Date.UTC(2026, 4, 1, 12);

function counter(prefix = "evt") {
  let n = 0;
  return { uuid: () => `${prefix}-${++n}` };
}

const orderAt = (status: OrderStatus): Lifecycle & { ref: string } => ({ ref: "R1", status, timeline: [] });

const walk = (status: OrderStatus, to: ProviderJobStatus) =>
  followProvider(orderAt(status), to, { source: "provider", at: AT, ids: counter() });

const path = (result: { events: { status_before: OrderStatus | null; status_after: OrderStatus }[] }) =>
  result.events.map((e) => `${e.status_before}->${e.status_after}`);

describe("followProvider", () => {
  it("walks a submitted order to delivered through every status, one event each", () => {
    const result = walk("submitted", "delivered");
    expect(result.order.status).toBe("delivered");
    expect(path(result)).toEqual(["submitted->accepted", "accepted->in_transit", "in_transit->delivered"]);
    expect(result.order.timeline).toEqual(result.events);
    expect(result.events.map((e) => e.id)).toEqual(["evt-1", "evt-2", "evt-3"]);
    expect(
      result.events.every((e) => e.source === "provider" && e.created_at === "2026-05-01T12:00:00.000Z"),
    ).toBe(true);
    expect(result.order.ref).toBe("R1");
  });

  it("passes through every status of the job's path: through submitted from document_prepared", () => {
    expect(path(walk("document_prepared", "accepted"))).toEqual([
      "document_prepared->submitted",
      "submitted->accepted",
    ]);
  });

  it("ends returned pieces as returned and canceled jobs through submitted", () => {
    expect(path(walk("accepted", "returned"))).toEqual(["accepted->in_transit", "in_transit->returned"]);
    expect(path(walk("document_prepared", "canceled"))).toEqual([
      "document_prepared->submitted",
      "submitted->canceled",
    ]);
    expect(path(walk("submitted", "failed"))).toEqual(["submitted->failed"]);
    expect(path(walk("accepted", "failed"))).toEqual(["accepted->failed"]);
  });

  it("changes nothing when the order is already where the provider is", () => {
    const same: Array<[OrderStatus, ProviderJobStatus]> = [
      ["submitted", "submitted"],
      ["accepted", "accepted"],
      ["in_transit", "in_transit"],
      ["delivered", "delivered"],
      ["returned", "returned"],
      ["failed", "failed"],
      ["canceled", "canceled"],
    ];
    for (const [status, reported] of same) {
      const result = walk(status, reported);
      expect(result.events, `${status} / ${reported}`).toEqual([]);
      expect(result.order.status).toBe(status);
    }
  });

  it("changes nothing for a report behind the order on the carrier's road", () => {
    for (const [status, reported] of [
      ["accepted", "submitted"],
      ["in_transit", "accepted"],
      ["delivered", "in_transit"],
      ["returned", "submitted"],
    ] as Array<[OrderStatus, ProviderJobStatus]>) {
      expect(walk(status, reported).events, `${status} / ${reported}`).toEqual([]);
    }
  });

  it("refuses a report the machine cannot reach with transition_not_allowed", () => {
    const contradictions: Array<[OrderStatus, ProviderJobStatus]> = [
      ["accepted", "canceled"],
      ["in_transit", "failed"],
      ["delivered", "returned"],
      ["returned", "delivered"],
      ["canceled", "accepted"],
      ["failed", "delivered"],
      ["queued", "accepted"],
    ];
    for (const [status, reported] of contradictions) {
      expect(() => walk(status, reported), `${status} / ${reported}`).toThrow(
        expect.objectContaining({ code: "transition_not_allowed" }),
      );
    }
  });

  it("does not move a submission_pending order unless the source is reconciliation", () => {
    expect(() => walk("submission_pending", "accepted")).toThrow(
      expect.objectContaining({ code: "transition_not_allowed" }),
    );
    const reconciled = followProvider(orderAt("submission_pending"), "in_transit", {
      source: "reconciliation",
      at: AT,
      ids: counter(),
    });
    expect(path(reconciled)).toEqual([
      "submission_pending->submitted",
      "submitted->accepted",
      "accepted->in_transit",
    ]);
  });

  it("refuses an unknown provider status or a missing id generator with invalid_input", () => {
    expect(() => walk("submitted", "printed" as ProviderJobStatus)).toThrow(
      expect.objectContaining({ code: "invalid_input", field: "status" }),
    );
    expect(() =>
      followProvider(orderAt("submitted"), "accepted", {
        source: "provider",
        at: AT,
        ids: undefined as unknown as { uuid(): string },
      }),
    ).toThrow(LifecycleError);
  });

  it("names every provider status the port reports", () => {
    expect([...PROVIDER_JOB_STATUSES]).toEqual([
      "submitted",
      "accepted",
      "in_transit",
      "delivered",
      "returned",
      "failed",
      "canceled",
    ]);
  });
});
