import type { JobQueue, Store, StoredRecord } from "@mailpiece/ports";
import type { CampaignPlan, CampaignRecord } from "./campaign-record.ts";
import { campaignKey } from "./campaign-record.ts";
import type { OrderRecord } from "./order-record.ts";
import { orderKey } from "./order-record.ts";
import { LEGACY_PAYMENT_WORK_PREFIX } from "./payments/payment-record.ts";
import { clearPaymentWork, notePaymentWork } from "./payments/payment-work.ts";

/**
 * A campaign in the legacy layout: an order record under `orders:<id>` that carries the campaign's plan, names its
 * first row as recipient and points its document at the plan's JSON. Its payment work is noted under the order
 * kind. It is read only to be written forward as a CampaignRecord.
 */
export type LegacyCampaignRecord = OrderRecord & { campaign: CampaignPlan };

export function isLegacyCampaign(value: OrderRecord | LegacyCampaignRecord): value is LegacyCampaignRecord {
  return "campaign" in value && value.campaign !== undefined;
}

/**
 * The campaign a legacy record describes, money and steps as they are. The legacy layout kept no PDF for a pdf
 * campaign: its pieces get the PDF of the order's bulk.pdf when they are made.
 */
export function campaignFromLegacy(legacy: LegacyCampaignRecord): CampaignRecord {
  const { recipient: _recipient, document: _document, bulk, ...order } = legacy.order;
  if (!bulk) throw new TypeError(`legacy campaign ${legacy.id} carries no bulk order`);
  return {
    id: legacy.id,
    object: "campaign",
    request_ids: legacy.request_ids,
    fingerprint: legacy.fingerprint,
    // The draft key stays: it names the draft claim that payment releases.
    draft_key: legacy.draft_key,
    order: { ...order, bulk },
    plan: legacy.campaign,
    quote: legacy.quote,
    page_count: legacy.document.page_count,
    status: legacy.status,
    payment_status: legacy.payment_status,
    ...(legacy.payment ? { payment: legacy.payment } : {}),
    payment_failures: legacy.payment_failures,
    steps: legacy.steps,
    created_at: legacy.created_at,
    updated_at: legacy.updated_at,
  };
}

/**
 * Moves a legacy campaign to `campaigns:<id>` and removes its `orders:` record, keeping its money: a payment in
 * flight is queued as campaign payment work before its order-kind work (a job, or a note of the legacy layout) goes,
 * so it is still confirmed. Every step is create-if-absent or delete, so a crash at any point is finished by the
 * next reader, and concurrent readers end with the same record. No process may still write the legacy layout.
 */
export async function writeCampaignForward(
  ctx: { store: Store; jobs: JobQueue },
  legacy: StoredRecord<LegacyCampaignRecord>,
): Promise<CampaignRecord> {
  const { store, jobs } = ctx;
  const id = legacy.value.id;
  const status = legacy.value.payment_status;
  if (status === "settling" || status === "settled_pending_webhook") {
    await notePaymentWork(jobs, "campaign", id, legacy.value.updated_at);
  }
  const stored = await store.create(campaignKey(id), campaignFromLegacy(legacy.value));
  await store.delete(`${LEGACY_PAYMENT_WORK_PREFIX}order:${id}`);
  await clearPaymentWork(jobs, "order", id);
  await store.delete(orderKey(id));
  return stored.record.value;
}
