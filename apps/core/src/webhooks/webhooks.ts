import type { Clock, IdGenerator, JobQueue, Store } from "@mailpiece/ports";
import { checkRetrySchedule, DEFAULT_RETRY_SCHEDULE_MS, type RandomBytes } from "@mailpiece/webhooks";
import { CoreError } from "../errors.ts";
import type { QueueWork } from "../job-runner.ts";
import type { WebhookContext, WebhookPrincipal, WebhookSender } from "./context.ts";
import { deliveryWork } from "./delivery.ts";
import {
  createEndpoint,
  disableEndpoint,
  listEndpoints,
  rotateSecret,
  type WebhookEndpointView,
  type WebhookEndpointWithSecret,
} from "./endpoints.ts";
import {
  type DeliveryJob,
  eventsOfOrder,
  listEvents,
  type OrderStatusChange,
  recordOrderStatus,
  replayEvent,
  type WebhookEventPage,
  type WebhookEventView,
} from "./events.ts";

export interface WebhookOptions {
  /** Delays before each retry after a failed attempt, in ms; default 1 min, 5 min, 30 min, 2 h, 12 h, 24 h. */
  retryScheduleMs?: readonly number[];
  /** Time limit of one attempt, in ms; default 10 s. */
  timeoutMs?: number;
  /** How long a rotated-out secret keeps signing, in ms; default 24 h. */
  rotationOverlapMs?: number;
  /** Enabled endpoints a workspace may have at once; default 16. */
  maxEndpoints?: number;
  /**
   * How long an event (with its deliveries and attempts) is kept after its status change, in ms; default 30 days.
   * It must outlast the retry schedule: an event is never deleted while a delivery of it may still be retried.
   */
  eventRetentionMs?: number;
}

export interface WebhooksDeps {
  store: Store;
  /** The durable queue deliveries wait on. */
  jobs: JobQueue;
  clock: Clock;
  ids: IdGenerator;
  /** POSTs one delivery (the fetch-https poster's `post`). */
  send: WebhookSender;
  /** Checks a receiver URL when an endpoint is created (the poster's `check`); absent: the https rule only. */
  checkUrl?: (url: string) => Promise<void>;
  /** Random bytes for secrets and keys; default node:crypto. */
  random?: RandomBytes;
  options?: WebhookOptions;
}

/** Signed webhooks of the Projects API: endpoints per workspace, events per order status, deliveries on the queue. */
export interface Webhooks {
  /** Registers `{url, ed25519?}`; answers it with its `whsec_` signing secret, shown once. Throws validation_failed, state_conflict. */
  createEndpoint(principal: WebhookPrincipal, body: unknown): Promise<WebhookEndpointWithSecret>;
  /** The workspace's endpoints, oldest first, never a secret. */
  listEndpoints(principal: WebhookPrincipal): Promise<WebhookEndpointView[]>;
  /** Disables an endpoint: no delivery to it from then on. Throws not_found. */
  disableEndpoint(principal: WebhookPrincipal, endpointId: string): Promise<WebhookEndpointView>;
  /** A new secret, shown once; the old one signs too for the overlap. Throws not_found, state_conflict. */
  rotateSecret(principal: WebhookPrincipal, endpointId: string): Promise<WebhookEndpointWithSecret>;
  /** Records an order's status change as an event, once, and queues it; undefined for a status not announced. */
  recordOrderStatus(change: OrderStatusChange): Promise<WebhookEventView | undefined>;
  /** The events of one order of the caller's workspace and mode, oldest first. */
  eventsOfOrder(principal: WebhookPrincipal, orderId: string): Promise<WebhookEventView[]>;
  /** The workspace's events of the caller's mode, newest first, a page at a time. Throws invalid_query. */
  listEvents(
    principal: WebhookPrincipal,
    query?: { limit?: string | number; cursor?: string },
  ): Promise<WebhookEventPage>;
  /** Queues the event once more to each enabled endpoint, with the same id. Throws not_found, state_conflict. */
  replayEvent(principal: WebhookPrincipal, eventId: string): Promise<WebhookEventView>;
  /** The work of the webhook queue: one attempt per run (give it to runQueue). */
  deliveryWork: QueueWork<DeliveryJob>;
}

const DEFAULT_TIMEOUT_MS = 10_000;
const DEFAULT_ROTATION_OVERLAP_MS = 24 * 60 * 60 * 1000;
const DEFAULT_MAX_ENDPOINTS = 16;
const DEFAULT_EVENT_RETENTION_MS = 30 * 24 * 60 * 60 * 1000;

/** The webhook use cases over a Store, a JobQueue, a clock, ids and a sender. Options are checked here. */
export function createWebhooks(deps: WebhooksDeps): Webhooks {
  const options = deps.options ?? {};
  const ctx: WebhookContext = {
    store: deps.store,
    jobs: deps.jobs,
    clock: deps.clock,
    ids: deps.ids,
    send: deps.send,
    checkUrl: deps.checkUrl,
    random: deps.random,
    retryScheduleMs: checkRetrySchedule(options.retryScheduleMs ?? DEFAULT_RETRY_SCHEDULE_MS),
    timeoutMs: positive("timeoutMs", options.timeoutMs ?? DEFAULT_TIMEOUT_MS),
    rotationOverlapMs: positive(
      "rotationOverlapMs",
      options.rotationOverlapMs ?? DEFAULT_ROTATION_OVERLAP_MS,
      0,
    ),
    maxEndpoints: positive("maxEndpoints", options.maxEndpoints ?? DEFAULT_MAX_ENDPOINTS),
    eventRetentionMs: options.eventRetentionMs ?? DEFAULT_EVENT_RETENTION_MS,
  };
  const retries = ctx.retryScheduleMs.reduce((sum, ms) => sum + ms, 0);
  if (!Number.isSafeInteger(ctx.eventRetentionMs) || ctx.eventRetentionMs <= retries) {
    throw new CoreError(
      "internal_error",
      `webhook option eventRetentionMs must be a whole number of ms longer than the retry schedule (${retries} ms in all)`,
    );
  }
  return {
    createEndpoint: (principal, body) => createEndpoint(ctx, principal, body),
    listEndpoints: (principal) => listEndpoints(ctx, principal),
    disableEndpoint: (principal, id) => disableEndpoint(ctx, principal, id),
    rotateSecret: (principal, id) => rotateSecret(ctx, principal, id),
    recordOrderStatus: (change) => recordOrderStatus(ctx, change),
    eventsOfOrder: (principal, orderId) => eventsOfOrder(ctx, principal, orderId),
    listEvents: (principal, query) => listEvents(ctx, principal, query),
    replayEvent: (principal, id) => replayEvent(ctx, principal, id),
    deliveryWork: deliveryWork(ctx),
  };
}

function positive(name: string, value: number, min = 1): number {
  if (!Number.isSafeInteger(value) || value < min || value > 2_147_483_647) {
    throw new CoreError(
      "internal_error",
      `webhook option ${name} must be a whole number from ${min} to 2147483647`,
    );
  }
  return value;
}
