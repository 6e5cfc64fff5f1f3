import type { Clock, JobQueue, Store } from "@mailpiece/ports";
import type { QueueWork } from "../job-runner.ts";
import { dropJob, liftLegacyNotes } from "../job-runner.ts";
import type { Confirmer } from "./confirm.ts";
import type { PayableKind, PaymentWork } from "./payment-record.ts";
import { LEGACY_PAYMENT_WORK_PREFIX, PAYMENTS_QUEUE, paymentJobKey } from "./payment-record.ts";

/**
 * When a payment's work is first due after it was noted (or after the settle lease, when that is shorter): past the time a payment request normally takes (it takes
 * its work back when it ends), soon enough that a payment recorded paid by a process that then died is queued for
 * its work within seconds of a restart.
 */
export const PAYMENT_FIRST_LOOK_MS = 3000;
/** Asked again at most this often while a payment awaits confirmation, and at least this often once it is old. */
const RECHECK_MIN_MS = 1000;
const RECHECK_MAX_MS = 5 * 60_000;

/**
 * Notes a payment about to move money as work due at `runAt`, so that whichever process finds it due asks the rail
 * where the payment stands if no request recorded its outcome. Idempotent per record; an earlier `runAt` (a
 * settlement reported pending) moves a noted job up.
 */
export async function notePaymentWork(
  jobs: JobQueue,
  kind: PayableKind,
  id: string,
  runAt: number,
  notedAt: number = runAt,
): Promise<void> {
  await jobs.enqueue<PaymentWork>({
    queue: PAYMENTS_QUEUE,
    key: paymentJobKey(kind, id),
    payload: { kind, id, noted_at: notedAt },
    runAt,
    moveEarlier: true,
  });
}

/** Takes back the work of a payment whose outcome is recorded (paid and its work queued, or released). */
export function clearPaymentWork(jobs: JobQueue, kind: PayableKind, id: string): Promise<void> {
  return dropJob(jobs, PAYMENTS_QUEUE, paymentJobKey(kind, id));
}

/**
 * The payments queue's work: confirms one payment with its kind's confirmer. A payment resolved (paid, released, or
 * its record gone) is done, an unpaid one once the settle lease of its first note has passed; one still settling within the settle lease is looked at again when the lease ends; one
 * past it or pending confirmation is asked again later, more rarely as it ages (every second at first, at most
 * every five minutes). A kind this process cannot confirm is asked again later too.
 */
export function paymentWork(
  clock: Clock,
  settleLeaseMs: number,
  confirmers: { [K in PayableKind]?: Confirmer },
): QueueWork<PaymentWork> {
  return {
    queue: PAYMENTS_QUEUE,
    async handle(work) {
      const now = clock.now();
      const confirm = confirmers[work.kind];
      if (!confirm) return { again: now + RECHECK_MAX_MS };
      const { after, startedAt } = await confirm(work.id);
      if (after === undefined || after === "paid") return "done";
      if (after === "unpaid") {
        // Within the settle lease of its note, the request that noted it may still be on its way to recording the
        // payment as settling (its second note is lost while this job is leased): looked at once more after it.
        const lookedAfter = (work.noted_at ?? 0) + settleLeaseMs;
        return now < lookedAfter ? { again: lookedAfter } : "done";
      }
      const age = Math.max(0, now - (startedAt ?? now));
      if (after === "settling" && age < settleLeaseMs) return { again: now - age + settleLeaseMs };
      return { again: now + Math.min(RECHECK_MAX_MS, Math.max(RECHECK_MIN_MS, Math.floor(age / 10))) };
    },
  };
}

/**
 * Lifts the payments noted under the legacy `work:payments:` prefix onto the payments queue, due now, then removes
 * each note. A lifted note names the same record its job does, so a crash between the two only lifts it again.
 */
export function liftLegacyPaymentWork(store: Store, jobs: JobQueue, now: number): Promise<number> {
  // Notes written before payments had kinds name a machine order.
  return liftLegacyNotes<PaymentWork | { order_id: string }>(store, LEGACY_PAYMENT_WORK_PREFIX, (value) => {
    const work: PaymentWork = "kind" in value ? value : { kind: "order", id: value.order_id };
    return notePaymentWork(jobs, work.kind, work.id, now);
  });
}
