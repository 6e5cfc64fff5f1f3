import { simpleParser } from "mailparser";

/** One message of an outbox as the dashboard lists it (what `@mailpiece/email-outbox` keeps for each). */
export interface AdminOutboxEntry {
  /** The message's id in the outbox: letters, digits, `_` and `-`. */
  id: string;
  subject: string;
  /** The Message-ID header, angle brackets included. */
  message_id?: string;
  from: string;
  to: readonly string[];
  /** When it was sent: ISO 8601 in UTC. */
  sent_at: string;
  /** The size of its .eml file in bytes. */
  size: number;
}

/**
 * The outbox the dashboard shows: any folder of sent messages that lists them newest first, a page at a time, and
 * reads one with its raw RFC 5322 bytes (`EmailOutbox` of `@mailpiece/email-outbox` is one).
 */
export interface AdminOutbox {
  list(options?: {
    limit?: number;
    cursor?: string;
  }): Promise<{ entries: AdminOutboxEntry[]; cursor?: string }>;
  read(id: string): Promise<{ entry: AdminOutboxEntry; eml: Uint8Array } | undefined>;
}

/** An id or cursor the dashboard passes on to the outbox; anything else is not found. */
export const OUTBOX_ID = /^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$/;

/** The most of a raw message the message page shows as text; the download always has all of it. */
export const RAW_SHOWN_BYTES = 256 * 1024;

export interface OutboxAttachment {
  filename: string;
  contentType: string;
  size: number;
}

/** What the message page shows of one .eml: its headers, text, HTML source and attachments as read from it. */
export interface OutboxMessageView {
  entry: AdminOutboxEntry;
  /** Undefined when the .eml could not be parsed; the raw message is still shown. */
  parsed?: {
    from?: string;
    to?: string;
    subject?: string;
    date?: string;
    messageId?: string;
    /** The text/plain part, never a conversion of the HTML; undefined when there is none or it is empty. */
    text?: string;
    /** The HTML part's source, to be shown escaped, never rendered. */
    html?: string;
    attachments: OutboxAttachment[];
  };
  /** The start of the raw message (at most RAW_SHOWN_BYTES), decoded as UTF-8. */
  raw: string;
  /** True when `raw` is not the whole message. */
  rawTruncated: boolean;
}

type Addresses = { text: string } | { text: string }[] | undefined;
const addresses = (value: Addresses) =>
  value === undefined ? undefined : (Array.isArray(value) ? value : [value]).map((a) => a.text).join(", ");

/**
 * Reads a message of the outbox for its page with mailparser: only its own text/plain part (no HTML converted to
 * text), `cid:` links left alone, no attachment checksums. A message mailparser refuses has no `parsed` part.
 */
export async function outboxMessageView(found: {
  entry: AdminOutboxEntry;
  eml: Uint8Array;
}): Promise<OutboxMessageView> {
  const bytes = Buffer.from(found.eml.buffer, found.eml.byteOffset, found.eml.byteLength);
  const rawTruncated = bytes.byteLength > RAW_SHOWN_BYTES;
  const raw = new TextDecoder("utf-8").decode(rawTruncated ? bytes.subarray(0, RAW_SHOWN_BYTES) : bytes);
  let parsed: OutboxMessageView["parsed"];
  try {
    const mail = await simpleParser(bytes, {
      skipHtmlToText: true,
      skipTextToHtml: true,
      skipTextLinks: true,
      skipImageLinks: true,
      keepCidLinks: true,
      checksumAlgo: false,
    });
    parsed = {
      from: addresses(mail.from),
      to: addresses(mail.to),
      subject: mail.subject,
      date: mail.date && !Number.isNaN(mail.date.getTime()) ? mail.date.toISOString() : undefined,
      messageId: mail.messageId,
      text: mail.text === "" ? undefined : mail.text,
      html: typeof mail.html === "string" ? mail.html : undefined,
      attachments: mail.attachments.map((attachment) => ({
        filename: attachment.filename ?? "",
        contentType: attachment.contentType,
        size: attachment.size,
      })),
    };
  } catch {
    parsed = undefined;
  }
  return { entry: found.entry, ...(parsed ? { parsed } : {}), raw, rawTruncated };
}
