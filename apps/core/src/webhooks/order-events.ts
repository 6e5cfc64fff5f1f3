import { EVENT_STATUSES } from "@mailpiece/webhooks";
import type { OrderRecord } from "../order-record.ts";
import { projectOrderView } from "../projects/orders.ts";
import type { OrderStatusChange } from "./events.ts";
import type { Webhooks } from "./webhooks.ts";

/**
 * The announced status changes of a Projects API order, read from its timeline in the order they happened (a round
 * of fulfilment may move an order through several): each with the time of its transition and the order as the API
 * shows it, its status set to the one reached. Orders of other surfaces have none.
 */
export function orderStatusChanges(order: OrderRecord): OrderStatusChange[] {
  const project = order.project;
  if (!project || !order.lifecycle) return [];
  const view = projectOrderView(order, false);
  return order.lifecycle.timeline
    .filter((entry) => (EVENT_STATUSES as readonly string[]).includes(entry.status_after))
    .map((entry) => ({
      workspace_id: project.workspace_id,
      mode: project.mode,
      order_id: order.id,
      kind: view.mailpiece_type,
      status: entry.status_after,
      at: Date.parse(entry.created_at),
      object: { ...view, status: entry.status_after },
      tracking_number: view.tracking_number,
      tracking_status: view.tracking_status,
    }));
}

/**
 * Records every announced status change of a Projects API order (idempotent: a change already recorded is not
 * recorded again, and anything of it still unqueued is queued). Fulfilment calls it after each round of an order.
 */
export async function recordOrderEvents(
  webhooks: Pick<Webhooks, "recordOrderStatus">,
  order: OrderRecord,
): Promise<void> {
  for (const change of orderStatusChanges(order)) await webhooks.recordOrderStatus(change);
}
