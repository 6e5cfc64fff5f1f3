import { type LineItem, readCharges } from "./charges.ts";
import type { Block } from "./layout.ts";
import { MESSAGE_LIMITS } from "./limits.ts";
import { itemLines, kindNoun, readMailedItem } from "./mailed-item.ts";
import { ID_RULE, type OrderMessageInput, openInput, testPrefix } from "./message-input.ts";
import { type PaymentDetails, paymentFacts, readPayment } from "./payment.ts";
import { toSubject } from "./plain-text.ts";
import { InputReader } from "./read-input.ts";
import { chargesBlock, KEEP_RECEIPT, TEST_RECEIPT_NOTICE } from "./receipt-parts.ts";
import { type RenderedMessage, renderLayout } from "./rendered-message.ts";

export interface PaymentReceiptInput extends OrderMessageInput {
  line_items: LineItem[];
  /** The sum of the line items, exactly. */
  total_cents: number;
  currency: "usd";
  payment: PaymentDetails;
  /** Where the buyer follows the order; a link when http(s). */
  status_url?: string;
}

const FIELDS = [
  "order_id",
  "item",
  "line_items",
  "total_cents",
  "currency",
  "payment",
  "status_url",
] as const;

/**
 * The receipt of a paid order, on any surface: the order id, what will be mailed, each line item and the total,
 * the payment rail with its reference, who paid and when. Prints nothing about the payment beyond
 * `PaymentDetails`. Throws MessagesError `invalid_input` listing every problem of the input (the line items must
 * add up to the total).
 */
export function paymentReceipt(input: PaymentReceiptInput): RenderedMessage {
  const reader = new InputReader();
  const { fields, brand, test } = openInput(reader, input, FIELDS);
  const orderId = reader.text(fields, "order_id", "", ID_RULE);
  const item = readMailedItem(reader, fields.item);
  const charges = readCharges(reader, fields);
  const payment = readPayment(reader, fields.payment);
  const statusUrl = reader.optionalText(fields, "status_url", "", { max: MESSAGE_LIMITS.url_chars });
  reader.finish("payment receipt");

  const noun = kindNoun(item!.kind);
  const blocks: Block[] = [
    { kind: "paragraph", text: `Thank you. We received your payment for the ${noun} below.` },
    { kind: "facts", rows: [{ label: "Order", value: orderId! }, ...paymentFacts(payment!)] },
    { kind: "list", title: "What will be mailed", items: itemLines(item!) },
    chargesBlock(charges!),
  ];
  if (statusUrl) blocks.push({ kind: "link", label: "Follow your order", url: statusUrl });
  blocks.push(KEEP_RECEIPT);
  return renderLayout({
    subject: toSubject(`${testPrefix(test)}Receipt for your ${brand.name} ${noun} ${orderId}`),
    brand,
    notice: test ? TEST_RECEIPT_NOTICE : null,
    heading: `Receipt for your ${noun}`,
    blocks,
  });
}
