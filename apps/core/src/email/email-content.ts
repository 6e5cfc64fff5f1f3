import type { LineItem, MailedItem, PaymentDetails } from "@mailpiece/messages";
import type { Party } from "@mailpiece/orders";
import type { CampaignRecord } from "../campaign-record.ts";
import type { FlowerOrderRecord } from "../flowers/record.ts";
import type { OrderRecord } from "../order-record.ts";
import type { PaymentRecord } from "../payments/payment-record.ts";
import type { QuoteView } from "../quote-order.ts";

const MAIL_CLASSES = {
  standard: "Standard mail",
  priority: "Priority mail",
  express: "Express mail",
} as const;

/** Where a piece goes, as a receipt names it: the name and the town, never the street. */
function placeOf(party: Party): string {
  const address = party.address.type === "Manual" ? party.address : party.address.resolved;
  if (!address) return party.name;
  const region = [address.state, address.zip].filter(Boolean).join(" ");
  return [party.name, address.city, region, address.countryCode].filter(Boolean).join(", ");
}

/** The lines that say what an order (or every piece of a campaign) will be: kind, pages, class and extras. */
function pieceLines(
  order: Pick<OrderRecord["order"], "mailpiece_type" | "postcard_size" | "options">,
  pages: number,
) {
  const o = order.options;
  const first =
    order.mailpiece_type === "postcard"
      ? `Postcard${order.postcard_size ? `, ${order.postcard_size}` : ""}`
      : `Letter, ${pages} page${pages === 1 ? "" : "s"}, ${o.color ? "colour" : "black and white"}, ${o.double_sided ? "double-sided" : "single-sided"}`;
  const extras = [
    MAIL_CLASSES[o.mail_class],
    ...(o.certified ? ["certified"] : []),
    ...(o.certified_return_receipt ? [`${o.return_receipt_format} return receipt`] : []),
    ...(o.restricted_delivery ? ["restricted delivery"] : []),
    ...(o.signature_required ? ["signature required"] : []),
  ];
  return [first, extras.join(", ")];
}

export function orderItem(order: OrderRecord): MailedItem {
  return {
    kind: order.order.mailpiece_type,
    summary: [
      ...pieceLines(order.order, order.document.page_count),
      ...(order.order.recipient ? [`To ${placeOf(order.order.recipient)}`] : []),
      `From ${placeOf(order.order.sender)}`,
    ],
  };
}

export function campaignItem(campaign: CampaignRecord): MailedItem {
  return {
    kind: campaign.order.mailpiece_type,
    summary: [...pieceLines(campaign.order, campaign.page_count), `From ${placeOf(campaign.order.sender)}`],
  };
}

export function flowerItem(flower: FlowerOrderRecord): MailedItem {
  const to = flower.request.recipient;
  return {
    kind: "flower_letter",
    summary: [
      `${flower.product.name}, with a card note`,
      `Delivery on ${flower.quote.delivery_date}`,
      `To ${[to.name, to.city, `${to.state} ${to.zipcode}`, to.country].filter(Boolean).join(", ")}`,
    ],
  };
}

/**
 * A quote's line items as a receipt lists them: they add up to the price, a minimum charge (or any other floor)
 * shown as a line of its own.
 */
export function quoteLines(quote: Pick<QuoteView, "line_items" | "price_cents">): LineItem[] {
  const lines = quote.line_items.map((line) => ({
    label: line.description,
    amount_cents: line.amount_cents,
  }));
  const sum = lines.reduce((total, line) => total + line.amount_cents, 0);
  if (sum !== quote.price_cents)
    lines.push({ label: "Minimum charge", amount_cents: quote.price_cents - sum });
  return lines;
}

export function flowerLines(flower: FlowerOrderRecord): LineItem[] {
  return flower.quote.lines.map((line) => ({ label: line.label, amount_cents: line.amount_cents }));
}

const RAILS = { x402: "x402", mpp: "mpp", checkout: "card" } as const;

/** What a receipt says about a settled payment: the rail, its reference, the payer and when; nothing else. */
export function paymentDetails(payment: PaymentRecord, fallbackAt: number): PaymentDetails {
  return {
    rail: RAILS[payment.protocol],
    reference: payment.reference ?? null,
    payer: payment.payer ?? null,
    paid_at: new Date(payment.settled_at ?? fallbackAt).toISOString(),
  };
}
