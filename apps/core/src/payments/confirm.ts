import type { PaymentRail, Settlement } from "@mailpiece/ports";
import type { PaymentContext } from "./pay.ts";
import { finishPaid, recordSettlement } from "./pay.ts";
import type { Payable } from "./payable.ts";
import type { PayableRecord, PaymentStatus } from "./payment-record.ts";
import { noteFailure } from "./payment-record.ts";
import { clearPaymentWork } from "./payment-work.ts";

type ConfirmAnswer =
  | Settlement
  | { status: "pending" }
  | { status: "failed"; code?: string; message?: string };

/**
 * Asks the rail where one payment stands and records the answer, when it is pending confirmation or was
 * interrupted (still settling past the settle lease): `settled` makes the record paid and queues its work;
 * `failed` (the funds never will arrive) releases it: the record is unpaid again and the same credential may be
 * tried again if it still can pay; `pending` changes nothing. Never moves money. Returns the record as it now
 * stands, or undefined when there is none.
 */
export async function confirmPayment<R extends PayableRecord>(
  ctx: PaymentContext,
  payable: Payable<R>,
  id: string,
  loaded?: R,
): Promise<R | undefined> {
  const record = loaded ?? (await payable.load(id));
  const payment = record?.payment;
  if (record?.payment_status === "paid") {
    // Paid, with its payment still noted as work: the process that took the money may have stopped before the
    // work of a paid record was queued. Queuing it is idempotent, so it is done (again) before the note goes.
    return finishPaid(ctx, payable, record);
  }
  if (!record || !payment || record.payment_status === "unpaid") {
    await clearPaymentWork(ctx.jobs, payable.kind, id);
    return record;
  }
  // A settle that may still be running somewhere is left to finish.
  if (payment.status === "settling" && ctx.clock.now() - payment.started_at < ctx.settleLeaseMs)
    return record;
  const rail: PaymentRail | undefined = ctx.rails[payment.protocol];
  if (!rail?.confirm) return record;
  const question = {
    replayKey: payment.replay_key,
    amount_cents: payment.amount_cents,
    details: payment.details,
    startedAt: payment.started_at,
    ...(payment.reference ? { reference: payment.reference } : {}),
  };
  const answer: ConfirmAnswer = await rail.confirm(question).catch(() => ({ status: "pending" as const }));
  if (answer.status === "pending") return record;
  if (answer.status === "failed") {
    const code = ("code" in answer && answer.code) || "settlement_failed";
    const message =
      ("message" in answer && answer.message) || "The settlement did not complete; nothing was charged.";
    const released = await payable.update(id, (r) => {
      if (
        r.payment?.attempt !== payment.attempt ||
        r.payment_status === "paid" ||
        r.payment_status === "unpaid"
      ) {
        return undefined;
      }
      r.payment_status = "unpaid";
      r.payment = { ...r.payment, status: "failed", failure: { code, message } };
      noteFailure(r, code, message, ctx.clock.now());
      return r;
    });
    await clearPaymentWork(ctx.jobs, payable.kind, id);
    return released;
  }
  return recordSettlement(ctx, payable, id, rail, answer);
}

/**
 * Confirms the payment of one record of one kind; says where the record stood before and stands after, and when its
 * payment began.
 */
export type Confirmer = (
  id: string,
) => Promise<{ before: PaymentStatus | undefined; after: PaymentStatus | undefined; startedAt?: number }>;

/** The confirmer of one kind of record, for the payments queue. */
export function confirmerOf<R extends PayableRecord>(ctx: PaymentContext, payable: Payable<R>): Confirmer {
  return async (id) => {
    const record = await payable.load(id);
    if (!record) return { before: undefined, after: undefined };
    const after = await confirmPayment(ctx, payable, id, record);
    return {
      before: record.payment_status,
      after: after?.payment_status,
      ...(record.payment ? { startedAt: record.payment.started_at } : {}),
    };
  };
}
