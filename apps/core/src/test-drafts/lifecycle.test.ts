import { describe, expect, it } from "vitest";
import { fakeTrackingNumber, lifecycleAt, SIMULATIONS, TEST_EVENT_TYPES } from "./lifecycle.ts";

const CREATED = Date.UTC(2026, 2, 10, 9);
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const ORDER = "tord_00000000000040008000000000000001";
const piece = (simulate: (typeof SIMULATIONS)[number]) => ({
  order_id: ORDER,
  created_at: CREATED,
  simulate,
});
const typesAt = (simulate: (typeof SIMULATIONS)[number], now: number) =>
  lifecycleAt(piece(simulate), now).events.map((event) => event.type.replace("mail.order.", ""));

describe("lifecycleAt", () => {
  it("at creation: created and paid (of nothing), queued, the submission due a minute later", () => {
    const state = lifecycleAt(piece("delivered"), CREATED);
    expect(state.status).toBe("queued");
    expect(state.events.map((event) => event.type)).toEqual(["mail.order.created", "mail.order.paid"]);
    expect(state.events[0]).toEqual({
      id: "tev_00000000000040008000000000000001_01",
      type: "mail.order.created",
      created_at: "2026-03-10T09:00:00.000Z",
      data: {
        order_id: ORDER,
        status_before: null,
        status_after: "queued",
        tracking_number: null,
        tracking_status: null,
      },
    });
    expect(state.events[1]!.data).toMatchObject({ amount_cents: 0, currency: "usd" });
    expect(state.next_event_at).toBe("2026-03-10T09:01:00.000Z");
    expect(state.tracking_number).toBeNull();
  });

  it("delivered: each later reading adds the events due by then, and keeps the earlier ones as they were", () => {
    const readings = [0, MINUTE, 5 * MINUTE, HOUR, DAY, 2 * DAY, 2 * DAY + 6 * HOUR, 30 * DAY].map((after) =>
      lifecycleAt(piece("delivered"), CREATED + after),
    );
    expect(readings.map((state) => state.status)).toEqual([
      "queued",
      "submitted",
      "accepted",
      "in_transit",
      "in_transit",
      "in_transit",
      "delivered",
      "delivered",
    ]);
    expect(readings.map((state) => state.tracking_status)).toEqual([
      null,
      null,
      "pre_transit",
      "in_transit",
      "in_transit",
      "out_for_delivery",
      "delivered",
      "delivered",
    ]);
    for (const [index, state] of readings.entries()) {
      const previous = readings[index - 1];
      if (previous) expect(state.events.slice(0, previous.events.length)).toEqual(previous.events);
    }
    const last = readings[readings.length - 1]!;
    expect(last.next_event_at).toBeNull();
    expect(last.updated_at).toBe("2026-03-12T15:00:00.000Z");
    expect(last.tracking_number).toBe(fakeTrackingNumber(ORDER));
    expect(last.tracking_number).toMatch(/^TEST\d{20}$/);
    // Each event moves from the status the one before it left.
    for (const [index, event] of last.events.entries()) {
      expect(event.data.status_before).toBe(index === 0 ? null : last.events[index - 1]!.data.status_after);
      expect(event.id).toBe(`tev_00000000000040008000000000000001_${String(index + 1).padStart(2, "0")}`);
    }
  });

  it("one millisecond before an event it is not there; at its time it is", () => {
    expect(typesAt("delivered", CREATED + MINUTE - 1)).toEqual(["created", "paid"]);
    expect(typesAt("delivered", CREATED + MINUTE)).toEqual(["created", "paid", "submitted"]);
  });

  it("provider_rejected: rejected, failed and refunded, never tracked", () => {
    const state = lifecycleAt(piece("provider_rejected"), CREATED + DAY);
    expect(state.events.map((event) => event.type.replace("mail.order.", ""))).toEqual([
      "created",
      "paid",
      "submitted",
      "provider_rejected",
      "failed",
      "refunded",
    ]);
    expect(state.status).toBe("failed");
    expect(state.tracking_number).toBeNull();
    expect(state.events.every((event) => event.data.tracking_status === null)).toBe(true);
    expect(state.events[3]!.data.reason).toMatch(/refused/);
    expect(state.events[5]!.data).toMatchObject({ amount_cents: 0, status_after: "failed" });
  });

  it("returned: mailed, a delivery attempt, then back to the sender", () => {
    expect(typesAt("returned", CREATED + 5 * DAY)).toEqual([
      "created",
      "paid",
      "submitted",
      "provider_accepted",
      "mailed",
      "tracking_updated",
      "delivery_attempted",
      "tracking_updated",
    ]);
    const state = lifecycleAt(piece("returned"), CREATED + 5 * DAY);
    expect(state.status).toBe("returned");
    expect(state.tracking_status).toBe("returned_to_sender");
    expect(lifecycleAt(piece("returned"), CREATED + 3 * DAY).tracking_status).toBe("delivery_attempted");
  });

  it("failed: accepted, then production fails and the order is refunded", () => {
    expect(typesAt("failed", CREATED + DAY)).toEqual([
      "created",
      "paid",
      "submitted",
      "provider_accepted",
      "failed",
      "refunded",
    ]);
    expect(lifecycleAt(piece("failed"), CREATED + DAY).status).toBe("failed");
  });

  it("every event type of spec 3 occurs in some lifecycle, and no other", () => {
    const seen = new Set(
      SIMULATIONS.flatMap((simulate) =>
        lifecycleAt(piece(simulate), CREATED + 365 * DAY).events.map((event) => event.type),
      ),
    );
    expect([...seen].sort()).toEqual([...TEST_EVENT_TYPES].sort());
  });
});
