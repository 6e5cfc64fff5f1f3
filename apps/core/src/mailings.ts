import { findRequestClaim } from "@mailpiece/idempotency";
import type { JobQueue, Store } from "@mailpiece/ports";
import type { CampaignRecord } from "./campaign-record.ts";
import { campaignKey } from "./campaign-record.ts";
import type { LegacyCampaignRecord } from "./legacy-campaigns.ts";
import { isLegacyCampaign, writeCampaignForward } from "./legacy-campaigns.ts";
import type { OrderRecord } from "./order-record.ts";
import { orderKey } from "./order-record.ts";

/**
 * What a machine order request makes: a single order, or a bulk campaign. Both share the request_id claims
 * (`order_id` names either), the aliases and the draft claims; each kind has its own records.
 */
export type Mailing = { kind: "order"; record: OrderRecord } | { kind: "campaign"; record: CampaignRecord };

/** Where mailings are kept, and the queue that a legacy campaign's payment in flight moves to. */
export interface MailingStores {
  store: Store;
  jobs: JobQueue;
}

/** The campaign stored under `id`; one still in the legacy layout is written forward first. */
export async function loadCampaign(ctx: MailingStores, id: string): Promise<CampaignRecord | undefined> {
  const { store } = ctx;
  const found = await store.get<CampaignRecord>(campaignKey(id));
  if (found) return found.value;
  const legacy = await store.get<OrderRecord | LegacyCampaignRecord>(orderKey(id));
  const value = legacy?.value;
  return legacy && value && isLegacyCampaign(value)
    ? writeCampaignForward(ctx, { ...legacy, value })
    : undefined;
}

/** The order or campaign with this id: orders first, then campaigns (a legacy campaign is written forward). */
export async function loadMailing(ctx: MailingStores, id: string): Promise<Mailing | undefined> {
  const { store } = ctx;
  const stored = await store.get<OrderRecord | LegacyCampaignRecord>(orderKey(id));
  let campaign: CampaignRecord | undefined;
  if (stored) {
    const value = stored.value;
    if (!isLegacyCampaign(value)) return { kind: "order", record: value };
    campaign = await writeCampaignForward(ctx, { ...stored, value });
  } else campaign = (await store.get<CampaignRecord>(campaignKey(id)))?.value;
  return campaign ? { kind: "campaign", record: campaign } : undefined;
}

/**
 * Resolves an order or campaign id, or any request_id that reaches one. A request_id's claim names the record it
 * made or collapsed onto, and is written in the same step that binds the request_id, so it is the one index.
 */
export async function findMailing(ctx: MailingStores, idOrRequestId: string): Promise<Mailing | undefined> {
  const direct = await loadMailing(ctx, idOrRequestId);
  if (direct) return direct;
  const claim = await findRequestClaim(ctx.store, idOrRequestId);
  return claim === undefined ? undefined : loadMailing(ctx, claim.order_id);
}
