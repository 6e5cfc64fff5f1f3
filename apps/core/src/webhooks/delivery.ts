import {
  type DeliveryAnswer,
  decideDelivery,
  SERVICE_SIGNATURE_HEADER,
  signServiceSignature,
  standardWebhookHeaders,
} from "@mailpiece/webhooks";
import type { QueueWork } from "../job-runner.ts";
import { WEBHOOK_QUEUE, type WebhookContext } from "./context.ts";
import { disable, loadEndpoints, signingSecrets } from "./endpoints.ts";
import {
  type AttemptRecord,
  type DeliveryJob,
  type DeliveryRecord,
  type EventRecord,
  loadEvent,
  newDelivery,
  updateEvent,
} from "./events.ts";

/**
 * The webhook queue's work: one attempt of one delivery per run. The raw body kept with the event is POSTed with
 * `Service-Signature` (a `v1` per signing secret: two during a rotation's overlap) and the Standard Webhooks headers
 * (`webhook-id` is the event id on every attempt and replay; `v1a` too for an ed25519 endpoint). A 2xx within the
 * time limit delivers; 410 fails the delivery and disables the endpoint; anything else (a redirect, which is never
 * followed, an error status, a timeout, a refused address) is retried on the schedule, then failed for good. Each
 * attempt is recorded before the job is given back. A delivery that is over, or whose endpoint is disabled or gone,
 * is not sent.
 */
export function deliveryWork(ctx: WebhookContext): QueueWork<DeliveryJob> {
  return {
    queue: WEBHOOK_QUEUE,
    async handle(job) {
      const found = await loadEvent(ctx, job.event_id);
      if (!found) return "done";
      const event = await withDelivery(ctx, found, job);
      const delivery = findDelivery(event, job)!;
      if (delivery.state !== "pending") return "done";
      if (delivery.next_attempt_at !== null && delivery.next_attempt_at > ctx.clock.now()) {
        return { again: delivery.next_attempt_at };
      }
      const endpoint = (await loadEndpoints(ctx, event.workspace_id)).find((e) => e.id === job.endpoint_id);
      if (endpoint?.status !== "enabled") {
        await settle(ctx, job, (d) => {
          d.state = "canceled";
          d.next_attempt_at = null;
        });
        return "done";
      }

      const at = ctx.clock.now();
      const timestamp = Math.floor(at / 1000);
      const secrets = signingSecrets(endpoint, at);
      const headers: Record<string, string> = {
        "content-type": "application/json",
        [SERVICE_SIGNATURE_HEADER.toLowerCase()]: signServiceSignature({
          body: event.body,
          timestamp,
          secrets,
        }),
        ...standardWebhookHeaders({
          id: event.id,
          timestamp,
          body: event.body,
          secrets,
          ...(endpoint.signing_key ? { signingKeys: [endpoint.signing_key] } : {}),
        }),
      };
      const started = performance.now();
      const answer: DeliveryAnswer = await ctx
        .send({ url: endpoint.url, body: event.body, headers, timeoutMs: ctx.timeoutMs })
        .then(({ status }) => ({ status }))
        .catch((error: unknown) => ({ error: errorCode(error) }));
      const duration_ms = Math.max(0, Math.round(performance.now() - started));

      const decision = decideDelivery({
        answer,
        attempt: delivery.attempts.length + 1,
        now: ctx.clock.now(),
        schedule: ctx.retryScheduleMs,
      });
      const next = decision.outcome === "retry" ? decision.at : null;
      const attempt: AttemptRecord = {
        at,
        status: "status" in answer ? answer.status : null,
        error: "error" in answer ? answer.error : null,
        duration_ms,
        next_attempt_at: next,
      };
      await settle(ctx, job, (d) => {
        d.attempts.push(attempt);
        d.next_attempt_at = next;
        if (decision.outcome === "delivered") d.state = "delivered";
        else if (decision.outcome !== "retry") d.state = "failed";
      });
      if (decision.outcome === "disable_endpoint")
        await disable(ctx, event.workspace_id, endpoint.id, "gone");
      return next === null ? "done" : { again: next };
    },
  };
}

function findDelivery(event: EventRecord, job: DeliveryJob): DeliveryRecord | undefined {
  return event.deliveries.find((d) => d.id === job.delivery_id && d.endpoint_id === job.endpoint_id);
}

/** The event with the job's delivery: a replay whose record was not written before a crash is added now. */
async function withDelivery(ctx: WebhookContext, event: EventRecord, job: DeliveryJob): Promise<EventRecord> {
  if (findDelivery(event, job)) return event;
  const kind = job.delivery_id === "initial" ? "initial" : "replay";
  return updateEvent(ctx, event.id, (current) => {
    if (findDelivery(current, job)) return undefined;
    current.deliveries.push(newDelivery({ id: job.endpoint_id }, job.delivery_id, kind, ctx.clock.now()));
    return current;
  });
}

/** Changes a pending delivery of the event (an attempt, its end); one that is over already is left alone. */
async function settle(ctx: WebhookContext, job: DeliveryJob, change: (delivery: DeliveryRecord) => void) {
  await updateEvent(ctx, job.event_id, (event) => {
    const delivery = findDelivery(event, job);
    if (delivery?.state !== "pending") return undefined;
    change(delivery);
    return event;
  });
}

/** The code an attempt records when no status came: the error's own code (`timeout`...), or `send_failed`. */
function errorCode(error: unknown): string {
  const code = (error as { code?: unknown } | undefined)?.code;
  return typeof code === "string" && /^[A-Za-z0-9_]{1,64}$/.test(code) ? code : "send_failed";
}
