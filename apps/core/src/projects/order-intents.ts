import { requestKey } from "@mailpiece/idempotency";
import { LedgerError } from "@mailpiece/ledger";
import type { JobQueue } from "@mailpiece/ports";
import { PortError } from "@mailpiece/ports";
import type { QueueWork } from "../job-runner.ts";
import { dropJob, liftLegacyNotes } from "../job-runner.ts";
import { loadOrder } from "../order-record.ts";
import { creditBook } from "../workspaces/credits.ts";
import type { ProjectOrderContext } from "./place-order.ts";
import { unuseQuote, useQuote } from "./quotes.ts";

/** An order whose reservation may have outlived a crash: the reconciler finishes or undoes it. */
export interface OrderIntent {
  order_id: string;
  workspace_id: string;
  mode: "test" | "live";
  /** The quote the order uses; absent for a send priced when it was made (a template or handwritten send). */
  quote_id?: string;
  amount_cents: number;
  claim_request_id: string;
  at: number;
}

/**
 * The job queue of order intents: an order request notes its intent before it reserves anything, due when the
 * grace below has passed, and takes it back once the order is written or refused. An intent that comes due names a
 * request lost in a crash.
 */
export const ORDER_INTENTS_QUEUE = "project-orders";
/** Where order intents were noted before they were jobs: each process lifts such notes onto the queue once. */
export const LEGACY_ORDER_INTENT_PREFIX = "work:projects_orders:";
export { ORDER_INTENT_GRACE_MS } from "../config.ts";

/** Notes an order request's intent as work, due when its grace (CoreConfig.orderIntentGraceMs) has passed (idempotent per order). */
export async function noteOrderIntent(jobs: JobQueue, intent: OrderIntent, graceMs: number): Promise<void> {
  await jobs.enqueue<OrderIntent>({
    queue: ORDER_INTENTS_QUEUE,
    key: intent.order_id,
    payload: intent,
    runAt: intent.at + graceMs,
  });
}

/** Takes back an order request's intent: its order is written, or it was refused without reserving anything. */
export const dropOrderIntent = (jobs: JobQueue, orderId: string) =>
  dropJob(jobs, ORDER_INTENTS_QUEUE, orderId);

/**
 * The order intents queue's work: finishes or undoes an order request lost in a crash between its checks and the
 * order's record. An intent whose order exists is done; one without an order has its Idempotency-Key forgotten
 * (first: from then on a retry starts afresh and a request still on its way writes nothing), its quote (if any)
 * freed and its reservation (if any) released. A request that stalls past the grace between reading its claim and
 * writing its order is the one case left open: the store has no transaction over the claim and the order.
 */
export function orderIntentWork(ctx: ProjectOrderContext): QueueWork<OrderIntent> {
  return {
    queue: ORDER_INTENTS_QUEUE,
    async handle(intent) {
      if (await loadOrder(ctx.store, intent.order_id)) return "done";
      // The request's claim goes first: a retry from now on starts afresh under a new order id instead of joining
      // this one, and a request still on its way refuses to write the order once the claim is gone.
      const claimKey = requestKey(intent.claim_request_id);
      const claim = await ctx.store.get<{ order_id: string }>(claimKey);
      if (claim?.value.order_id === intent.order_id) {
        try {
          await ctx.store.delete(claimKey, { ifVersion: claim.version });
        } catch (error) {
          // The claim changed meanwhile: look again at once.
          if (PortError.isInstance(error) && error.code === "version_conflict")
            return { again: ctx.clock.now() };
          throw error;
        }
      }
      if (intent.quote_id) await unuseQuote(ctx, intent.quote_id, intent.order_id);
      if (await loadOrder(ctx.store, intent.order_id)) {
        // A retry wrote the order just before the claim went: it stands, with its claim and its quote.
        if (claim) await ctx.store.create(claimKey, claim.value);
        if (intent.quote_id) await useQuote(ctx, intent.quote_id, intent.order_id).catch(() => undefined);
        return "done";
      }
      const book = creditBook(intent.workspace_id, intent.mode);
      // The same key answers the reservation the lost request made, or makes one now that is released at once:
      // either way nothing stays reserved for an order that does not exist.
      const reserved = await ctx.credits.ledger
        .reserve(book, {
          amount_cents: intent.amount_cents,
          idempotency_key: `order:${intent.order_id}`,
          reference: intent.order_id,
        })
        .catch((error: unknown) => {
          if (LedgerError.isInstance(error) && error.code === "insufficient_credits") return undefined;
          throw error;
        });
      if (reserved) {
        await ctx.credits.ledger.release(book, {
          reservation_id: reserved.id,
          idempotency_key: `release:${intent.order_id}`,
        });
      }
      return "done";
    },
  };
}

/** Lifts order intents noted under the legacy prefix onto the queue (due as they were), then removes each note. */
export function liftLegacyOrderIntents(ctx: ProjectOrderContext): Promise<number> {
  return liftLegacyNotes<OrderIntent>(ctx.store, LEGACY_ORDER_INTENT_PREFIX, (intent) =>
    noteOrderIntent(ctx.jobs, intent, ctx.config.orderIntentGraceMs),
  );
}
