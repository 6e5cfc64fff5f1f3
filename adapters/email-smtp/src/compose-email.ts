import { createHash } from "node:crypto";
import type { EmailAddress, EmailMessage } from "@mailpiece/ports";
import MailComposer from "nodemailer/lib/mail-composer";

/** What the sender adds to a message: its Message-ID and its Date. */
export interface ComposeOptions {
  /** `<…@…>`, e.g. from `messageIdFor`. */
  messageId: string;
  date: Date;
}

/**
 * The Message-ID of the message sent under `key`: the first 32 hex digits of the key's SHA-256 at `domain`. Every
 * send under one key carries the same Message-ID, so a second copy (after a send whose outcome was unknown) can be
 * recognised by servers and mail clients. Keys are unique within a deployment (they name orders and events).
 */
export function messageIdFor(key: string, domain: string): string {
  return `<${createHash("sha256").update(key).digest("hex").slice(0, 32)}@${domain.toLowerCase()}>`;
}

/** The domain of a (valid) address, lower case. */
export function addressDomain(address: string): string {
  return address.slice(address.lastIndexOf("@") + 1).toLowerCase();
}

const mailbox = (m: EmailAddress) =>
  m.name === undefined ? m.address : { name: m.name, address: m.address };

/**
 * The message as RFC 5322 bytes with CRLF line breaks, built by nodemailer's MailComposer: multipart/alternative
 * text and html, each attachment base64-encoded with its filename, non-ASCII names and subjects as encoded words,
 * and the custom headers. The message MUST have passed `findEmailMessageProblem`. No file or URL is ever read.
 */
export function composeEmail(message: EmailMessage, options: ComposeOptions): Promise<Buffer> {
  const composer = new MailComposer({
    from: mailbox(message.from),
    to: message.to.map(mailbox),
    ...(message.replyTo ? { replyTo: mailbox(message.replyTo) } : {}),
    subject: message.subject,
    text: message.text,
    html: message.html,
    attachments: (message.attachments ?? []).map((a) => ({
      filename: a.filename,
      contentType: a.contentType,
      contentDisposition: "attachment",
      content: Buffer.from(a.content.buffer, a.content.byteOffset, a.content.byteLength),
    })),
    headers: { ...message.headers },
    messageId: options.messageId,
    date: options.date,
    newline: "windows",
    disableFileAccess: true,
    disableUrlAccess: true,
  });
  return composer.compile().build();
}
