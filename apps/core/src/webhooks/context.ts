import type { Clock, IdGenerator, JobQueue, Store } from "@mailpiece/ports";
import type { RandomBytes } from "@mailpiece/webhooks";
import type { Principal } from "../workspaces/workspaces.ts";

/** One delivery to send: the receiver's URL, the raw JSON body as signed, the signature headers, the time limit. */
export interface WebhookRequest {
  url: string;
  body: string;
  headers: Record<string, string>;
  timeoutMs: number;
}

/**
 * POSTs one delivery and answers the HTTP status, whatever it is (a redirect is never followed). A failure before
 * any status throws; an error with a string `code` (a FetchError: `timeout`, `address_not_public`,
 * `connection_failed`...) is recorded by that code. In a deployment this is the fetch-https poster's `post`.
 */
export type WebhookSender = (request: WebhookRequest) => Promise<{ status: number }>;

/** The workspace and mode a caller acts for (a Projects API key's principal). */
export type WebhookPrincipal = Pick<Principal, "workspace_id" | "mode">;

/** What the webhook use cases work with. */
export interface WebhookContext {
  store: Store;
  jobs: JobQueue;
  clock: Clock;
  ids: IdGenerator;
  send: WebhookSender;
  /** Checks a receiver URL when an endpoint is created (the poster's `check`); absent: the https rule only. */
  checkUrl: ((url: string) => Promise<void>) | undefined;
  random: RandomBytes | undefined;
  /** Delays before each retry after a failed attempt, in ms. */
  retryScheduleMs: readonly number[];
  /** Time limit of one attempt, in ms. */
  timeoutMs: number;
  /** How long a rotated-out secret still signs, in ms. */
  rotationOverlapMs: number;
  /** Enabled endpoints a workspace may have at once. */
  maxEndpoints: number;
  /** How long an event is kept after its status change (with its deliveries and attempts), in ms. */
  eventRetentionMs: number;
}

/** The job queue deliveries run on: one job per event, endpoint and delivery (the first, or a replay). */
export const WEBHOOK_QUEUE = "webhooks";

/** A Projects API time, as the API shows it. */
export const iso = (ms: number) => new Date(ms).toISOString();
