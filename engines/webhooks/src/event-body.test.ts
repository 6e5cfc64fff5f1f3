import { describe, expect, it } from "vitest";
import { WebhookError } from "./errors.ts";
import { eventBody, serialiseEvent } from "./event-body.ts";
import { EVENT_TYPES, eventType, parseEventType } from "./event-types.ts";

describe("event types and bodies", () => {
  it("are service.<kind>.<status> for the announced statuses; handwritten is never returned", () => {
    expect(EVENT_TYPES).toHaveLength(17);
    expect(eventType("letter", "returned")).toBe("service.letter.returned");
    expect(eventType("handwritten", "returned")).toBeUndefined();
    expect(eventType("handwritten", "in_transit")).toBe("service.handwritten.in_transit");
    expect(eventType("letter", "queued")).toBeUndefined();
    expect(eventType("parcel", "delivered")).toBeUndefined();
    expect(parseEventType("service.postcard.canceled")).toEqual({ kind: "postcard", status: "canceled" });
    expect(parseEventType("service.handwritten.returned")).toBeUndefined();
  });

  it("hold id, type, created, mode, data.object and the mailpiece's status and tracking", () => {
    const body = eventBody({
      id: "evt_abc",
      type: "service.letter.in_transit",
      created: 1_767_225_600,
      mode: "test",
      object: { id: "o1", status: "in_transit" },
      tracking_number: "9400",
    });
    expect(JSON.parse(serialiseEvent(body))).toEqual({
      id: "evt_abc",
      type: "service.letter.in_transit",
      created: 1_767_225_600,
      mode: "test",
      data: { object: { id: "o1", status: "in_transit" } },
      mailpiece: { status: "in_transit", tracking_number: "9400", tracking_status: null },
    });
    const base = {
      id: "evt_abc",
      type: "service.letter.delivered",
      created: 1,
      mode: "live" as const,
      object: {},
    };
    for (const bad of [
      { ...base, id: "abc" },
      { ...base, type: "service.letter.queued" },
      { ...base, mode: "prod" as "live" },
      { ...base, created: -1 },
    ]) {
      expect(() => eventBody(bad)).toThrow(WebhookError);
    }
  });
});
