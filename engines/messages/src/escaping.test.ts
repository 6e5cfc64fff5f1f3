import { describe, expect, it } from "vitest";
import { campaignReceipt } from "./campaign-receipt.ts";
import { flat, readHtml } from "./messages.fixture.ts";
import { paymentReceipt } from "./payment-receipt.ts";
import type { RenderedMessage } from "./rendered-message.ts";
import { returnReceiptMail } from "./return-receipt-mail.ts";
import { statusMail } from "./status-mail.ts";

/** Markup, quotes and ampersands: in HTML each must come out as text, never as markup or a broken attribute. */
const EVIL = `<script>alert("x")</script> & "quoted" 'single' <img src=x onerror=alert(1)>`;
/** The same without spaces or slashes, for ids and filenames. */
const EVIL_TOKEN = `ord_<script>alert("x")&'q'<b>`;
const EVIL_URL = `https://evil.example/"><script>alert(1)</script>?a=1&b=2`;
const BRAND = { name: EVIL, url: EVIL_URL, support_email: `"><script>x</script>@evil.example` };
const ITEM = { kind: "letter" as const, summary: [EVIL, `To ${EVIL}`] };
const PAYMENT = { rail: "x402" as const, reference: EVIL, payer: EVIL, paid_at: "2026-01-05T14:03:27Z" };

const RENDERED: Record<string, RenderedMessage> = {
  paymentReceipt: paymentReceipt({
    brand: BRAND,
    order_id: EVIL_TOKEN,
    item: ITEM,
    line_items: [{ label: EVIL, amount_cents: 1000 }],
    total_cents: 1000,
    currency: "usd",
    payment: PAYMENT,
    status_url: EVIL_URL,
    test_mode: true,
  }),
  campaignReceipt: campaignReceipt({
    brand: BRAND,
    campaign_id: EVIL_TOKEN,
    campaign_name: EVIL,
    pieces: 2,
    item: ITEM,
    line_items: [{ label: EVIL, amount_cents: 1000 }],
    total_cents: 1000,
    currency: "usd",
    payment: PAYMENT,
    campaign_url: EVIL_URL,
  }),
  statusMail: statusMail({
    brand: BRAND,
    order_id: EVIL_TOKEN,
    item: ITEM,
    status: "returned",
    at: "2026-01-09T21:42:00Z",
    tracking_number: EVIL,
    tracking_url: EVIL_URL,
    reason: EVIL,
    status_url: EVIL_URL,
  }),
  returnReceiptMail: returnReceiptMail({
    brand: BRAND,
    order_id: EVIL_TOKEN,
    item: ITEM,
    delivered_at: "2026-01-09T21:42:00Z",
    signed_by: EVIL,
    attachment_filename: `${EVIL_TOKEN}.pdf`,
  }),
};

describe.each(Object.entries(RENDERED))("%s with markup in every field", (_name, message) => {
  it("escapes every value in the HTML: no element, attribute or link comes from the input", () => {
    const html = readHtml(message.html);
    expect(html.elements).not.toContain("script");
    expect(html.elements).not.toContain("img");
    expect(html.elements).not.toContain("b");
    expect(html.attributes.filter((name) => name.startsWith("on") || name === "src")).toEqual([]);
    expect(message.html).not.toContain("<script");
    expect(message.html).not.toContain(EVIL);
    expect(message.html).toContain(
      "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &quot;quoted&quot;",
    );
    expect(html.text).toContain(EVIL);
    expect(html.text).toContain(EVIL_TOKEN);
    expect(html.title).toBe(message.subject);
  });

  it("links only http(s) URLs, percent-encoded, and mailto: only a plain address", () => {
    const html = readHtml(message.html);
    for (const href of html.hrefs) {
      expect(href).toMatch(/^https:\/\/evil\.example\//);
      expect(href).not.toMatch(/[<>" ]/);
    }
    expect(html.hrefs.some((href) => href.startsWith("mailto:"))).toBe(false);
    expect(html.text).toContain(BRAND.support_email);
  });

  it("prints the values as they are in the text, each on its own line", () => {
    expect(flat(message.text)).toContain(EVIL);
    expect(flat(message.text)).toContain(EVIL_TOKEN);
    expect(message.subject).not.toMatch(/[\r\n]/);
  });
});

describe("URLs that are not http(s)", () => {
  it("are printed as text and never linked", () => {
    for (const url of [
      "javascript:alert(1)",
      "JAVASCRIPT:alert(1)",
      "data:text/html,<b>x</b>",
      "/orders/ord_1",
      "ftp://x.example/a",
      "https//broken",
      "https:evil.example/x",
    ]) {
      const message = statusMail({
        order_id: "ord_1",
        item: { kind: "postcard", summary: [] },
        status: "mailed",
        at: "2026-01-09T21:42:00Z",
        tracking_url: url,
        status_url: url,
        brand: { name: "Mailpiece", url },
      });
      const html = readHtml(message.html);
      expect(html.hrefs, url).toEqual([]);
      expect(html.text, url).toContain(url);
      expect(message.text, url).toContain(url);
    }
  });
});

describe("subjects", () => {
  it("collapse line breaks and control characters in a brand name to spaces", () => {
    const message = paymentReceipt({
      brand: { name: "Acme\r\nBcc: victim@example.com\u0000\t Mail" },
      order_id: "ord_1",
      item: { kind: "letter", summary: ["Letter\r\nTotal: $0.00"] },
      line_items: [{ label: "Letter", amount_cents: 100 }],
      total_cents: 100,
      currency: "usd",
      payment: { rail: "card", reference: "pi_1", paid_at: "2026-01-05T14:03:27Z" },
    });
    expect(message.subject).toBe("Receipt for your Acme Bcc: victim@example.com Mail letter ord_1");
    for (let at = 0; at < message.subject.length; at++) {
      const code = message.subject.charCodeAt(at);
      expect(code >= 0x20 && !(code >= 0x7f && code <= 0x9f)).toBe(true);
    }
    expect(message.text).toContain("  - Letter Total: $0.00\n");
  });
});
