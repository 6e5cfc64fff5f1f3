import { type LineItem, readCharges } from "./charges.ts";
import { groupDigits } from "./format-number.ts";
import type { Block, Fact } from "./layout.ts";
import { MESSAGE_LIMITS } from "./limits.ts";
import { itemLines, type MailedItem, readMailedItem } from "./mailed-item.ts";
import { ID_RULE, type MessageInput, openInput, testPrefix } from "./message-input.ts";
import { type PaymentDetails, paymentFacts, readPayment } from "./payment.ts";
import { toSubject } from "./plain-text.ts";
import { InputReader } from "./read-input.ts";
import { chargesBlock, KEEP_RECEIPT, TEST_RECEIPT_NOTICE } from "./receipt-parts.ts";
import { type RenderedMessage, renderLayout } from "./rendered-message.ts";

/** The most pieces a campaign receipt counts. */
const MAX_PIECES = 1_000_000;

export interface CampaignReceiptInput extends MessageInput {
  /** The campaign's id: 1 to 200 characters, no spaces. */
  campaign_id: string;
  /** Up to 200 characters; absent or null shows none. */
  campaign_name?: string | null;
  /** How many pieces the campaign mails: 1 to 1,000,000. */
  pieces: number;
  /** What each piece is (its kind, pages, class, sender); absent shows nothing. */
  item?: MailedItem;
  line_items: LineItem[];
  /** The sum of the line items, exactly. */
  total_cents: number;
  currency: "usd";
  payment: PaymentDetails;
  /** Where the buyer follows the campaign; a link when http(s). */
  campaign_url?: string;
}

const FIELDS = [
  "campaign_id",
  "campaign_name",
  "pieces",
  "item",
  "line_items",
  "total_cents",
  "currency",
  "payment",
  "campaign_url",
] as const;

/**
 * The receipt of a paid campaign: its id and name, how many pieces it mails and what each is, each line item and
 * the total, the payment rail with its reference, who paid and when. Throws MessagesError `invalid_input` listing
 * every problem of the input (the line items must add up to the total).
 */
export function campaignReceipt(input: CampaignReceiptInput): RenderedMessage {
  const reader = new InputReader();
  const { fields, brand, test } = openInput(reader, input, FIELDS);
  const campaignId = reader.text(fields, "campaign_id", "", ID_RULE);
  const name = reader.optionalText(fields, "campaign_name", "", { max: MESSAGE_LIMITS.campaign_name_chars });
  const pieces = reader.count(fields, "pieces", "", 1, MAX_PIECES);
  const item = fields.item === undefined ? undefined : readMailedItem(reader, fields.item);
  const charges = readCharges(reader, fields);
  const payment = readPayment(reader, fields.payment);
  const url = reader.optionalText(fields, "campaign_url", "", { max: MESSAGE_LIMITS.url_chars });
  reader.finish("campaign receipt");

  const facts: Fact[] = [{ label: "Campaign", value: campaignId! }];
  if (name) facts.push({ label: "Name", value: name });
  facts.push({ label: "Pieces", value: groupDigits(pieces!) }, ...paymentFacts(payment!));
  const blocks: Block[] = [
    {
      kind: "paragraph",
      text: `Thank you. We received your payment for the campaign below: ${piecesText(pieces!)} to print and mail.`,
    },
    { kind: "facts", rows: facts },
    ...(item ? [{ kind: "list" as const, title: "Each piece", items: itemLines(item) }] : []),
    chargesBlock(charges!),
  ];
  if (url) blocks.push({ kind: "link", label: "Follow your campaign", url });
  blocks.push(KEEP_RECEIPT);
  return renderLayout({
    subject: toSubject(
      `${testPrefix(test)}Receipt for your ${brand.name} campaign ${campaignId}${name ? ` (${name})` : ""}`,
    ),
    brand,
    notice: test ? TEST_RECEIPT_NOTICE : null,
    heading: "Receipt for your campaign",
    blocks,
  });
}

function piecesText(pieces: number): string {
  return pieces === 1 ? "1 piece" : `${groupDigits(pieces)} pieces`;
}
