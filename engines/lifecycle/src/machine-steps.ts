import { LifecycleError } from "./errors.ts";
import type { OrderStatus } from "./statuses.ts";
import type { TimelineEvent } from "./timeline.ts";
import { isoTime } from "./transition.ts";

/** The status steps the machine API's status tool reports (spec 1), in the order they normally happen. */
export const MACHINE_STEPS = [
  "payment_received",
  "receiver_address_verified",
  "sender_address_verified",
  "pdf_normalized",
  "letter_created",
  "email_sent",
  "canceled",
  "refunded",
  "abandoned",
] as const;

export type MachineStep = (typeof MACHINE_STEPS)[number];

/** What a machine order knows that its timeline does not hold. Times are milliseconds or ISO 8601 strings. */
export interface MachineStepExtra {
  /** When settlement completed. Without it, the time the order entered `queued` stands for it. */
  payment_received_at?: number | string;
  /** When the receipt email went to the buyer. */
  email_sent_at?: number | string;
  /** When the money went back to the buyer. */
  refunded_at?: number | string;
  /** When an unpaid order was given up (it never entered the lifecycle). */
  abandoned_at?: number | string;
  /** False when the order has no sender (return) address, so no `sender_address_verified` step. Default true. */
  has_sender?: boolean;
}

export interface MachineStepEntry {
  step: MachineStep;
  /** ISO 8601 date-time in UTC. */
  at: string;
}

/**
 * Derives the machine API's status steps from an order's timeline and `extra`, each step at most once, oldest
 * first (steps at one instant keep the order of `MACHINE_STEPS`). The mapping:
 *
 * - `payment_received`: `extra.payment_received_at`, else the first event entering `queued` (a machine order is
 *   queued only once paid);
 * - `receiver_address_verified`: the first event entering `document_prepared` (preparation checks and prints the
 *   recipient block);
 * - `sender_address_verified`: the same event, unless `extra.has_sender` is false;
 * - `pdf_normalized`: the same event (the print-ready PDF exists);
 * - `letter_created`: the first event entering `submitted` or `accepted` (a provider holds the piece; never
 *   `submission_pending`);
 * - `email_sent`: `extra.email_sent_at`;
 * - `canceled`: the first event entering `canceled`;
 * - `refunded`: `extra.refunded_at`;
 * - `abandoned`: `extra.abandoned_at`.
 *
 * Throws `LifecycleError` `invalid_input` for an unreadable time in `extra` or in the timeline.
 */
export function machineSteps(
  timeline: readonly TimelineEvent[],
  extra: MachineStepExtra = {},
): MachineStepEntry[] {
  const entering = (...statuses: OrderStatus[]): string | undefined => {
    for (const [index, event] of timeline.entries()) {
      if (!statuses.includes(event.status_after)) continue;
      return readTime(event.created_at, `timeline[${index}].created_at`);
    }
    return undefined;
  };
  const fromExtra = (key: "payment_received_at" | "email_sent_at" | "refunded_at" | "abandoned_at") =>
    extra[key] === undefined ? undefined : readTime(extra[key], `extra.${key}`);

  const prepared = entering("document_prepared");
  const found: Record<MachineStep, string | undefined> = {
    payment_received: fromExtra("payment_received_at") ?? entering("queued"),
    receiver_address_verified: prepared,
    sender_address_verified: extra.has_sender === false ? undefined : prepared,
    pdf_normalized: prepared,
    letter_created: entering("submitted", "accepted"),
    email_sent: fromExtra("email_sent_at"),
    canceled: entering("canceled"),
    refunded: fromExtra("refunded_at"),
    abandoned: fromExtra("abandoned_at"),
  };
  const steps: MachineStepEntry[] = [];
  for (const step of MACHINE_STEPS) {
    const at = found[step];
    if (at !== undefined) steps.push({ step, at });
  }
  // Array.prototype.sort is stable, so steps at one instant keep the MACHINE_STEPS order.
  return steps.sort((a, b) => Date.parse(a.at) - Date.parse(b.at));
}

function readTime(value: unknown, field: string): string {
  const iso =
    typeof value === "string"
      ? Number.isNaN(Date.parse(value))
        ? undefined
        : isoTime(Date.parse(value))
      : isoTime(value);
  if (iso === undefined) {
    throw new LifecycleError("invalid_input", `${field} is not a readable time: ${JSON.stringify(value)}`, {
      field,
    });
  }
  return iso;
}
