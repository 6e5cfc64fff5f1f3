import { startLifecycle } from "@mailpiece/lifecycle";
import type { Issue, NormalizedOrder } from "@mailpiece/orders";
import { compileTemplate, DEFAULT_RENDER, fillTemplate } from "@mailpiece/orders";
import type { JobQueue, Store } from "@mailpiece/ports";
import type { CampaignOrder, CampaignPlan, CampaignRecord } from "./campaign-record.ts";
import type { CampaignValidationView } from "./campaigns.ts";
import { validateCampaign } from "./campaigns.ts";
import type { DocumentContext, ResolvedDocument } from "./documents.ts";
import { enqueueFulfilment } from "./fulfilment.ts";
import type { OrderRecord } from "./order-record.ts";
import { orderKey } from "./order-record.ts";
import type { QuoteView } from "./quote-order.ts";

/** A valid bulk order with everything needed to charge for it and, once paid, to mail its pieces. */
export interface PreparedCampaign {
  kind: "campaign";
  order: CampaignOrder;
  plan: CampaignPlan;
  /** For content_mode pdf: the PDF every piece prints. */
  pdf?: ResolvedDocument;
  /** The pages every piece is priced at. */
  page_count: number;
  /** One quote for all pieces. */
  quote: QuoteView;
  view: CampaignValidationView;
}

/** Prepares a bulk order for payment: the campaign's validation, its plan, its PDF if any, one quote for all pieces. */
export async function prepareCampaign(
  order: NormalizedOrder,
  warnings: readonly Issue[],
  ctx: DocumentContext,
): Promise<{ ok: true; prepared: PreparedCampaign } | { ok: false; issues: Issue[] }> {
  const campaign = await validateCampaign(order, ctx, warnings);
  if (!campaign.ok) return campaign;
  const bulk = order.bulk!;
  const first = campaign.pieces[0]!;
  const view = campaign.view;
  const quote: QuoteView = {
    price_cents: view.quote.price_cents,
    price_usd: view.quote.price_usd,
    currency: "usd",
    pricing_version: view.quote.pricing_version,
    line_items: view.quote.by_route.map((r) => ({
      code: `pieces_${r.destination_country.toLowerCase()}`,
      description: `${r.pieces} mailpiece${r.pieces === 1 ? "" : "s"} to ${r.destination_country}`,
      quantity: r.pieces,
      unit_cents: r.unit_cents,
      amount_cents: r.amount_cents,
    })),
    subtotal_cents: view.quote.price_cents,
    route: {
      origin_country: order.sender.country,
      destination_country: first.recipient.country,
      zone: first.route,
      proof: order.options.certified ? "certified" : "none",
    },
    bounds: { min_cents: ctx.config.bounds.min_cents, max_cents: ctx.config.bounds.max_cents },
  };
  const template = bulk.content_mode === "html" ? (bulk.template_html ?? "") : (bulk.template_text ?? "");
  const plan: CampaignPlan = {
    name: bulk.campaign_name ?? null,
    content_mode: bulk.content_mode,
    template: bulk.content_mode === "pdf" ? null : template,
    columns: [...bulk.columns],
    pieces: campaign.pieces,
    child_ids: [],
  };
  const { recipient: _recipient, document: _document, bulk: _bulk, ...shared } = order;
  return {
    ok: true,
    prepared: {
      kind: "campaign",
      order: { ...shared, bulk },
      plan,
      ...(campaign.pdf ? { pdf: campaign.pdf } : {}),
      page_count: view.document.page_count,
      quote,
      view,
    },
  };
}

/**
 * Makes one order per piece of a paid campaign, each queued for fulfilment with its own letter (typeset when
 * the worker prepares it) or the campaign's PDF. Idempotent: a piece's order id is derived from the campaign and
 * the row, and a piece already made is left as it is.
 */
export async function spawnCampaignOrders(
  store: Store,
  jobs: JobQueue,
  campaign: CampaignRecord,
  now: number,
): Promise<string[]> {
  const { plan, pdf } = campaign;
  const compiled =
    plan.template === null
      ? undefined
      : compileTemplate(plan.template, plan.columns, { html: plan.content_mode === "html" });
  const ids: string[] = [];
  for (const piece of plan.pieces) {
    const id = pieceId(campaign.id, piece.row_number);
    ids.push(id);
    // A PDF piece prints the campaign's stored PDF (its `document` below) and names no source of its own.
    const document: NormalizedOrder["document"] =
      compiled === undefined
        ? undefined
        : {
            kind: "letter",
            body: fillTemplate(compiled, piece.fields),
            format: plan.content_mode === "html" ? "html" : "text",
            render: { ...DEFAULT_RENDER },
          };
    const { bulk: _bulk, ...single } = campaign.order;
    const child: OrderRecord = {
      id,
      object: "order",
      request_ids: [],
      fingerprint: campaign.fingerprint,
      draft_key: `${campaign.draft_key}:${piece.row_number}`,
      order: { ...single, recipient: piece.recipient, ...(document ? { document } : {}) },
      // A letter's blob is made when fulfilment typesets it; a PDF piece without its PDF fails there, unprinted.
      document:
        compiled === undefined
          ? {
              blob_key: pdf?.blob_key ?? "",
              sha256: pdf?.sha256 ?? "",
              page_count: pdf?.page_count ?? campaign.page_count,
              source: "pdf",
              format: null,
            }
          : {
              blob_key: "",
              sha256: "",
              page_count: campaign.page_count,
              source: "letter",
              format: plan.content_mode,
            },
      quote: { ...campaign.quote, price_cents: piece.price_cents },
      status: "queued",
      payment_status: "paid",
      lifecycle: startLifecycle({ source: "payment", at: now, id: `${id}:queued` }),
      campaign_id: campaign.id,
      row_number: piece.row_number,
      payment_failures: [],
      steps: [],
      created_at: now,
      updated_at: now,
    };
    await store.create(orderKey(id), child);
    await enqueueFulfilment(jobs, id, now);
  }
  return ids;
}

function pieceId(campaignId: string, row: number): string {
  // A stable UUID-shaped id per (campaign, row): the campaign id with the row folded into its last group.
  const tail = (BigInt(`0x${campaignId.slice(-12)}`) ^ BigInt(row)).toString(16).padStart(12, "0").slice(-12);
  return `${campaignId.slice(0, 24)}${tail}`;
}
