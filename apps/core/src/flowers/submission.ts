import type { FloristOrder, JobQueue, Store } from "@mailpiece/ports";
import { FloristError, isDefiniteFloristRefusal } from "@mailpiece/ports";
import type { QueueWork } from "../job-runner.ts";
import { dropJob, liftLegacyNotes } from "../job-runner.ts";
import type { FlowerContext, FlowerOrderRecord } from "./record.ts";
import { loadFlowerLetter, updateFlowerLetter } from "./record.ts";

/**
 * The job queue of florist submissions: a paid flower letter is noted before the florist hears of it and taken back
 * once the florist answered (placed or refused). One that comes due was cut short by a crash or a florist that was
 * down, and is submitted again under the same key.
 */
export const FLOWER_SUBMISSIONS_QUEUE = "flower-submissions";
/** Where submissions were noted before they were jobs: each process lifts such notes onto the queue once. */
export const LEGACY_FLOWER_WORK_PREFIX = "work:flowers:";
/** The first retry of a submission, while the request that paid may still be submitting it. */
export const FIRST_RETRY_MS = 10_000;
/** Retries after that back off, doubling from this, to at most an hour apart. */
const RETRY_BASE_MS = 1000;
const RETRY_CAP_MS = 60 * 60_000;

export async function noteFlowerSubmission(jobs: JobQueue, id: string, runAt: number): Promise<void> {
  await jobs.enqueue({ queue: FLOWER_SUBMISSIONS_QUEUE, key: id, payload: { order_id: id }, runAt });
}

export function dropFlowerSubmission(jobs: JobQueue, id: string): Promise<void> {
  return dropJob(jobs, FLOWER_SUBMISSIONS_QUEUE, id);
}

/**
 * The florist submissions queue's work: submits a paid flower letter still queued (a lost answer, a florist that was
 * down). Placed or refused, it is done; still queued, it is tried again later, backing off with its attempts.
 */
export function flowerSubmissionWork(
  ctx: Pick<FlowerContext, "store" | "clock" | "florist">,
): QueueWork<{ order_id: string }> {
  return {
    queue: FLOWER_SUBMISSIONS_QUEUE,
    async handle({ order_id }) {
      if (!(await loadFlowerLetter(ctx.store, order_id))) return "done";
      const after = await attemptSubmission(ctx, order_id);
      if (after.status !== "submission_queued") return "done";
      const delay = Math.min(RETRY_CAP_MS, RETRY_BASE_MS * 2 ** Math.min(30, after.submission.attempts));
      return { again: ctx.clock.now() + delay };
    },
  };
}

/** Lifts submissions noted under the legacy prefix onto the queue, due now, then removes each note. */
export function liftLegacyFlowerWork(store: Store, jobs: JobQueue, now: number): Promise<number> {
  return liftLegacyNotes<{ order_id: string }>(store, LEGACY_FLOWER_WORK_PREFIX, (work) =>
    noteFlowerSubmission(jobs, work.order_id, now),
  );
}

/** The order the florist receives: the request as validated, at the price that was paid. */
function floristOrderOf(record: FlowerOrderRecord): FloristOrder {
  const { request } = record;
  return {
    product_code: request.product_code,
    delivery_date: request.delivery_date,
    card_note: request.note,
    allow_substitutions: request.allow_substitutions,
    recipient: { ...request.recipient },
    customer: { ...request.customer },
    total_cents: record.quote.total_cents,
  };
}

/**
 * One submission of a paid, queued flower letter under its order id. A definite refusal marks it
 * `submission_failed`; any other failure leaves it queued with the error noted, to be submitted again.
 */
export async function attemptSubmission(
  ctx: Pick<FlowerContext, "store" | "clock" | "florist">,
  id: string,
): Promise<FlowerOrderRecord> {
  const current = (await loadFlowerLetter(ctx.store, id))!;
  if (current.payment_status !== "paid" || current.status !== "submission_queued") return current;
  try {
    const placed = await ctx.florist.submit(floristOrderOf(current), { idempotencyKey: current.id });
    return await updateFlowerLetter(ctx, id, (order) => {
      if (order.status !== "submission_queued") return undefined;
      order.status = "submitted";
      order.submission = {
        ...order.submission,
        attempts: order.submission.attempts + 1,
        reference: placed.reference,
        submitted_at: Date.parse(placed.submitted_at),
      };
      delete order.submission.last_error;
      return order;
    });
  } catch (error) {
    const code = FloristError.isInstance(error) ? error.code : "florist_unavailable";
    const message = error instanceof Error ? error.message : String(error);
    const definite = isDefiniteFloristRefusal(error);
    return updateFlowerLetter(ctx, id, (order) => {
      if (order.status !== "submission_queued") return undefined;
      order.submission = {
        ...order.submission,
        attempts: order.submission.attempts + 1,
        last_error: { code, message, at: ctx.clock.now() },
      };
      if (definite) order.status = "submission_failed";
      return order;
    });
  }
}
