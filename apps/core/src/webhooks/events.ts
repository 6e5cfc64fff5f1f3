import { createHash } from "node:crypto";
import type { Issue } from "@mailpiece/errors";
import { EVENT_STATUSES, eventBody, eventType, MAILPIECE_KINDS, serialiseEvent } from "@mailpiece/webhooks";
import { CoreError, invalidRequest } from "../errors.ts";
import { updateRecord } from "../records.ts";
import { iso, WEBHOOK_QUEUE, type WebhookContext, type WebhookPrincipal } from "./context.ts";
import { type EndpointRecord, loadEndpoints } from "./endpoints.ts";

/** One attempt to deliver: when, what came back (a status or an error code), how long it took, what is next. */
export interface AttemptRecord {
  at: number;
  status: number | null;
  error: string | null;
  duration_ms: number;
  /** When the next attempt is due; null when this one ended the delivery. */
  next_attempt_at: number | null;
}

/**
 * One delivery of an event to one endpoint: the first (`initial`), or a replay. `pending` until an attempt gets a
 * 2xx (`delivered`), the retries run out or the receiver answers 410 (`failed`), or the endpoint is disabled
 * (`canceled`).
 */
export interface DeliveryRecord {
  id: string;
  endpoint_id: string;
  kind: "initial" | "replay";
  state: "pending" | "delivered" | "failed" | "canceled";
  created_at: number;
  next_attempt_at: number | null;
  attempts: AttemptRecord[];
}

/** An event as stored: its body, serialised once, and its deliveries. */
export interface EventRecord {
  id: string;
  workspace_id: string;
  mode: "test" | "live";
  order_id: string;
  type: string;
  /** When the status changed, ms since the epoch. */
  created: number;
  /** The JSON sent, byte for byte, on every attempt and replay. */
  body: string;
  deliveries: DeliveryRecord[];
  updated_at: number;
  /**
   * When the event is deleted, ms since the epoch: its record and its place in the listing expire then (events of
   * versions that kept them for good have none).
   */
  expires_at?: number;
}

/** The job of one delivery. */
export interface DeliveryJob {
  event_id: string;
  endpoint_id: string;
  delivery_id: string;
}

/** An order reaching a status, as the order's owner reports it. */
export interface OrderStatusChange {
  workspace_id: string;
  mode: "test" | "live";
  order_id: string;
  kind: "letter" | "postcard" | "handwritten";
  /** Any order status; only accepted, in_transit, delivered, returned, failed and canceled are announced. */
  status: string;
  /** When the status changed, ms since the epoch; default now. */
  at?: number;
  /** The order as the API shows it: the event's `data.object`. */
  object: unknown;
  tracking_number?: string | null;
  tracking_status?: string | null;
}

export interface WebhookAttemptView {
  at: string;
  /** The HTTP status the receiver answered, or null when none came. */
  http_status: number | null;
  /** Why no status came (`timeout`, `connection_failed`, `address_not_public`...), or null. */
  error: string | null;
  duration_ms: number;
  next_attempt_at: string | null;
}

export interface WebhookDeliveryView {
  id: string;
  endpoint_id: string;
  kind: "initial" | "replay";
  status: DeliveryRecord["state"];
  next_attempt_at: string | null;
  attempts: WebhookAttemptView[];
}

export interface WebhookEventView {
  object: "webhook_event";
  id: string;
  type: string;
  mode: "test" | "live";
  order_id: string;
  created_at: string;
  deliveries: WebhookDeliveryView[];
}

export interface WebhookEventPage {
  object: "list";
  data: WebhookEventView[];
  has_more: boolean;
  next_cursor: string | null;
}

const eventKey = (id: string) => `webhook_events:${id}`;
/** Newest first in key order: the time is counted down from the largest 13-digit millisecond value. */
const indexPrefix = (workspaceId: string, mode: string) => `webhook_event_index:${workspaceId}:${mode}:`;
const indexKey = (event: EventRecord) =>
  `${indexPrefix(event.workspace_id, event.mode)}${String(9_999_999_999_999 - event.created).padStart(13, "0")}:${event.id}`;
const EVENT_ID = /^evt_[0-9a-f]{32}$/;
/** Deliveries an event may have, replays included. */
const MAX_DELIVERIES_PER_EVENT = 200;

/** The key of a delivery's job: one per event, endpoint and delivery. */
export const deliveryJobKey = (job: DeliveryJob) => `${job.event_id}:${job.endpoint_id}:${job.delivery_id}`;

/**
 * The id of the event for an order reaching a status: the same in every process, so that recording one change
 * twice, even at once, makes one event (each status is reached at most once in an order's life).
 */
export function eventIdFor(orderId: string, status: string): string {
  return `evt_${createHash("sha256").update(`order:${orderId}:${status}`).digest("hex").slice(0, 32)}`;
}

export async function loadEvent(
  ctx: Pick<WebhookContext, "store">,
  id: string,
): Promise<EventRecord | undefined> {
  return EVENT_ID.test(id) ? (await ctx.store.get<EventRecord>(eventKey(id)))?.value : undefined;
}

export function updateEvent(
  ctx: Pick<WebhookContext, "store" | "clock">,
  id: string,
  change: (event: EventRecord) => EventRecord | undefined,
): Promise<EventRecord> {
  return updateRecord<EventRecord>(ctx.store, eventKey(id), ctx.clock.now, change, undefined, (event) =>
    event.expires_at === undefined ? undefined : ttlUntil(ctx, event.expires_at),
  );
}

/** The time to live, in ms, of a record to be deleted at `at` (at least 1: a record written is there at first). */
function ttlUntil(ctx: Pick<WebhookContext, "clock">, at: number): number {
  return Math.max(1, at - ctx.clock.now());
}

/**
 * Records an order's status change as an event, once: the event id comes from the order and the status, and the
 * Store's atomic create lets one of any number of concurrent recorders make it. It is queued for delivery to every
 * endpoint of the workspace enabled when it was made, one job per event and endpoint; a second recording of the
 * same change queues only what is still pending and not queued, so a crash between the two steps loses nothing.
 * Answers the event, or undefined for a status that is not announced.
 */
export async function recordOrderStatus(
  ctx: WebhookContext,
  change: OrderStatusChange,
): Promise<WebhookEventView | undefined> {
  checkChange(change);
  const type = eventType(change.kind, change.status);
  if (type === undefined) return undefined;
  const id = eventIdFor(change.order_id, change.status);
  const existing = await loadEvent(ctx, id);
  let event = existing;
  if (!event) {
    const now = ctx.clock.now();
    const created = change.at ?? now;
    const body = eventBody({
      id,
      type,
      created: Math.floor(created / 1000),
      mode: change.mode,
      object: change.object,
      tracking_number: change.tracking_number ?? null,
      tracking_status: change.tracking_status ?? null,
    });
    const endpoints = (await loadEndpoints(ctx, change.workspace_id)).filter((e) => e.status === "enabled");
    const fresh: EventRecord = {
      id,
      workspace_id: change.workspace_id,
      mode: change.mode,
      order_id: change.order_id,
      type,
      created,
      body: serialiseEvent(body),
      deliveries: endpoints.map((endpoint) => newDelivery(endpoint, "initial", "initial", now)),
      updated_at: now,
      expires_at: created + ctx.eventRetentionMs,
    };
    const ttlMs = ttlUntil(ctx, fresh.expires_at!);
    event = (await ctx.store.create<EventRecord>(eventKey(id), fresh, { ttlMs })).record.value;
  }
  await ctx.store.create(
    indexKey(event),
    { event_id: event.id },
    event.expires_at === undefined ? {} : { ttlMs: ttlUntil(ctx, event.expires_at) },
  );
  await queuePending(ctx, event);
  return eventView(event);
}

/** The events of one order of the caller's workspace and mode, oldest first (the order view's webhook_events). */
export async function eventsOfOrder(
  ctx: WebhookContext,
  principal: WebhookPrincipal,
  orderId: string,
): Promise<WebhookEventView[]> {
  if (typeof orderId !== "string" || orderId === "") return [];
  const found = await Promise.all(
    EVENT_STATUSES.map((status) => loadEvent(ctx, eventIdFor(orderId, status))),
  );
  return found
    .filter((event): event is EventRecord => event !== undefined && belongsTo(event, principal))
    .sort((a, b) => a.created - b.created)
    .map(eventView);
}

/**
 * The events of the caller's workspace and mode, newest first, a page at a time (`limit` 1 to 100, default 20;
 * `cursor` from the previous page), each with its deliveries and their attempts. A limit or cursor it cannot read
 * is invalid_query.
 */
export async function listEvents(
  ctx: WebhookContext,
  principal: WebhookPrincipal,
  query: { limit?: string | number; cursor?: string } = {},
): Promise<WebhookEventPage> {
  const limit = query.limit === undefined || query.limit === "" ? 20 : Number(query.limit);
  if (!Number.isInteger(limit) || limit < 1 || limit > 100) {
    const message = "limit must be an integer from 1 to 100.";
    throw new CoreError("invalid_query", message, {
      issues: [{ path: "limit", code: "invalid_limit", message }],
    });
  }
  const prefix = indexPrefix(principal.workspace_id, principal.mode);
  const cursor = query.cursor === undefined || query.cursor === "" ? undefined : query.cursor;
  const page = await ctx.store
    .list<{ event_id: string }>(prefix, { limit, ...(cursor === undefined ? {} : { cursor }) })
    .catch((error: unknown) => {
      if (cursor === undefined) throw error;
      const message = "cursor is not one this listing gave.";
      throw new CoreError("invalid_query", message, {
        issues: [{ path: "cursor", code: "invalid_cursor", message }],
      });
    });
  const events = await Promise.all(page.records.map((entry) => loadEvent(ctx, entry.value.event_id)));
  return {
    object: "list",
    data: events
      .filter((event): event is EventRecord => event !== undefined && belongsTo(event, principal))
      .map(eventView),
    has_more: page.cursor !== undefined,
    next_cursor: page.cursor ?? null,
  };
}

/**
 * Queues the event once more to every endpoint of the workspace enabled now, as a new delivery with its own job
 * key and the same event id (the same body, bytes and `webhook-id`). An event of another workspace or mode is
 * not_found; with no enabled endpoint, or too many deliveries already, state_conflict.
 */
export async function replayEvent(
  ctx: WebhookContext,
  principal: WebhookPrincipal,
  eventId: string,
): Promise<WebhookEventView> {
  const event = typeof eventId === "string" ? await loadEvent(ctx, eventId) : undefined;
  if (!event || !belongsTo(event, principal)) {
    throw new CoreError("not_found", "No webhook event of this workspace and mode has this id.");
  }
  const endpoints = (await loadEndpoints(ctx, principal.workspace_id)).filter((e) => e.status === "enabled");
  if (endpoints.length === 0) {
    throw new CoreError(
      "state_conflict",
      "The workspace has no enabled webhook endpoint to replay the event to.",
    );
  }
  if (event.deliveries.length + endpoints.length > MAX_DELIVERIES_PER_EVENT) {
    throw new CoreError(
      "state_conflict",
      `This event has been delivered or queued ${event.deliveries.length} times, the most it may be.`,
    );
  }
  const now = ctx.clock.now();
  const replayId = `replay_${ctx.ids.uuid().replaceAll("-", "")}`;
  const fresh = endpoints.map((endpoint) => newDelivery(endpoint, replayId, "replay", now));
  // The jobs go first: a job whose delivery was never written adds it when it runs.
  for (const delivery of fresh) await enqueueDelivery(ctx, event.id, delivery);
  const updated = await updateEvent(ctx, event.id, (current) => {
    const missing = fresh.filter(
      (d) => !current.deliveries.some((known) => known.id === d.id && known.endpoint_id === d.endpoint_id),
    );
    if (missing.length === 0) return undefined;
    current.deliveries.push(...missing);
    return current;
  });
  return eventView(updated);
}

export function newDelivery(
  endpoint: Pick<EndpointRecord, "id">,
  id: string,
  kind: DeliveryRecord["kind"],
  now: number,
): DeliveryRecord {
  return {
    id,
    endpoint_id: endpoint.id,
    kind,
    state: "pending",
    created_at: now,
    next_attempt_at: now,
    attempts: [],
  };
}

export function eventView(event: EventRecord): WebhookEventView {
  return {
    object: "webhook_event",
    id: event.id,
    type: event.type,
    mode: event.mode,
    order_id: event.order_id,
    created_at: iso(event.created),
    deliveries: event.deliveries.map((delivery) => ({
      id: delivery.id,
      endpoint_id: delivery.endpoint_id,
      kind: delivery.kind,
      status: delivery.state,
      next_attempt_at: delivery.next_attempt_at === null ? null : iso(delivery.next_attempt_at),
      attempts: delivery.attempts.map((attempt) => ({
        at: iso(attempt.at),
        http_status: attempt.status,
        error: attempt.error,
        duration_ms: attempt.duration_ms,
        next_attempt_at: attempt.next_attempt_at === null ? null : iso(attempt.next_attempt_at),
      })),
    })),
  };
}

/** Puts every pending delivery of the event on the queue (a key already queued is left as it is). */
async function queuePending(ctx: WebhookContext, event: EventRecord): Promise<void> {
  for (const delivery of event.deliveries) {
    if (delivery.state === "pending") await enqueueDelivery(ctx, event.id, delivery);
  }
}

async function enqueueDelivery(
  ctx: WebhookContext,
  eventId: string,
  delivery: DeliveryRecord,
): Promise<void> {
  const job: DeliveryJob = { event_id: eventId, endpoint_id: delivery.endpoint_id, delivery_id: delivery.id };
  await ctx.jobs.enqueue<DeliveryJob>({
    queue: WEBHOOK_QUEUE,
    key: deliveryJobKey(job),
    payload: job,
    runAt: delivery.next_attempt_at ?? ctx.clock.now(),
  });
}

function belongsTo(event: EventRecord, principal: WebhookPrincipal): boolean {
  return event.workspace_id === principal.workspace_id && event.mode === principal.mode;
}

/** A status change must name its workspace, mode, order, kind and status; anything else is validation_failed. */
function checkChange(change: OrderStatusChange): void {
  const issues: Issue[] = [];
  const text = (field: "workspace_id" | "order_id" | "status") => {
    const value = change?.[field];
    if (typeof value !== "string" || !/^[A-Za-z0-9_-]{1,128}$/.test(value)) {
      issues.push({
        path: field,
        code: "invalid_type",
        message: `${field} must be 1 to 128 letters, digits, _ or -.`,
      });
    }
  };
  text("workspace_id");
  text("order_id");
  text("status");
  if (change?.mode !== "test" && change?.mode !== "live") {
    issues.push({ path: "mode", code: "invalid_mode", message: "mode must be test or live." });
  }
  if (!(MAILPIECE_KINDS as readonly string[]).includes(change?.kind)) {
    issues.push({
      path: "kind",
      code: "invalid_kind",
      message: "kind must be letter, postcard or handwritten.",
    });
  }
  if (change?.at !== undefined && (!Number.isSafeInteger(change.at) || change.at < 0)) {
    issues.push({ path: "at", code: "invalid_type", message: "at must be milliseconds since the epoch." });
  }
  if (issues.length > 0) throw invalidRequest(issues, "status change");
}
