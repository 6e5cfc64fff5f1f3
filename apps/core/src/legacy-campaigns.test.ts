import { createHash } from "node:crypto";
import { makePdf, pdfDataUrl } from "@mailpiece/conformance";
import { claimDraft, claimRequest, draftKeyOf, fingerprintBytes } from "@mailpiece/idempotency";
import { startLifecycle } from "@mailpiece/lifecycle";
import type { Party } from "@mailpiece/orders";
import { validateOrderRequest } from "@mailpiece/orders";
import { describe, expect, it } from "vitest";
import { campaignBody, kind, setup } from "./campaign.fixture.ts";
import type { LegacyCampaignRecord } from "./legacy-campaigns.ts";
import type { OrderRecord } from "./order-record.ts";
import { x402Pay } from "./x402-pay.fixture.ts";

const DAY_MS = 24 * 60 * 60 * 1000;

const party = (name: string, line1: string): Party => ({
  name,
  country: "US",
  address: { type: "Manual", line1, city: "Springfield", state: "IL", zip: "62701", countryCode: "US" },
});
const GRACE = party("Grace Hopper", "1 Main St");
const ADA = party("Ada Lovelace", "2 Main St");
const fieldsOf = (recipient: Party, line1: string) => ({
  recipient_name: recipient.name,
  line1,
  city: "Springfield",
  state: "IL",
  zip: "62701",
  venue: "the park",
});

/**
 * Stores a two-piece campaign for `body` as the legacy layout kept it: an order record under `orders:<id>` carrying
 * the plan, naming its first row as recipient and pointing its document at the plan's JSON (kept in the blob
 * store as application/json), with its request_id claim, alias and draft claim.
 */
async function storeLegacyCampaign(
  t: ReturnType<typeof setup>,
  body: ReturnType<typeof campaignBody>,
  change: (legacy: LegacyCampaignRecord) => void = () => {},
): Promise<LegacyCampaignRecord> {
  const checked = validateOrderRequest(body);
  if (!checked.ok) throw new Error(JSON.stringify(checked.issues));
  const now = Date.now();
  const id = crypto.randomUUID();
  const pdf = checked.order.bulk?.content_mode === "pdf";
  const pieces = [
    {
      row_number: 1,
      recipient: GRACE,
      fields: fieldsOf(GRACE, "1 Main St"),
      route: "domestic",
      price_cents: 340,
    },
    {
      row_number: 2,
      recipient: ADA,
      fields: fieldsOf(ADA, "2 Main St"),
      route: "domestic",
      price_cents: 340,
    },
  ] as const;
  const template = pdf ? null : (checked.order.bulk?.template_text ?? null);
  const plan = new TextEncoder().encode(JSON.stringify({ template, pieces }));
  const sha256 = createHash("sha256").update(plan).digest("hex");
  await t.blobs.put(`documents:${sha256}`, plan, { contentType: "application/json" });
  const legacy: LegacyCampaignRecord = {
    id,
    object: "order",
    request_ids: [body.request_id],
    fingerprint: fingerprintBytes(JSON.stringify(body)),
    draft_key: createHash("sha256").update(`legacy draft ${id}`).digest("hex"),
    order: { ...checked.order, recipient: GRACE },
    document: { blob_key: `documents:${sha256}`, sha256, page_count: 1, source: "letter", format: "text" },
    quote: {
      price_cents: 680,
      price_usd: "6.80",
      currency: "usd",
      pricing_version: "legacy-book",
      line_items: [
        {
          code: "pieces_us",
          description: "2 mailpieces to US",
          quantity: 2,
          unit_cents: 340,
          amount_cents: 680,
        },
      ],
      subtotal_cents: 680,
      route: { origin_country: "US", destination_country: "US", zone: "domestic", proof: "none" },
      bounds: { min_cents: 340, max_cents: 20_000 },
    },
    campaign: {
      name: "Spring newsletter",
      content_mode: pdf ? "pdf" : "text",
      template,
      columns: Object.keys(pieces[0].fields),
      pieces: pieces.map((p) => ({ ...p, fields: { ...p.fields } })),
      child_ids: [],
    },
    status: "awaiting_payment",
    payment_status: "unpaid",
    payment_failures: [],
    steps: [],
    created_at: now,
    updated_at: now,
  };
  change(legacy);
  await t.store.create(`orders:${id}`, legacy);
  await claimRequest(t.store, {
    request_id: body.request_id,
    fingerprint: legacy.fingerprint,
    order_id: id,
    now,
  });
  await claimDraft(t.store, {
    draft_key: legacy.draft_key,
    order_id: id,
    request_id: body.request_id,
    now,
    ttlMs: DAY_MS,
  });
  return legacy;
}

describe("a campaign stored in the legacy layout", () => {
  it("reports its status by request_id, is written forward to campaigns:, and pays and spawns its pieces once", async () => {
    const t = setup();
    const body = campaignBody(["Grace Hopper", "Ada Lovelace"]);
    const legacy = await storeLegacyCampaign(t, body);
    const { id } = legacy;

    expect(await t.core.getOrderStatus(body.request_id)).toMatchObject({
      order_id: id,
      request_ids: [body.request_id],
      status: "awaiting_payment",
      payment_status: "unpaid",
      page_count: 1,
      quote: { price_cents: 680 },
      campaign: { pieces: 2 },
    });
    expect(await t.order(id)).toBeUndefined();
    const forward = await t.campaign(id);
    expect(forward).toMatchObject({
      id,
      object: "campaign",
      request_ids: [body.request_id],
      draft_key: legacy.draft_key,
      plan: legacy.campaign,
      page_count: 1,
      payment_status: "unpaid",
    });
    expect(Object.keys(forward?.order ?? {})).not.toContain("recipient");

    // The identical body finds it through its request_id claim, and pays for it at the price it was shown.
    const unpaid = kind(await t.create(body), "payment_required");
    expect(unpaid.order).toMatchObject({ order_id: id, quote: { price_cents: 680 } });
    const credential = await x402Pay(unpaid.challenge);
    const paid = kind(await t.create(body, credential), "accepted");
    expect(paid.order).toMatchObject({ order_id: id, payment_status: "paid", status: "queued" });
    expect(kind(await t.create(body, credential), "already_paid").order.order_id).toBe(id);

    const childIds = (await t.campaign(id))?.plan.child_ids ?? [];
    expect(childIds).toHaveLength(2);
    expect((await t.keys("orders:")).sort()).toEqual(childIds.map((c) => `orders:${c}`).sort());
    expect(await t.store.get(draftKeyOf(legacy.draft_key))).toBeUndefined();
    const page = await t.core.getCampaign(id);
    expect(page?.items.map((i) => [i.row_number, i.order_id, i.recipient, i.status])).toEqual([
      [1, childIds[0], "Grace Hopper", "queued"],
      [2, childIds[1], "Ada Lovelace", "queued"],
    ]);
    await t.core.close();
  });

  it("already paid, reports the status of the pieces it made and makes none again", async () => {
    const t = setup();
    const body = campaignBody(["Grace Hopper", "Ada Lovelace"]);
    const now = Date.now();
    const childIds = [crypto.randomUUID(), crypto.randomUUID()];
    const legacy = await storeLegacyCampaign(t, body, (record) => {
      record.status = "queued";
      record.payment_status = "paid";
      record.payment = {
        protocol: "x402",
        replay_key: "x402:legacy",
        status: "settled",
        attempt: "attempt-1",
        reference: "0xlegacy",
        amount_cents: 680,
        started_at: now,
        settled_at: now,
      };
      record.steps = [{ step: "payment_received", at: now }];
      record.campaign.child_ids = childIds;
    });
    await t.store.delete(draftKeyOf(legacy.draft_key));
    const { bulk: _bulk, ...single } = legacy.order;
    for (const [i, childId] of childIds.entries()) {
      const piece = legacy.campaign.pieces[i]!;
      const child: OrderRecord = {
        id: childId,
        object: "order",
        request_ids: [],
        fingerprint: legacy.fingerprint,
        draft_key: `${legacy.draft_key}:${piece.row_number}`,
        order: { ...single, recipient: piece.recipient },
        document: { blob_key: "", sha256: "", page_count: 1, source: "letter", format: "text" },
        quote: { ...legacy.quote, price_cents: piece.price_cents },
        status: "queued",
        payment_status: "paid",
        lifecycle: startLifecycle({ source: "payment", at: now, id: `${childId}:queued` }),
        campaign_id: legacy.id,
        row_number: piece.row_number,
        payment_failures: [],
        steps: [],
        created_at: now,
        updated_at: now,
      };
      await t.store.create(`orders:${childId}`, child);
    }

    expect(await t.core.getOrderStatus(legacy.id)).toMatchObject({
      order_id: legacy.id,
      status: "queued",
      payment_status: "paid",
      payment: { protocol: "x402", reference: "0xlegacy", amount_cents: 680 },
      current_step: "payment_received",
      campaign: { pieces: 2, by_status: { queued: 2 } },
    });
    expect((await t.core.getCampaign(body.request_id))?.items.map((i) => i.order_id)).toEqual(childIds);
    expect(kind(await t.create(body), "already_paid").order.order_id).toBe(legacy.id);
    expect((await t.keys("orders:")).sort()).toEqual(childIds.map((c) => `orders:${c}`).sort());
    expect((await t.campaign(legacy.id))?.plan.child_ids).toEqual(childIds);
    await t.core.close();
  });

  it("in pdf mode, paid after the upgrade, gives its pieces the PDF of its bulk.pdf", async () => {
    const t = setup();
    const pdf = await makePdf(1);
    const body = campaignBody(["Grace Hopper", "Ada Lovelace"], {
      content_mode: "pdf",
      template_text: undefined,
      pdf: pdfDataUrl(pdf),
    });
    const legacy = await storeLegacyCampaign(t, body);
    const unpaid = kind(await t.create(body), "payment_required");
    expect(unpaid.order.order_id).toBe(legacy.id);
    kind(await t.create(body, await x402Pay(unpaid.challenge)), "accepted");

    const sha256 = createHash("sha256").update(pdf).digest("hex");
    const campaign = await t.campaign(legacy.id);
    expect(campaign?.pdf).toEqual({ blob_key: `documents:${sha256}`, sha256, page_count: 1 });
    expect(t.puts.filter((p) => p.contentType === "application/pdf").map((p) => p.key)).toEqual([
      `documents:${sha256}`,
    ]);
    for (const childId of campaign?.plan.child_ids ?? []) {
      expect((await t.order(childId))?.document).toMatchObject({ blob_key: `documents:${sha256}`, sha256 });
    }
    await t.core.fulfil();
    expect(t.jobs).toHaveLength(2);
    for (const job of t.jobs) expect(Buffer.from(job.document.bytes).equals(Buffer.from(pdf))).toBe(true);
    await t.core.close();
  });
});
