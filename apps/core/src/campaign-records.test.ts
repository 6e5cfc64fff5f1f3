import { makePdf, pdfDataUrl } from "@mailpiece/conformance";
import { describe, expect, it } from "vitest";
import { campaignBody, kind, setup } from "./campaign.fixture.ts";
import { campaignPayable } from "./campaign-payable.ts";
import { refusalOf } from "./refusal.fixture.ts";

describe("a campaign's record", () => {
  it("is stored under campaigns: with the order as validated, and no order or blob exists for it before payment", async () => {
    const t = setup();
    const body = campaignBody(["Grace Hopper", "Ada Lovelace"]);
    const unpaid = kind(await t.create(body), "payment_required");
    const id = unpaid.order.order_id;
    expect(unpaid.order).toMatchObject({ status: "awaiting_payment", campaign: { pieces: 2 } });
    expect(unpaid.document_sha256).toBeUndefined();

    const record = await t.campaign(id);
    expect(record).toMatchObject({
      object: "campaign",
      request_ids: [body.request_id],
      status: "awaiting_payment",
      payment_status: "unpaid",
      page_count: 1,
      plan: { name: "Spring newsletter", content_mode: "text", child_ids: [] },
    });
    expect(Object.keys(record?.order ?? {})).not.toContain("recipient");
    expect(record?.order.bulk.rows).toHaveLength(2);
    expect(record?.plan.pieces.map((p) => p.recipient.name)).toEqual(["Grace Hopper", "Ada Lovelace"]);
    expect(record?.pdf).toBeUndefined();
    expect(await t.keys("orders:")).toEqual([]);
    expect(t.puts).toEqual([]);

    // Found by its id and by its request_id, as an order is.
    expect(await t.core.getOrderStatus(body.request_id)).toMatchObject({
      order_id: id,
      request_ids: [body.request_id],
      payment_status: "unpaid",
      campaign: { pieces: 2 },
    });
    expect((await t.core.getCampaign(body.request_id))?.campaign_id).toBe(id);
    await t.core.close();
  });

  it("collapses as an order does: the identical retry, an unpaid duplicate, and a changed body refused", async () => {
    const t = setup();
    const body = campaignBody(["Grace Hopper", "Ada Lovelace"]);
    const id = kind(await t.create(body), "payment_required").order.order_id;
    expect(kind(await t.create(body), "payment_required").order.order_id).toBe(id);
    const duplicate = { ...body, request_id: crypto.randomUUID() };
    const collapsed = kind(await t.create(duplicate), "payment_required");
    expect(collapsed.order).toMatchObject({ order_id: id, request_ids: [duplicate.request_id] });
    expect((await t.campaign(id))?.request_ids).toEqual([body.request_id, duplicate.request_id]);
    const changed = { ...body, bulk: { ...body.bulk, campaign_name: "Autumn" } };
    expect((await refusalOf(t.create(changed))).code).toBe("request_id_conflict");
    expect(await t.keys("campaigns:")).toEqual([`campaigns:${id}`]);
    await t.core.close();
  });

  it("keeps a pdf campaign's real PDF by content, and every piece prints it", async () => {
    const t = setup();
    const pdf = await makePdf(2);
    const body = campaignBody(["Grace Hopper", "Ada Lovelace"], {
      content_mode: "pdf",
      template_text: undefined,
      pdf: pdfDataUrl(pdf),
    });
    const unpaid = kind(await t.create(body), "payment_required");
    const record = await t.campaign(unpaid.order.order_id);
    expect(record?.plan).toMatchObject({ content_mode: "pdf", template: null });
    expect(record?.page_count).toBe(2);
    expect(t.puts).toHaveLength(1);
    const [put] = t.puts;
    expect(put).toMatchObject({ key: record?.pdf?.blob_key, contentType: "application/pdf" });
    expect(Buffer.from(put!.bytes).equals(Buffer.from(pdf))).toBe(true);
    expect(record?.pdf).toEqual({
      blob_key: `documents:${record?.pdf?.sha256}`,
      sha256: expect.any(String),
      page_count: 2,
    });

    const paid = await t.pay(body);
    expect(paid.order).toMatchObject({ payment_status: "paid", status: "queued" });
    const childIds = (await t.campaign(paid.order.order_id))?.plan.child_ids ?? [];
    expect(childIds).toHaveLength(2);
    for (const childId of childIds)
      expect((await t.order(childId))?.document.blob_key).toBe(record?.pdf?.blob_key);
    await t.core.fulfil();
    expect(t.jobs.map((job) => job.recipient.name).sort()).toEqual(["Ada Lovelace", "Grace Hopper"]);
    for (const job of t.jobs) expect(Buffer.from(job.document.bytes).equals(Buffer.from(pdf))).toBe(true);
    await t.core.close();
  });

  it("spawns its pieces once when afterPaid runs again, concurrently, after payment", async () => {
    const t = setup();
    const body = campaignBody(["Grace Hopper", "Ada Lovelace", "Alan Turing"]);
    const id = kind(await t.create(body), "payment_required").order.order_id;
    const payable = campaignPayable(t.core);
    // Paid, with the pieces not yet made: two retries take it up at once.
    const paid = await payable.update(id, (c) => {
      c.payment_status = "paid";
      payable.onSettled(c, Date.now());
      return c;
    });
    const [first, second] = await Promise.all([payable.afterPaid(paid), payable.afterPaid(paid)]);
    expect(first.plan.child_ids).toHaveLength(3);
    expect(second.plan.child_ids).toEqual(first.plan.child_ids);
    // A late retry with the record as it stood before the pieces changes nothing.
    const again = await payable.afterPaid(paid);
    expect(again.plan.child_ids).toEqual(first.plan.child_ids);
    expect((await t.campaign(id))?.plan.child_ids).toEqual(first.plan.child_ids);
    expect((await t.keys("orders:")).sort()).toEqual(first.plan.child_ids.map((c) => `orders:${c}`).sort());
    expect(await t.keys("jobs:job:fulfilment:order:")).toHaveLength(3);
    const children = await Promise.all(first.plan.child_ids.map((c) => t.order(c)));
    expect(children.map((c) => [c?.campaign_id, c?.row_number, c?.order.recipient?.name])).toEqual([
      [id, 1, "Grace Hopper"],
      [id, 2, "Ada Lovelace"],
      [id, 3, "Alan Turing"],
    ]);
    const status = await t.core.getOrderStatus(id);
    expect(status).toMatchObject({ status: "queued", campaign: { pieces: 3, by_status: { queued: 3 } } });
    await t.core.close();
  });
});
