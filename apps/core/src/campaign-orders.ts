import { startLifecycle } from "@mailpiece/lifecycle";
import type { Issue, NormalizedOrder } from "@mailpiece/orders";
import { compileTemplate, DEFAULT_RENDER, fillTemplate, isInternationalPiece } from "@mailpiece/orders";
import type { Store } from "@mailpiece/ports";
import type { CampaignPiece } from "./campaigns.ts";
import { validateCampaign } from "./campaigns.ts";
import type { DocumentContext, ResolvedDocument } from "./documents.ts";
import { sha256Hex } from "./documents.ts";
import { enqueueFulfilment } from "./fulfilment.ts";
import type { OrderRecord } from "./order-record.ts";
import { orderKey } from "./order-record.ts";
import type { OrderStatusView } from "./order-status.ts";
import { orderStatusView } from "./order-status.ts";
import { partyView } from "./party-view.ts";
import type { QuoteView } from "./quote-order.ts";
import type { OrderValidationView, PreparedOrder } from "./validate-order.ts";

/** What a paid campaign mails: its content and one piece per valid row. Kept on the campaign's order record. */
export interface CampaignPlan {
  name: string | null;
  content_mode: "text" | "html" | "pdf";
  template: string | null;
  columns: string[];
  pieces: CampaignPiece[];
  /** The orders made for the pieces once the campaign is paid, in row order. */
  child_ids: string[];
}

/** Prepares a bulk order for payment: the campaign's validation, a sample document and one quote for all pieces. */
export async function prepareCampaign(
  order: NormalizedOrder,
  warnings: readonly Issue[],
  ctx: DocumentContext,
): Promise<{ ok: true; prepared: PreparedOrder } | { ok: false; issues: Issue[] }> {
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
  // The campaign's own "document" is its plan: identical plans collapse and retries compare equal.
  const bytes = new TextEncoder().encode(JSON.stringify({ template: plan.template, pieces: plan.pieces }));
  const document: ResolvedDocument = {
    source: "letter",
    format: bulk.content_mode,
    page_count: view.document.page_count,
    pages: [],
    bytes,
    sha256: sha256Hex(bytes),
  };
  const validation: OrderValidationView = {
    object: "order_validation",
    valid: true,
    request_id: order.request_id,
    mailpiece_type: order.mailpiece_type,
    postcard_size: order.postcard_size ?? null,
    document: { source: "letter", format: bulk.content_mode, page_count: view.document.page_count },
    sender: partyView(order.sender, isInternationalPiece(order.sender, first.recipient)),
    recipient: partyView(first.recipient, isInternationalPiece(order.sender, first.recipient)),
    options: order.options,
    quote,
    warnings: view.warnings,
  };
  return {
    ok: true,
    prepared: { order: { ...order, recipient: first.recipient }, document, view: validation, campaign: plan },
  };
}

/**
 * Makes one order per piece of a paid campaign, each queued for fulfilment with its own letter (typeset when
 * the worker prepares it). Idempotent: a piece's order id is derived from the campaign and the row.
 */
export async function spawnCampaignOrders(
  store: Store,
  campaign: OrderRecord,
  now: number,
): Promise<string[]> {
  const plan = campaign.campaign!;
  const compiled =
    plan.template === null
      ? undefined
      : compileTemplate(plan.template, plan.columns, { html: plan.content_mode === "html" });
  const ids: string[] = [];
  for (const piece of plan.pieces) {
    const id = pieceId(campaign.id, piece.row_number);
    ids.push(id);
    const document: NormalizedOrder["document"] =
      compiled === undefined
        ? campaign.order.bulk?.pdf
          ? { kind: "pdf", source: { type: "data_url", base64: "" } }
          : undefined
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
      document:
        compiled === undefined
          ? { ...campaign.document }
          : {
              blob_key: "",
              sha256: "",
              page_count: campaign.document.page_count,
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
    await enqueueFulfilment(store, id, now);
  }
  return ids;
}

function pieceId(campaignId: string, row: number): string {
  // A stable UUID-shaped id per (campaign, row): the campaign id with the row folded into its last group.
  const tail = (BigInt(`0x${campaignId.slice(-12)}`) ^ BigInt(row)).toString(16).padStart(12, "0").slice(-12);
  return `${campaignId.slice(0, 24)}${tail}`;
}

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

export async function campaignView(store: Store, campaign: OrderRecord): Promise<CampaignView> {
  const plan = campaign.campaign!;
  const items = await Promise.all(
    plan.pieces.map(async (piece, i) => {
      const childId = plan.child_ids[i];
      const child = childId ? (await store.get<OrderRecord>(orderKey(childId)))?.value : undefined;
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
  const own = orderStatusView(campaign);
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
export async function campaignStatusView(store: Store, campaign: OrderRecord): Promise<OrderStatusView> {
  const own = orderStatusView(campaign);
  const plan = campaign.campaign;
  if (!plan || plan.child_ids.length === 0) return own;
  const children = await Promise.all(
    plan.child_ids.map(async (id) => (await store.get<OrderRecord>(orderKey(id)))?.value),
  );
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
