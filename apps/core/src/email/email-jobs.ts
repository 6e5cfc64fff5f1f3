import type { JobQueue } from "@mailpiece/ports";
import type { PayableKind } from "../payments/payment-record.ts";

/** The queue every email is sent from: one job per message, retried with the queue's backoff. */
export const EMAIL_QUEUE = "email";

/** The statuses a buyer hears about by email, by the order status that announces them. */
export const STATUS_MAILS = {
  in_transit: "mailed",
  delivered: "delivered",
  returned: "returned",
  failed: "failed",
} as const;
export type MailedStatus = keyof typeof STATUS_MAILS;

/** One email to send, named by what it is about; the message is made when the job runs, from the records. */
export type EmailJob =
  | { type: "payment_receipt"; kind: PayableKind; id: string }
  | { type: "status"; order_id: string; status: MailedStatus }
  | { type: "return_receipt"; order_id: string };

/**
 * The job's key, which is also the message's idempotency key: a job run twice, or queued again after it ran, sends
 * its message once.
 */
export function emailKey(job: EmailJob): string {
  switch (job.type) {
    case "payment_receipt":
      return `receipt:${job.kind}:${job.id}`;
    case "status":
      return `status:${job.order_id}:${job.status}`;
    case "return_receipt":
      return `return-receipt:${job.order_id}`;
  }
}

/** Queues one email (idempotent: a job already pending under its key is left as it is). */
export async function enqueueEmail(jobs: JobQueue, job: EmailJob, runAt: number): Promise<void> {
  await jobs.enqueue({ queue: EMAIL_QUEUE, key: emailKey(job), payload: job, runAt });
}
