import { describe, expect, it } from "vitest";
import { type CampaignReceiptInput, campaignReceipt } from "./campaign-receipt.ts";
import { expectFactsInBoth, flat, issuesOf, LETTER, readHtml } from "./messages.fixture.ts";

const CAMPAIGN: CampaignReceiptInput = {
  campaign_id: "cmp_spring",
  campaign_name: "Spring donors",
  pieces: 1200,
  item: { kind: "letter", summary: ["Letter, 1 page, colour", "Standard mail"] },
  line_items: [
    { label: "1,200 letters, 1 page, colour", amount_cents: 264000 },
    { label: "Address verification", amount_cents: 6000 },
  ],
  total_cents: 270000,
  currency: "usd",
  payment: { rail: "credits", reference: "led_0042", paid_at: "2026-03-01T09:15:00Z" },
  campaign_url: "https://mailpiece.example/campaigns/cmp_spring",
};

describe("campaignReceipt", () => {
  it("says in its subject that it is a receipt for the campaign, with its id and name", () => {
    expect(campaignReceipt(CAMPAIGN).subject).toBe(
      "Receipt for your Mailpiece campaign cmp_spring (Spring donors)",
    );
    expect(campaignReceipt({ ...CAMPAIGN, campaign_name: null }).subject).toBe(
      "Receipt for your Mailpiece campaign cmp_spring",
    );
    expect(campaignReceipt({ ...CAMPAIGN, test_mode: true }).subject).toMatch(/^\[TEST\] Receipt for/);
  });

  it("states the same facts in the text and in the HTML", () => {
    const message = campaignReceipt(CAMPAIGN);
    const html = expectFactsInBoth(message, [
      "cmp_spring",
      "Spring donors",
      "1,200",
      "Letter, 1 page, colour",
      "Standard mail",
      "1,200 letters, 1 page, colour",
      "$2,640.00",
      "Address verification",
      "$60.00",
      "$2,700.00",
      "Prepaid credits",
      "led_0042",
      "March 1, 2026, 09:15 UTC",
      "https://mailpiece.example/campaigns/cmp_spring",
    ]);
    expect(html.hrefs).toEqual(["https://mailpiece.example/campaigns/cmp_spring"]);
  });

  it("counts one piece in the singular and leaves out what is not given", () => {
    const { item: _item, campaign_url: _url, ...bare } = CAMPAIGN;
    const message = campaignReceipt({
      ...bare,
      pieces: 1,
      line_items: [{ label: "1 letter", amount_cents: 220 }],
      total_cents: 220,
    });
    expect(flat(message.text)).toContain("1 piece to print and mail");
    expect(message.text).not.toContain("Each piece");
    expect(message.text).not.toContain("Follow your campaign");
    expect(readHtml(message.html).hrefs).toEqual([]);
  });

  it("refuses a bad count, a sum that is off and unknown fields, with paths", () => {
    expect(
      issuesOf(() =>
        campaignReceipt({ ...CAMPAIGN, pieces: 0, total_cents: 1, order_id: "x" } as CampaignReceiptInput),
      ),
    ).toEqual({
      code: "invalid_input",
      issues: [
        { path: "order_id", code: "unknown_field" },
        { path: "pieces", code: "out_of_range" },
        { path: "total_cents", code: "total_mismatch" },
      ],
    });
    expect(issuesOf(() => campaignReceipt({ ...CAMPAIGN, pieces: 2.5 })).issues).toEqual([
      { path: "pieces", code: "out_of_range" },
    ]);
    expect(
      issuesOf(() => campaignReceipt({ ...CAMPAIGN, item: { ...LETTER, kind: "box" as "letter" } })).issues,
    ).toEqual([{ path: "item.kind", code: "invalid_enum" }]);
  });
});
