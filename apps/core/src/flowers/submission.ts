import type { FloristOrder } from "@mailpiece/ports";
import { FloristError, isDefiniteFloristRefusal } from "@mailpiece/ports";
import type { FlowerContext, FlowerOrderRecord } from "./record.ts";
import { loadFlowerLetter, updateFlowerLetter } from "./record.ts";

export const flowerWorkKey = (id: string) => `work:flowers:${id}`;

/**
 * Retries the florist submission of every paid flower letter still queued (a lost answer, a florist that was
 * down), paging through all of them. Returns how many it tried.
 */
export async function retryFlowerSubmissions(
  ctx: Pick<FlowerContext, "store" | "clock" | "florist">,
): Promise<number> {
  let tried = 0;
  let cursor: string | undefined;
  do {
    const page = await ctx.store.list<{ order_id: string }>("work:flowers:", {
      limit: 200,
      ...(cursor ? { cursor } : {}),
    });
    for (const record of page.records) {
      tried++;
      const after = await attemptSubmission(ctx, record.value.order_id).catch(() => undefined);
      if (after && after.status !== "submission_queued") await ctx.store.delete(record.key);
    }
    cursor = page.cursor;
  } while (cursor);
  return tried;
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
