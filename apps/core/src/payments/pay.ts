import { claimReplay } from "@mailpiece/idempotency";
import type {
  Charge,
  Clock,
  IdGenerator,
  JobQueue,
  PaymentChallenge,
  PaymentErrorCode,
  PaymentProtocol,
  PaymentRail,
  Settlement,
  Store,
  VerifiedPayment,
} from "@mailpiece/ports";
import { DEFINITE_SETTLE_FAILURES, PaymentError } from "@mailpiece/ports";
import { confirmPayment } from "./confirm.ts";
import { readCredential } from "./credential.ts";
import type { Payable } from "./payable.ts";
import type { PayableKind, PayableRecord, PaymentRecord } from "./payment-record.ts";
import { isPaidLike, noteFailure } from "./payment-record.ts";
import { clearPaymentWork, notePaymentWork, PAYMENT_FIRST_LOOK_MS } from "./payment-work.ts";

/** What the payment flow works with. */
export interface PaymentContext {
  store: Store;
  clock: Clock;
  /** Where payments in flight are noted as work (the payments queue). */
  jobs: JobQueue;
  ids: IdGenerator;
  /** The rails of this deployment, for confirming settlements whose answer is not known. */
  rails: PaymentRails;
  /** How long a credential stays claimed: at least as long as any credential can be valid. */
  replayClaimTtlMs: number;
  /** How long (real time) a retry waits for a settlement in flight before answering 202. */
  settleWaitMs: number;
  /**
   * How long after settle began it may still be running somewhere (the longest a rail's settle takes before it
   * gives up). Past it, a payment still `settling` was interrupted (a crash), and its rail is asked where it stands.
   */
  settleLeaseMs: number;
  /** Once a record is durably paid and its own work queued: what every paid record gets (its receipt email). */
  paid?: (kind: PayableKind, record: PayableRecord) => Promise<void>;
}

/** The payment rails of a deployment by protocol: those it accepts, and the hosted checkout's when it has one. */
export type PaymentRails = { [P in PaymentProtocol]?: PaymentRail };

/** A request to create and pay for something paid per order (a machine order, a campaign, a flower letter), as it ends. */
export interface CreateInput {
  /** The request body exactly as received: a retry must repeat it byte for byte. */
  raw: Uint8Array | string;
  body: unknown;
  /** The rail, the credential the client sent, and the URL of each record as the surface names it. */
  payment: PaymentAttempt;
  /** Who is asking, for the unpaid-creation limit (the client IP). */
  clientKey: string;
}

/** How a create request ends, with the surface's view `V` of the record. */
export type CreateOutcome<V> =
  /** 402: pay this challenge; `error` says why a credential sent was refused. */
  | {
      kind: "payment_required";
      challenge: PaymentChallenge;
      order: V;
      /** The SHA-256 of the PDF that will print, for a preview link; absent when no one PDF prints. */
      document_sha256?: string;
      error?: { code: string; message: string };
    }
  /** 202: paid (or settling), durable, and its work is queued. */
  | { kind: "accepted"; order: V; receiptHeaders: Record<string, string> }
  /** 200: already paid before this request; nothing was charged now. */
  | { kind: "already_paid"; order: V; receiptHeaders: Record<string, string> };

/** One request to pay for a record, as a surface passes it. */
export interface PaymentAttempt {
  rail: PaymentRail;
  /** The credential as the client sent it (a header value, a tool argument); undefined: none. */
  credential: string | undefined;
  /** The paid resource's URL for a record: the surface names it; each charge is bound to its own record. */
  resourceUrl: (id: string) => string;
}

export type PaymentOutcome<R> =
  /** Pay this challenge; `error` says why the credential sent was refused. */
  | {
      kind: "payment_required";
      record: R;
      challenge: PaymentChallenge;
      error?: { code: PaymentErrorCode; message: string };
    }
  /** The money arrived now, or is on its way (settling, or pending confirmation): durable, nothing more to pay. */
  | { kind: "accepted"; record: R; receiptHeaders: Record<string, string> }
  /** This record was already paid before this request; nothing was charged now. */
  | { kind: "already_paid"; record: R; receiptHeaders: Record<string, string> };

/**
 * Takes the payment for one record, so that no retry, race, second process or crash charges twice, and an
 * interrupted payment is finished or released instead of blocking the buyer:
 * 1. read the credential (none: the challenge), 2. verify it against this record's charge, 3. claim its replay key
 * for this record (a credential that paid another record is refused), 4. note the payment as work and mark the
 * record settling with compare-and-set (exactly one request settles; the others wait for its outcome), 5. settle,
 * 6. record the outcome: paid (then the record's work is queued), pending (confirmed later by the reconciler), or
 * failed (the record is unpaid again and the buyer is challenged again). A settle whose answer is lost leaves the
 * record settling; the reconciler, or the buyer's identical retry once the settle lease has passed, asks the rail
 * where it stands.
 */
export async function payFor<R extends PayableRecord>(
  ctx: PaymentContext,
  payable: Payable<R>,
  record: R,
  attempt: PaymentAttempt,
  takeover = true,
): Promise<PaymentOutcome<R>> {
  const charge: Charge = { ...payable.charge(record), resource_url: attempt.resourceUrl(record.id) };
  const challenge = async (current: R, error?: PaymentError): Promise<PaymentOutcome<R>> => ({
    kind: "payment_required",
    record: current,
    challenge: await attempt.rail.challenge(charge, error),
    ...(error ? { error: { code: error.code, message: error.message } } : {}),
  });
  if (isPaidLike(record.payment_status)) {
    return settledAnswer(ctx, payable, record.id, (current) =>
      takeover ? payFor(ctx, payable, current, attempt, false) : challenge(current),
    );
  }

  let verified: VerifiedPayment;
  try {
    const credential = await readCredential(attempt.rail, attempt.credential);
    if (!credential) return challenge(record);
    verified = await attempt.rail.verify(credential, charge);
  } catch (error) {
    if (!PaymentError.isInstance(error)) throw error;
    const noted = await payable.update(record.id, (r) => {
      noteFailure(r, error.code, error.message, ctx.clock.now());
      return r;
    });
    return challenge(noted, error);
  }

  const replay = await claimReplay(ctx.store, {
    replay_key: verified.replayKey,
    order_id: record.id,
    now: ctx.clock.now(),
    ttlMs: ctx.replayClaimTtlMs,
  });
  // A credential claimed for this same record (a retry, a concurrent duplicate, or one interrupted by a crash
  // before it settled) goes on: the compare-and-set below decides who settles.
  if (replay.kind === "taken" && replay.claim.order_id !== record.id) {
    return challenge(
      record,
      new PaymentError(
        "payment_replayed",
        "This payment credential was already used for another order. Pay the new challenge.",
      ),
    );
  }

  // Noted before any money moves, due shortly: a request that finishes takes it back before; otherwise whichever
  // process finds it due finishes a payment recorded paid, and asks the rail about one whose answer was lost.
  const notedAt = ctx.clock.now();
  const firstLook = Math.min(PAYMENT_FIRST_LOOK_MS, ctx.settleLeaseMs);
  await notePaymentWork(ctx.jobs, payable.kind, record.id, notedAt + firstLook, notedAt);
  const payment: PaymentRecord = {
    protocol: attempt.rail.protocol,
    replay_key: verified.replayKey,
    status: "settling",
    attempt: ctx.ids.uuid(),
    amount_cents: verified.amount_cents,
    started_at: ctx.clock.now(),
    details: jsonSafe(verified.details),
    ...(verified.payer === undefined ? {} : { payer: verified.payer }),
  };
  let mine = false;
  await payable.update(record.id, (r) => {
    // Decided afresh on every compare-and-set attempt: only the attempt that writes "settling" settles.
    mine = r.payment_status === "unpaid";
    if (!mine) return undefined;
    r.payment_status = "settling";
    r.payment = payment;
    return r;
  });
  if (!mine) {
    // Another request for this record is settling (or has settled): answer with its outcome; should it fail,
    // this credential is tried once.
    return settledAnswer(ctx, payable, record.id, (current) =>
      takeover ? payFor(ctx, payable, current, attempt, false) : challenge(current),
    );
  }
  // Noted again, now that the record is settling: work that came due before (this request was slow to get here)
  // found the record unpaid and was taken back; without it, a crash from here on would leave the payment unknown.
  await notePaymentWork(ctx.jobs, payable.kind, record.id, payment.started_at + firstLook, notedAt);

  let settlement: Settlement;
  try {
    settlement = await attempt.rail.settle(verified, charge);
  } catch (error) {
    if (PaymentError.isInstance(error) && DEFINITE_SETTLE_FAILURES.has(error.code)) {
      // Definite: no money moved. The record is unpaid again and the buyer can pay again.
      const failed = await payable.update(record.id, (r) => {
        if (r.payment?.attempt !== payment.attempt || r.payment_status === "paid") return undefined;
        r.payment_status = "unpaid";
        r.payment = { ...r.payment, status: "failed", failure: { code: error.code, message: error.message } };
        noteFailure(r, error.code, error.message, ctx.clock.now());
        return r;
      });
      await clearPaymentWork(ctx.jobs, payable.kind, record.id);
      return challenge(failed, error);
    }
    // The outcome is unknown: the record stays settling and is confirmed with the rail, never charged again.
    const pending = await payable.load(record.id);
    return { kind: "accepted", record: pending!, receiptHeaders: {} };
  }
  const recorded = await recordSettlement(ctx, payable, record.id, attempt.rail, settlement);
  return { kind: "accepted", record: recorded, receiptHeaders: recorded.payment?.receipt_headers ?? {} };
}

/**
 * Records a settlement the rail reported (from settle, or from confirm): the money moved for this record, so it is
 * recorded whatever the record's payment looks like now (a release that raced it included). A settled payment makes
 * the record paid and queues its work; a pending one keeps it `settled_pending_webhook` for the reconciler.
 */
export async function recordSettlement<R extends PayableRecord>(
  ctx: Pick<PaymentContext, "store" | "clock" | "jobs" | "paid">,
  payable: Payable<R>,
  id: string,
  rail: PaymentRail,
  settlement: Settlement,
): Promise<R> {
  const receiptHeaders = rail.receiptHeaders(settlement);
  const updated = await payable.update(id, (r) => {
    if (r.payment_status === "paid") return undefined;
    const base = r.payment;
    r.payment = {
      protocol: settlement.protocol,
      replay_key: base?.replay_key ?? "",
      attempt: base?.attempt ?? "",
      started_at: base?.started_at ?? settlement.settledAt,
      ...(base?.details === undefined ? {} : { details: base.details }),
      status: settlement.status,
      reference: settlement.reference,
      amount_cents: settlement.amount_cents,
      settled_at: settlement.settledAt,
      receipt_headers: receiptHeaders,
      ...(settlement.payer === undefined ? {} : { payer: settlement.payer }),
    };
    if (settlement.status === "settled") {
      r.payment_status = "paid";
      payable.onSettled(r, settlement.settledAt);
    } else r.payment_status = "settled_pending_webhook";
    return r;
  });
  if (updated.payment_status !== "paid") {
    // Pending confirmation: the rail is asked again soon.
    if (updated.payment_status === "settled_pending_webhook")
      await notePaymentWork(ctx.jobs, payable.kind, id, ctx.clock.now());
    return updated;
  }
  return finishPaid(ctx, payable, updated);
}

/**
 * The work of a durably paid record: its own (`afterPaid`: fulfilment, pieces, the florist), then what every paid
 * record gets (`ctx.paid`: its receipt), then its payment note goes. When `paid` fails, the note stays, so that the
 * reconciler does all of it again (each part is idempotent); the payment itself stands either way.
 */
export async function finishPaid<R extends PayableRecord>(
  ctx: Pick<PaymentContext, "jobs" | "paid">,
  payable: Payable<R>,
  record: R,
): Promise<R> {
  const after = await payable.afterPaid(record);
  try {
    await ctx.paid?.(payable.kind, after);
  } catch {
    return after;
  }
  await clearPaymentWork(ctx.jobs, payable.kind, record.id);
  return after;
}

/**
 * The answer for a record whose payment went through or is going through: 200 when paid. A payment still settling
 * past the settle lease was interrupted: its rail is asked now (a released payment goes to `ifUnpaid`, so the
 * buyer's identical retry pays). Otherwise waits a little (real time) for a settlement in flight, then 202.
 */
export async function settledAnswer<R extends PayableRecord>(
  ctx: PaymentContext,
  payable: Payable<R>,
  id: string,
  ifUnpaid?: (record: R) => Promise<PaymentOutcome<R>>,
): Promise<PaymentOutcome<R>> {
  const deadline = Date.now() + ctx.settleWaitMs;
  let asked = false;
  for (;;) {
    let current = (await payable.load(id))!;
    if (!asked && current.payment_status !== "paid" && current.payment_status !== "unpaid") {
      if (ctx.clock.now() - (current.payment?.started_at ?? 0) >= ctx.settleLeaseMs) {
        asked = true;
        current = (await confirmPayment(ctx, payable, id)) ?? current;
      }
    }
    if (current.payment_status === "paid") {
      return {
        kind: "already_paid",
        record: current,
        receiptHeaders: current.payment?.receipt_headers ?? {},
      };
    }
    if (current.payment_status === "unpaid" && ifUnpaid) return ifUnpaid(current);
    if (current.payment_status !== "settling" || Date.now() >= deadline) {
      return { kind: "accepted", record: current, receiptHeaders: current.payment?.receipt_headers ?? {} };
    }
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** Rail data as the store will give it back: JSON, without functions or undefined. */
function jsonSafe(value: unknown): unknown {
  return value === undefined ? undefined : JSON.parse(JSON.stringify(value));
}
