import { startLifecycle } from "@mailpiece/lifecycle";
import type { Clock, IdGenerator, PaymentRail, Store } from "@mailpiece/ports";
import { spawnCampaignOrders } from "./campaign-orders.ts";
import { enqueueFulfilment } from "./fulfilment.ts";
import type { OrderRecord } from "./order-record.ts";
import { addStep, updateOrder } from "./order-record.ts";

export const paymentWorkKey = (orderId: string) => `work:payments:${orderId}`;

/**
 * Confirms settlements that were reported pending (or whose answer was lost) with their rail's `confirm`
 * capability: a confirmed payment makes the order paid and starts its fulfilment; a failed one returns the order
 * to unpaid; anything else is asked about again later. The client is never asked to pay twice meanwhile.
 */
export async function reconcilePayments(ctx: {
  store: Store;
  clock: Clock;
  ids: IdGenerator;
  rails: { x402?: PaymentRail; mpp?: PaymentRail };
}): Promise<number> {
  let confirmed = 0;
  const page = await ctx.store.list<{ order_id: string }>("work:payments:", { limit: 500 });
  for (const item of page.records) {
    const order = await ctx.store.get<OrderRecord>(`orders:${item.value.order_id}`);
    const payment = order?.value.payment;
    if (
      !order ||
      !payment ||
      order.value.payment_status === "paid" ||
      order.value.payment_status === "unpaid"
    ) {
      await ctx.store.delete(item.key);
      continue;
    }
    const rail = ctx.rails[payment.protocol];
    if (!rail?.confirm) continue;
    const answer = await rail
      .confirm({
        replayKey: payment.replay_key,
        amount_cents: payment.amount_cents,
        ...(payment.reference ? { reference: payment.reference } : {}),
      })
      .catch(() => ({ status: "pending" as const }));
    if (answer.status === "pending") continue;
    const updated = await updateOrder(ctx.store, order.value.id, ctx.clock.now, (o) => {
      if (o.payment_status === "paid" || o.payment_status === "unpaid") return undefined;
      if (answer.status === "failed") {
        o.payment_status = "unpaid";
        o.payment = {
          ...o.payment!,
          status: "failed",
          failure: { code: "settlement_failed", message: "the settlement did not complete" },
        };
        return o;
      }
      const at = "settledAt" in answer ? answer.settledAt : ctx.clock.now();
      o.payment_status = "paid";
      o.payment = {
        ...o.payment!,
        status: "settled",
        ...("reference" in answer && answer.reference ? { reference: answer.reference } : {}),
        settled_at: at,
        receipt_headers:
          "protocol" in answer ? rail.receiptHeaders(answer) : (o.payment?.receipt_headers ?? {}),
      };
      o.status = "queued";
      addStep(o, "payment_received", at);
      if (!o.campaign) o.lifecycle ??= startLifecycle({ source: "payment", at, id: ctx.ids.uuid() });
      return o;
    });
    if (updated.payment_status === "paid") {
      confirmed++;
      if (updated.campaign && updated.campaign.child_ids.length === 0) {
        const children = await spawnCampaignOrders(ctx.store, updated, ctx.clock.now());
        await updateOrder(ctx.store, updated.id, ctx.clock.now, (o) => ({
          ...o,
          campaign: { ...o.campaign!, child_ids: children },
        }));
      } else if (updated.lifecycle) await enqueueFulfilment(ctx.store, updated.id, ctx.clock.now());
    }
    await ctx.store.delete(item.key);
  }
  return confirmed;
}
