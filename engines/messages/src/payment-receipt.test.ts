import { describe, expect, it } from "vitest";
import {
  BRAND,
  expectFactsInBoth,
  flat,
  frozen,
  issuesOf,
  LETTER,
  overlongLines,
  readHtml,
  X402_PAYMENT,
} from "./messages.fixture.ts";
import { type PaymentReceiptInput, paymentReceipt } from "./payment-receipt.ts";

const RECEIPT: PaymentReceiptInput = {
  order_id: "ord_7Hq2",
  item: LETTER,
  line_items: [
    { label: "Letter, 3 pages", amount_cents: 240 },
    { label: "Certified mail", amount_cents: 800 },
    { label: "Electronic return receipt", amount_cents: 300 },
  ],
  total_cents: 1340,
  currency: "usd",
  payment: X402_PAYMENT,
  status_url: "https://mailpiece.example/orders/ord_7Hq2",
};

/** The facts a receipt of RECEIPT states, as people read them. */
const FACTS = [
  "ord_7Hq2",
  "Letter, 3 pages, black and white",
  "First class",
  "To Grace Hopper, Washington, DC 20500",
  "Letter, 3 pages",
  "$2.40",
  "Certified mail",
  "$8.00",
  "Electronic return receipt",
  "$3.00",
  "$13.40",
  "x402",
  "0x8f3a5b1c2d4e6f708192a3b4c5d6e7f8091a2b3c",
  "0x209693Bc6afc0C5328bA36FaF03C514EF312287C",
  "January 5, 2026, 14:03 UTC",
  "https://mailpiece.example/orders/ord_7Hq2",
  "Mailpiece",
];

describe("paymentReceipt", () => {
  it("says in its subject that it is a receipt, with the brand, the kind and the order id", () => {
    expect(paymentReceipt(RECEIPT).subject).toBe("Receipt for your Mailpiece letter ord_7Hq2");
    expect(paymentReceipt({ ...RECEIPT, brand: BRAND }).subject).toBe(
      "Receipt for your Acme Mail letter ord_7Hq2",
    );
    expect(paymentReceipt({ ...RECEIPT, item: { kind: "postcard", summary: [] } }).subject).toBe(
      "Receipt for your Mailpiece postcard ord_7Hq2",
    );
    expect(paymentReceipt({ ...RECEIPT, item: { kind: "flower_letter", summary: [] } }).subject).toBe(
      "Receipt for your Mailpiece flower letter ord_7Hq2",
    );
  });

  it("states the same facts in the text and in the HTML", () => {
    const message = paymentReceipt(RECEIPT);
    const html = expectFactsInBoth(message, FACTS);
    for (const label of ["Order", "Paid", "Payment", "Reference", "Paid by", "Total paid (USD)"]) {
      expect(message.text).toContain(label);
      expect(html.text).toContain(label);
    }
    expect(html.hrefs).toContain("https://mailpiece.example/orders/ord_7Hq2");
  });

  it("lists each line item with its amount, right-aligned in one column, and the total", () => {
    const lines = paymentReceipt(RECEIPT).text.split("\n");
    const amountLines = lines.filter((line) => /\$\d+\.\d\d$/.test(line));
    expect(amountLines).toHaveLength(4);
    expect(new Set(amountLines.map((line) => line.length)).size).toBe(1);
    expect(amountLines.map((line) => flat(line))).toEqual([
      "Letter, 3 pages $2.40",
      "Certified mail $8.00",
      "Electronic return receipt $3.00",
      "Total paid (USD) $13.40",
    ]);
  });

  it("names each rail for people and shows a reference and a payer only when given", () => {
    const rails = { x402: "x402", mpp: "MPP", card: "Card", credits: "Prepaid credits" } as const;
    for (const [rail, label] of Object.entries(rails)) {
      const message = paymentReceipt({ ...RECEIPT, payment: { ...X402_PAYMENT, rail: rail as "x402" } });
      expect(message.text).toMatch(new RegExp(`^Payment: +${label}$`, "m"));
      expect(readHtml(message.html).text).toContain(`Payment ${label}`);
    }
    const bare = paymentReceipt({
      ...RECEIPT,
      payment: { rail: "credits", reference: null, paid_at: "2026-01-05T14:03:27Z" },
    });
    expect(bare.text).not.toContain("Reference");
    expect(bare.text).not.toContain("Paid by");
    expect(readHtml(bare.html).text).not.toContain("Reference");
  });

  it("marks a test-mode receipt in the subject and the body", () => {
    const message = paymentReceipt({ ...RECEIPT, test_mode: true });
    expect(message.subject).toBe("[TEST] Receipt for your Mailpiece letter ord_7Hq2");
    expect(message.text).toContain("Test mode");
    expect(readHtml(message.html).text).toContain("Nothing was charged");
    expect(paymentReceipt({ ...RECEIPT, test_mode: false }).text).not.toContain("Test mode");
  });

  it("shows the brand's name, site and support address in both versions", () => {
    const message = paymentReceipt({ ...RECEIPT, brand: BRAND });
    const html = readHtml(message.html);
    for (const fact of ["Acme Mail", "https://acme.example/mail", "help@acme.example"]) {
      expect(message.text).toContain(fact);
      expect(html.text).toContain(fact);
    }
    expect(message.text).not.toContain("Mailpiece");
    expect(html.hrefs).toContain("mailto:help@acme.example");
    expect(html.hrefs).toContain("https://acme.example/mail");
  });

  it("writes a text body of lines of at most 78 characters, and a long summary line wraps", () => {
    const long =
      "To Grace Brewster Murray Hopper, Rear Admiral, United States Navy, 1600 Pennsylvania Avenue NW, Washington, DC 20500";
    const message = paymentReceipt({
      ...RECEIPT,
      item: { kind: "letter", summary: [long] },
      line_items: [
        {
          label: "A line item with a label long enough to need two lines in a plain-text mail client",
          amount_cents: 1040,
        },
        { label: "Electronic return receipt", amount_cents: 300 },
      ],
      brand: BRAND,
    });
    expect(overlongLines(message.text)).toEqual([]);
    const lines = message.text.split("\n");
    const first = lines.findIndex((line) => line.startsWith("  - To Grace"));
    expect(first).toBeGreaterThan(-1);
    expect(lines[first + 1]).toMatch(/^ {4}\S/);
    expect(flat(message.text)).toContain(long);
    expect(message.text).not.toMatch(/<[a-z/]/i);
  });

  it("is a whole, simple HTML document: lang, title, tables and inline styles, nothing loaded or run", () => {
    const message = paymentReceipt({ ...RECEIPT, brand: BRAND });
    const html = readHtml(message.html);
    expect(message.html.startsWith("<!DOCTYPE html>")).toBe(true);
    expect(html.lang).toBe("en");
    expect(html.title).toBe(message.subject);
    expect(html.elements).toContain("table");
    for (const tag of ["script", "style", "link", "img", "iframe", "object", "form", "base"]) {
      expect(html.elements).not.toContain(tag);
    }
    expect(
      html.attributes.filter((name) => name.startsWith("on") || name === "src" || name === "class"),
    ).toEqual([]);
    for (const href of html.hrefs) expect(href).toMatch(/^(https?:\/\/|mailto:)/);
  });

  it("renders the same message for the same input, and leaves the input as it was", () => {
    const input = frozen(RECEIPT);
    expect(paymentReceipt(input)).toEqual(paymentReceipt(structuredClone(RECEIPT)));
  });

  it("refuses line items that do not add up to the total, at total_cents", () => {
    expect(issuesOf(() => paymentReceipt({ ...RECEIPT, total_cents: 1341 }))).toEqual({
      code: "invalid_input",
      issues: [{ path: "total_cents", code: "total_mismatch" }],
    });
    expect(() => paymentReceipt({ ...RECEIPT, total_cents: 1341 })).toThrow(/\$13\.40.*\$13\.41/);
  });

  it("refuses amounts that are not whole, non-negative cents, naming each", () => {
    const result = issuesOf(() =>
      paymentReceipt({
        ...RECEIPT,
        line_items: [
          { label: "Letter", amount_cents: -240 },
          { label: "Certified", amount_cents: 8.5 },
          { label: "Receipt", amount_cents: "300" as unknown as number },
        ],
        total_cents: Number.NaN,
      }),
    );
    expect(result.issues).toEqual([
      { path: "line_items.0.amount_cents", code: "invalid_amount" },
      { path: "line_items.1.amount_cents", code: "invalid_amount" },
      { path: "line_items.2.amount_cents", code: "invalid_type" },
      { path: "total_cents", code: "invalid_amount" },
    ]);
  });

  it("refuses every other bad field with its path and code, all at once", () => {
    const result = issuesOf(() =>
      paymentReceipt({
        order_id: "",
        item: { kind: "parcel", summary: ["", 4] },
        line_items: [],
        total_cents: 0,
        currency: "eur",
        payment: {
          rail: "cash",
          reference: 7,
          paid_at: "2026-02-30T10:00:00Z",
          card_number: "4242424242424242",
        },
        status_url: 42,
        test_mode: "yes",
        extra: true,
      } as unknown as PaymentReceiptInput),
    );
    expect(result.code).toBe("invalid_input");
    expect(result.issues).toEqual([
      { path: "extra", code: "unknown_field" },
      { path: "test_mode", code: "invalid_type" },
      { path: "order_id", code: "too_short" },
      { path: "item.kind", code: "invalid_enum" },
      { path: "item.summary.0", code: "too_short" },
      { path: "item.summary.1", code: "invalid_type" },
      { path: "line_items", code: "too_short" },
      { path: "currency", code: "invalid_enum" },
      { path: "payment.card_number", code: "unknown_field" },
      { path: "payment.rail", code: "invalid_enum" },
      { path: "payment.reference", code: "invalid_type" },
      { path: "payment.paid_at", code: "invalid_format" },
      { path: "status_url", code: "invalid_type" },
    ]);
  });

  it("never repeats a value it refuses in the error", () => {
    try {
      paymentReceipt({
        ...RECEIPT,
        payment: { ...X402_PAYMENT, signature: "0xsecret-signature-bytes" },
      } as unknown as PaymentReceiptInput);
      expect.unreachable();
    } catch (error) {
      expect(JSON.stringify(error)).not.toContain("secret-signature");
      expect(String(error)).not.toContain("secret-signature");
      expect(String(error)).toContain("payment.signature");
    }
  });

  it("refuses ids with spaces or line breaks, missing fields, and a non-object input", () => {
    expect(issuesOf(() => paymentReceipt({ ...RECEIPT, order_id: "ord 1" })).issues).toEqual([
      { path: "order_id", code: "invalid_format" },
    ]);
    expect(issuesOf(() => paymentReceipt({ ...RECEIPT, order_id: "ord_1\r\nBcc: x" })).issues).toEqual([
      { path: "order_id", code: "invalid_format" },
    ]);
    expect(issuesOf(() => paymentReceipt({ ...RECEIPT, order_id: "o".repeat(201) })).issues).toEqual([
      { path: "order_id", code: "too_long" },
    ]);
    const { payment: _payment, ...withoutPayment } = RECEIPT;
    expect(issuesOf(() => paymentReceipt(withoutPayment as PaymentReceiptInput)).issues).toEqual([
      { path: "payment", code: "required" },
    ]);
    expect(
      issuesOf(() =>
        paymentReceipt({ ...RECEIPT, payment: { rail: "card", paid_at: "2026-01-05T14:03:27Z" } as never }),
      ).issues,
    ).toEqual([{ path: "payment.reference", code: "required" }]);
    expect(issuesOf(() => paymentReceipt(null as unknown as PaymentReceiptInput)).issues).toContainEqual({
      path: "",
      code: "invalid_type",
    });
  });
});
