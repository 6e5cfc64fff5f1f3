import type { Store } from "@mailpiece/ports";
import type { CampaignRecord } from "./campaign-record.ts";
import type { OrderRecord } from "./order-record.ts";
import { loadOrder } from "./order-record.ts";
import type { OrderStatusView } from "./order-status.ts";
import { orderStatusView, statusView } from "./order-status.ts";

/** A campaign's page: every row's order, status and tracking. */
export interface CampaignView {
  object: "campaign";
  campaign_id: string;
  name: string | null;
  content_mode: string;
  payment_status: OrderStatusView["payment_status"];
  pieces: number;
  price_cents: number;
  items: {
    row_number: number;
    order_id: string | null;
    recipient: string;
    status: string;
    tracking: OrderStatusView["tracking"];
    timeline: OrderStatusView["timeline"];
  }[];
}

export async function campaignView(store: Store, campaign: CampaignRecord): Promise<CampaignView> {
  const { plan } = campaign;
  const items = await Promise.all(
    plan.pieces.map(async (piece, i) => {
      const childId = plan.child_ids[i];
      const child = childId ? (await loadOrder(store, childId))?.value : undefined;
      const view = child ? orderStatusView(child) : undefined;
      return {
        row_number: piece.row_number,
        order_id: childId ?? null,
        recipient: piece.recipient.name,
        status: view?.status ?? "awaiting_payment",
        tracking: view?.tracking ?? null,
        timeline: view?.timeline ?? [],
      };
    }),
  );
  const own = campaignOwnView(campaign);
  return {
    object: "campaign",
    campaign_id: campaign.id,
    name: plan.name,
    content_mode: plan.content_mode,
    payment_status: own.payment_status,
    pieces: plan.pieces.length,
    price_cents: campaign.quote.price_cents,
    items,
  };
}

/** How far along a piece is, for the campaign's own status: the slowest piece still moving sets it. */
const PROGRESS: readonly string[] = [
  "queued",
  "document_preparing",
  "document_prepared",
  "submission_pending",
  "submitted",
  "accepted",
  "in_transit",
];

/**
 * A paid campaign's status, derived from its pieces: the status of the least advanced piece while any is moving;
 * once every piece has ended, `delivered` when all were delivered, the common status when all ended alike, and
 * `completed` otherwise (`campaign.by_status` says how each ended). Its steps add `letter_created` once every
 * piece was handed to a printer.
 */
export async function campaignStatusView(store: Store, campaign: CampaignRecord): Promise<OrderStatusView> {
  const own = campaignOwnView(campaign);
  const { plan } = campaign;
  if (plan.child_ids.length === 0) return own;
  const children = await Promise.all(plan.child_ids.map(async (id) => (await loadOrder(store, id))?.value));
  const views = children.filter((c): c is OrderRecord => c !== undefined).map((c) => orderStatusView(c));
  const byStatus: Record<string, number> = {};
  for (const view of views) byStatus[view.status] = (byStatus[view.status] ?? 0) + 1;
  const moving = views.filter((v) => !v.terminal);
  const terminal = moving.length === 0 && views.length === plan.child_ids.length;
  let status: string;
  if (!terminal) {
    const ranks = moving.map((v) => PROGRESS.indexOf(v.status)).filter((rank) => rank >= 0);
    status = ranks.length > 0 ? PROGRESS[Math.min(...ranks)]! : "queued";
  } else {
    const ended = Object.keys(byStatus);
    status = ended.length === 1 ? ended[0]! : "completed";
  }
  const created = views.flatMap((v) => v.steps.filter((s) => s.step === "letter_created").map((s) => s.at));
  const steps = [...own.steps];
  if (views.length === plan.child_ids.length && created.length === views.length) {
    // ISO timestamps sort as text: the last piece handed to a printer dates the campaign's step.
    steps.push({ step: "letter_created", at: created.sort().at(-1)! });
  }
  return {
    ...own,
    status,
    terminal,
    steps,
    current_step: steps.at(-1)?.step ?? null,
    campaign: { pieces: plan.pieces.length, by_status: byStatus },
  };
}

/** A campaign's status from its own record alone: its money and steps, before its pieces say more. */
export function campaignOwnView(campaign: CampaignRecord): OrderStatusView {
  return statusView(campaign, {
    mailpiece_type: campaign.order.mailpiece_type,
    page_count: campaign.page_count,
    campaign: { pieces: campaign.plan.pieces.length },
  });
}
