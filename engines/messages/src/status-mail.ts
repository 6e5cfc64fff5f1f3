import { formatTime } from "./format-time.ts";
import type { Fact } from "./layout.ts";
import { MESSAGE_LIMITS } from "./limits.ts";
import { itemLines, kindNoun, readMailedItem } from "./mailed-item.ts";
import { ID_RULE, type OrderMessageInput, openInput, testPrefix } from "./message-input.ts";
import { toSubject } from "./plain-text.ts";
import { InputReader } from "./read-input.ts";
import { type RenderedMessage, renderLayout } from "./rendered-message.ts";

export const MAIL_STATUSES = ["mailed", "delivered", "returned", "failed"] as const;
export type MailStatus = (typeof MAIL_STATUSES)[number];

export interface StatusMailInput extends OrderMessageInput {
  status: MailStatus;
  /** When the status was reached: ISO 8601 with a zone; shown in UTC. */
  at: string;
  /** Up to 100 characters; absent or null shows none. */
  tracking_number?: string | null;
  /** The carrier's tracking page; a link when http(s). */
  tracking_url?: string | null;
  /** Why a piece was returned or failed, for people: up to 1000 characters, put on one line. */
  reason?: string | null;
  /** Where the buyer follows the order; a link when http(s). */
  status_url?: string;
}

const FIELDS = [
  "order_id",
  "item",
  "status",
  "at",
  "tracking_number",
  "tracking_url",
  "reason",
  "status_url",
] as const;

interface StatusWords {
  /** The status as the subject ends with it, after "Your letter ord_1". */
  subject: (piece: string) => string;
  heading: (noun: string) => string;
  sentence: (noun: string, at: string) => string;
  label: string;
  /** The title of the list that describes the piece. */
  items: string;
}

const WORDS: Readonly<Record<MailStatus, StatusWords>> = {
  mailed: {
    subject: (piece) => `Your ${piece} was mailed`,
    heading: (noun) => `Your ${noun} was mailed`,
    sentence: (noun, at) => `Your ${noun} was handed to the postal service on ${at}.`,
    label: "Mailed",
    items: "What was mailed",
  },
  delivered: {
    subject: (piece) => `Your ${piece} was delivered`,
    heading: (noun) => `Your ${noun} was delivered`,
    sentence: (noun, at) => `The postal service reports that your ${noun} was delivered on ${at}.`,
    label: "Delivered",
    items: "What was mailed",
  },
  returned: {
    subject: (piece) => `Your ${piece} was returned`,
    heading: (noun) => `Your ${noun} was returned`,
    sentence: (noun, at) => `The postal service reports that your ${noun} was returned undelivered on ${at}.`,
    label: "Returned",
    items: "What was mailed",
  },
  failed: {
    subject: (piece) => `Mailing failed for your ${piece}`,
    heading: (noun) => `Your ${noun} could not be mailed`,
    sentence: (noun, at) => `Mailing your ${noun} failed on ${at}.`,
    label: "Failed",
    items: "What was ordered",
  },
};

/**
 * A status mail: the piece was mailed, delivered, returned or failed. The subject says which ("Your letter
 * ord_1 was delivered"); the body gives the time (in UTC), the order id, what was mailed, the tracking number and
 * page, and the reason when one is given. Throws MessagesError `invalid_input` listing every problem of the input.
 */
export function statusMail(input: StatusMailInput): RenderedMessage {
  const reader = new InputReader();
  const { fields, brand, test } = openInput(reader, input, FIELDS);
  const orderId = reader.text(fields, "order_id", "", ID_RULE);
  const item = readMailedItem(reader, fields.item);
  const status = reader.oneOf(fields, "status", "", MAIL_STATUSES);
  const at = reader.time(fields, "at", "");
  const trackingNumber = reader.optionalText(fields, "tracking_number", "", {
    max: MESSAGE_LIMITS.tracking_number_chars,
  });
  const trackingUrl = reader.optionalText(fields, "tracking_url", "", { max: MESSAGE_LIMITS.url_chars });
  const reason = reader.optionalText(fields, "reason", "", { max: MESSAGE_LIMITS.reason_chars });
  const statusUrl = reader.optionalText(fields, "status_url", "", { max: MESSAGE_LIMITS.url_chars });
  reader.finish("status mail");

  const words = WORDS[status!];
  const noun = kindNoun(item!.kind);
  const facts: Fact[] = [
    { label: "Order", value: orderId! },
    { label: "Status", value: words.label },
  ];
  if (trackingNumber) facts.push({ label: "Tracking number", value: trackingNumber });
  if (trackingUrl) facts.push({ label: "Tracking", value: trackingUrl, url: true });
  if (reason) facts.push({ label: "Reason", value: reason });
  return renderLayout({
    subject: toSubject(`${testPrefix(test)}${words.subject(`${noun} ${orderId}`)}`),
    brand,
    notice: test ? "Test mode: this status is simulated. Nothing was mailed." : null,
    heading: words.heading(noun),
    blocks: [
      { kind: "paragraph", text: words.sentence(noun, formatTime(at!)) },
      { kind: "facts", rows: facts },
      { kind: "list", title: words.items, items: itemLines(item!) },
      ...(statusUrl ? [{ kind: "link" as const, label: "Follow your order", url: statusUrl }] : []),
    ],
  });
}
