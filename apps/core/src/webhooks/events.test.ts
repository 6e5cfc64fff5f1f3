import { startLifecycle, transition } from "@mailpiece/lifecycle";
import { describe, expect, it } from "vitest";
import type { OrderRecord } from "../order-record.ts";
import { refusal } from "../projects/projects.fixture.ts";
import { eventIdFor } from "./events.ts";
import { orderStatusChanges, recordOrderEvents } from "./order-events.ts";
import { memoryWebhooks, otherWorkspace, principal, statusChange } from "./webhooks.fixture.ts";

describe("recording status changes", () => {
  it("makes an event only for the announced statuses; handwritten mail is never returned", async () => {
    const { webhooks, store } = memoryWebhooks();
    for (const status of ["queued", "document_prepared", "submitted", "submission_pending"]) {
      expect(await webhooks.recordOrderStatus(statusChange("o-1", status))).toBeUndefined();
    }
    expect(
      await webhooks.recordOrderStatus(statusChange("o-1", "returned", { kind: "handwritten" })),
    ).toBeUndefined();
    expect((await store.list("webhook_events:")).records).toEqual([]);
    const event = await webhooks.recordOrderStatus(
      statusChange("o-1", "in_transit", { kind: "handwritten" }),
    );
    expect(event).toMatchObject({
      id: eventIdFor("o-1", "in_transit"),
      type: "service.handwritten.in_transit",
    });
  });

  it("refuse a change that does not name its workspace, mode, order, kind and status, storing nothing", async () => {
    const { webhooks, store } = memoryWebhooks();
    const error = await refusal(
      webhooks.recordOrderStatus({
        ...statusChange("o 1", "accepted"),
        mode: "prod" as "live",
        kind: "parcel" as "letter",
      }),
    );
    expect(error.code).toBe("validation_failed");
    expect(error.issues.map((issue) => issue.path)).toEqual(["order_id", "mode", "kind"]);
    expect((await store.list("webhook_events:")).records).toEqual([]);
  });

  it("queue each new event to every enabled endpoint, with one job per event and endpoint", async () => {
    const { webhooks, jobs, deliver, sent } = memoryWebhooks();
    const a = await webhooks.createEndpoint(principal, { url: "https://a.example.com/h" });
    const b = await webhooks.createEndpoint(principal, { url: "https://b.example.com/h" });
    const off = await webhooks.createEndpoint(principal, { url: "https://c.example.com/h" });
    await webhooks.disableEndpoint(principal, off.id);
    await webhooks.createEndpoint(otherWorkspace, { url: "https://other.example.com/h" });
    const event = (await webhooks.recordOrderStatus(statusChange("o-2", "accepted")))!;
    expect(event.deliveries.map((d) => [d.endpoint_id, d.kind, d.status])).toEqual([
      [a.id, "initial", "pending"],
      [b.id, "initial", "pending"],
    ]);
    expect(await jobs.get("webhooks", `${event.id}:${a.id}:initial`)).toMatchObject({ state: "pending" });
    expect(await deliver()).toBe(2);
    expect(sent.map((s) => s.url).sort()).toEqual(["https://a.example.com/h", "https://b.example.com/h"]);
    expect(new Set(sent.map((s) => s.body)).size).toBe(1);
  });
});

describe("event retention", () => {
  const DAY = 24 * 60 * 60 * 1000;

  it("keeps an event, its deliveries and its place in the listing for the retention, then forgets all of it", async () => {
    const { webhooks, store, clock, deliver, sent } = memoryWebhooks({ eventRetentionMs: 10 * DAY });
    await webhooks.createEndpoint(principal, { url: "https://a.example.com/h" });
    const event = (await webhooks.recordOrderStatus(statusChange("o-1", "accepted")))!;
    clock.advance(9 * DAY);
    // An attempt written late in the event's life keeps its deadline: the put does not make it permanent.
    expect(await deliver()).toBe(1);
    expect(sent).toHaveLength(1);
    expect((await webhooks.listEvents(principal)).data.map((e) => e.id)).toEqual([event.id]);
    expect((await webhooks.eventsOfOrder(principal, "o-1"))[0]?.deliveries[0]?.status).toBe("delivered");
    const replayed = await webhooks.replayEvent(principal, event.id);
    expect(replayed.deliveries).toHaveLength(2);

    clock.advance(DAY + 1);
    expect((await webhooks.listEvents(principal)).data).toEqual([]);
    expect(await webhooks.eventsOfOrder(principal, "o-1")).toEqual([]);
    expect((await refusal(webhooks.replayEvent(principal, event.id))).code).toBe("not_found");
    expect((await store.list("webhook_events:")).records).toEqual([]);
    expect((await store.list("webhook_event_index:")).records).toEqual([]);
    // The replay queued before the deadline finds nothing to send, and ends.
    expect(await deliver()).toBe(1);
    expect(sent).toHaveLength(1);
  });

  it("refuses a retention that does not outlast the retry schedule", () => {
    expect(() => memoryWebhooks({ retryScheduleMs: [DAY, DAY], eventRetentionMs: 2 * DAY })).toThrow(
      /eventRetentionMs/,
    );
    expect(() =>
      memoryWebhooks({ retryScheduleMs: [DAY, DAY], eventRetentionMs: 2 * DAY + 1 }),
    ).not.toThrow();
  });
});

describe("listing events", () => {
  it("lists the caller's mode newest first, a page at a time, with each delivery's attempts", async () => {
    const { webhooks, clock, deliver, sent } = memoryWebhooks();
    await webhooks.createEndpoint(principal, { url: "https://a.example.com/h" });
    const ids: string[] = [];
    for (const [i, status] of ["accepted", "in_transit", "delivered"].entries()) {
      clock.advance(1000);
      ids.push((await webhooks.recordOrderStatus(statusChange(`o-${i}`, status)))!.id);
    }
    await webhooks.recordOrderStatus(statusChange("o-live", "accepted", { mode: "live" }));
    await deliver();

    const first = await webhooks.listEvents(principal, { limit: "2" });
    expect(first.data.map((e) => e.id)).toEqual([ids[2], ids[1]]);
    expect(first.has_more).toBe(true);
    const second = await webhooks.listEvents(principal, { limit: 2, cursor: first.next_cursor! });
    expect(second.data.map((e) => e.id)).toEqual([ids[0]]);
    expect(second.next_cursor).toBeNull();
    expect(first.data[0]?.deliveries[0]?.attempts).toEqual([
      {
        at: new Date(clock.now()).toISOString(),
        http_status: 200,
        error: null,
        duration_ms: expect.any(Number),
        next_attempt_at: null,
      },
    ]);
    // One endpoint receives both modes; each event says its own.
    expect(sent.map((s) => JSON.parse(s.body).mode).sort()).toEqual(["live", "test", "test", "test"]);
    const live = await webhooks.listEvents({ ...principal, mode: "live" });
    expect(live.data.map((e) => [e.order_id, e.mode])).toEqual([["o-live", "live"]]);
    expect((await webhooks.listEvents(otherWorkspace)).data).toEqual([]);
  });

  it("refuses a limit or cursor it cannot read with invalid_query", async () => {
    const { webhooks } = memoryWebhooks();
    for (const limit of ["0", "101", "ten", 2.5]) {
      const error = await refusal(webhooks.listEvents(principal, { limit }));
      expect([error.code, error.issues[0]?.path]).toEqual(["invalid_query", "limit"]);
    }
    const error = await refusal(webhooks.listEvents(principal, { cursor: "not a cursor!" }));
    expect([error.code, error.issues[0]?.path]).toEqual(["invalid_query", "cursor"]);
  });

  it("lists one order's events oldest first, and nothing of another workspace's order", async () => {
    const { webhooks, clock } = memoryWebhooks();
    for (const status of ["accepted", "in_transit", "delivered"]) {
      clock.advance(1000);
      await webhooks.recordOrderStatus(statusChange("o-9", status));
    }
    const events = await webhooks.eventsOfOrder(principal, "o-9");
    expect(events.map((e) => e.type)).toEqual([
      "service.letter.accepted",
      "service.letter.in_transit",
      "service.letter.delivered",
    ]);
    expect(await webhooks.eventsOfOrder(otherWorkspace, "o-9")).toEqual([]);
    expect(await webhooks.eventsOfOrder({ ...principal, mode: "live" }, "o-9")).toEqual([]);
    expect(await webhooks.eventsOfOrder(principal, "o-unknown")).toEqual([]);
  });
});

describe("replaying events", () => {
  it("is not_found for an event of another workspace or mode, and state_conflict without an enabled endpoint", async () => {
    const { webhooks } = memoryWebhooks();
    const event = (await webhooks.recordOrderStatus(statusChange("o-1", "accepted")))!;
    expect((await refusal(webhooks.replayEvent(otherWorkspace, event.id))).code).toBe("not_found");
    expect((await refusal(webhooks.replayEvent({ ...principal, mode: "live" }, event.id))).code).toBe(
      "not_found",
    );
    expect((await refusal(webhooks.replayEvent(principal, "evt_unknown"))).code).toBe("not_found");
    expect((await refusal(webhooks.replayEvent(principal, event.id))).code).toBe("state_conflict");
  });

  it("queues one more delivery per enabled endpoint, endpoints made after the event included", async () => {
    const { webhooks, deliver, sent } = memoryWebhooks();
    const event = (await webhooks.recordOrderStatus(statusChange("o-1", "accepted")))!;
    expect(event.deliveries).toEqual([]);
    const endpoint = await webhooks.createEndpoint(principal, { url: "https://late.example.com/h" });
    const replayed = await webhooks.replayEvent(principal, event.id);
    expect(replayed.deliveries).toMatchObject([
      { endpoint_id: endpoint.id, kind: "replay", status: "pending" },
    ]);
    await deliver();
    expect(sent).toHaveLength(1);
    expect(sent[0]?.headers["webhook-id"]).toBe(event.id);
    expect(JSON.parse(sent[0]!.body).id).toBe(event.id);
  });
});

describe("the events of a Projects API order", () => {
  const at = Date.UTC(2026, 5, 1, 12);
  function order(statuses: string[]): OrderRecord {
    let lifecycle = startLifecycle({ source: "payment", at, id: "t0" });
    statuses.forEach((status, i) => {
      lifecycle = transition(lifecycle, status as never, {
        source: "provider",
        at: at + (i + 1) * 1000,
        id: `t${i + 1}`,
      });
    });
    return {
      id: "4f5b7c1e-0000-4000-8000-000000000001",
      object: "order",
      request_ids: [],
      fingerprint: "",
      draft_key: "",
      order: { mailpiece_type: "postcard", options: {} } as unknown as OrderRecord["order"],
      document: { blob_key: "b", sha256: "s", page_count: 2, source: "pdf", format: null },
      quote: { price_cents: 100 } as unknown as OrderRecord["quote"],
      status: "queued",
      payment_status: "paid",
      payment_failures: [],
      steps: [],
      lifecycle,
      project: {
        workspace_id: principal.workspace_id,
        mode: "test",
        quote_id: "q",
        document_id: "d",
        billing_rail: "mock_test_credits",
        reservation_id: "r",
        funds_status: "captured",
        metadata: {},
      },
      fulfilment: {
        provider: "sim",
        tracking_number: "TN1",
        tracking_events: [{ status: "in_transit", at: "", description: "" }],
      },
      created_at: at,
      updated_at: at,
    } as OrderRecord;
  }

  it("are read from its timeline: every announced status it reached, at its time, once", async () => {
    const record = order(["document_preparing", "document_prepared", "submitted", "accepted", "in_transit"]);
    const changes = orderStatusChanges(record);
    expect(changes.map((c) => [c.status, c.kind, c.at])).toEqual([
      ["accepted", "postcard", at + 4000],
      ["in_transit", "postcard", at + 5000],
    ]);
    expect(changes[0]).toMatchObject({
      tracking_number: "TN1",
      tracking_status: "in_transit",
      object: { status: "accepted" },
    });
    const { webhooks } = memoryWebhooks();
    await recordOrderEvents(webhooks, record);
    await recordOrderEvents(webhooks, record);
    const events = await webhooks.eventsOfOrder(principal, record.id);
    expect(events.map((e) => [e.type, e.created_at])).toEqual([
      ["service.postcard.accepted", new Date(at + 4000).toISOString()],
      ["service.postcard.in_transit", new Date(at + 5000).toISOString()],
    ]);
    expect(orderStatusChanges({ ...record, project: undefined })).toEqual([]);
  });
});
