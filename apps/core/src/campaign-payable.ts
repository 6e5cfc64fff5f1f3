import { draftKeyOf, fingerprintJson } from "@mailpiece/idempotency";
import type { PreparedCampaign } from "./campaign-orders.ts";
import { spawnCampaignOrders } from "./campaign-orders.ts";
import type { CampaignRecord } from "./campaign-record.ts";
import { campaignKey, updateCampaign } from "./campaign-record.ts";
import { campaignOwnView } from "./campaign-status.ts";
import type { OrderContext } from "./create-machine-order.ts";
import { resolveDocument } from "./documents.ts";
import { loadCampaign } from "./mailings.ts";
import type { MailingKind } from "./open-mailing.ts";
import { documentBlobKey, keepDocument } from "./open-mailing.ts";
import { addStep } from "./order-record.ts";
import type { Payable } from "./payments/payable.ts";

/** The payment flow's view of a campaign: paid, it mails its pieces as orders of their own. */
export function campaignPayable(ctx: OrderContext): Payable<CampaignRecord> {
  return {
    kind: "campaign",
    load: (id) => loadCampaign(ctx, id),
    update: (id, change) => updateCampaign(ctx.store, id, ctx.clock.now, change),
    charge: (record) => ({
      amount_cents: record.quote.price_cents,
      currency: "usd",
      description: `Mailpiece ${record.order.mailpiece_type}, ${record.page_count} page${record.page_count === 1 ? "" : "s"}, order ${record.id}`,
      order_ref: record.id,
    }),
    onSettled(record, at) {
      record.status = "queued";
      addStep(record, "payment_received", at);
    },
    async afterPaid(record) {
      // Read again: a retry or the reconciler may have made the pieces meanwhile.
      let paid = (await loadCampaign(ctx, record.id)) ?? record;
      if (paid.plan.child_ids.length === 0) {
        if (paid.plan.content_mode === "pdf" && !paid.pdf) paid = await recoverPdf(ctx, paid);
        // Each piece's id is derived from the campaign and its row: making them again makes nothing new.
        const children = await spawnCampaignOrders(ctx.store, ctx.jobs, paid, ctx.clock.now());
        paid = await updateCampaign(ctx.store, paid.id, ctx.clock.now, (c) =>
          c.plan.child_ids.length > 0 ? undefined : { ...c, plan: { ...c.plan, child_ids: children } },
        );
      }
      // A paid campaign is no draft: the same campaign sent again is a new mailing under a new request_id.
      await ctx.store.delete(draftKeyOf(paid.draft_key));
      return paid;
    },
  };
}

/** How a machine order request with bulk content is opened: as a campaign under `campaigns:<id>`. */
export function campaignKind(ctx: OrderContext): MailingKind<PreparedCampaign, CampaignRecord> {
  return {
    payable: campaignPayable(ctx),
    key: campaignKey,
    draftKey: ({ order, plan, pdf }) =>
      fingerprintJson({
        campaign: { content_mode: plan.content_mode, template: plan.template, pieces: plan.pieces },
        pdf: pdf?.sha256 ?? null,
        sender: order.sender,
        options: order.options,
        mailpiece_type: order.mailpiece_type,
        postcard_size: order.postcard_size ?? null,
      }).slice("sha256:".length),
    document: (prepared) => prepared.pdf,
    create: (prepared, base) => ({
      id: base.id,
      object: "campaign",
      request_ids: [prepared.order.request_id],
      fingerprint: base.fingerprint,
      draft_key: base.draft_key,
      order: prepared.order,
      plan: prepared.plan,
      ...(prepared.pdf
        ? {
            pdf: {
              blob_key: documentBlobKey(prepared.pdf.sha256),
              sha256: prepared.pdf.sha256,
              page_count: prepared.pdf.page_count,
            },
          }
        : {}),
      quote: prepared.quote,
      page_count: prepared.page_count,
      status: "awaiting_payment",
      payment_status: "unpaid",
      payment_failures: [],
      steps: [],
      created_at: base.now,
      updated_at: base.now,
    }),
    // The campaign's PDF is kept by content when the campaign is opened; its upload token is not bound to it.
    uploadToken: () => undefined,
    view: campaignOwnView,
    // Each piece is its own letter: the create answer links no one document.
    previewSha256: () => undefined,
  };
}

/**
 * The PDF of a pdf campaign stored without one (the legacy layout), read again from its bulk.pdf and kept by
 * content. Unreadable now (an expired upload, a download that fails), the campaign stays without: its pieces fail
 * in fulfilment as missing their document, and nothing is printed.
 */
async function recoverPdf(ctx: OrderContext, campaign: CampaignRecord): Promise<CampaignRecord> {
  const { bulk, ...shared } = campaign.order;
  if (!bulk.pdf) return campaign;
  const resolved = await resolveDocument(
    { ...shared, document: { kind: "pdf", source: bulk.pdf } },
    { ...ctx, orderId: campaign.id },
  );
  if (!resolved.ok) return campaign;
  const pdf = await keepDocument(ctx, resolved.document);
  return updateCampaign(ctx.store, campaign.id, ctx.clock.now, (c) => (c.pdf ? undefined : { ...c, pdf }));
}
