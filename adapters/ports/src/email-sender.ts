import { defineError, type ErrorOptions } from "@mailpiece/errors";

/**
 * The EmailSender port: sends one email per idempotency key (payment receipts, status mails, signed electronic
 * return receipts as PDF attachments). Sending is a job on the queue, so it runs at least once: the key makes a
 * retried job answer the first send instead of sending again.
 *
 * Contracts. An adapter MUST satisfy every sentence below; each has a named test in the conformance kit
 * (`@mailpiece/conformance`, `emailSenderContract`).
 *
 * Capabilities
 * - `capabilities` MUST be declared when the sender is made (`durable`, `delivers`) and MUST NOT change during its
 *   life. `delivers: false` means messages are kept for people to look at (an outbox) and reach no one.
 *
 * Sending
 * - `send` MUST send the message, answering its `key`, a non-empty `message_id` (the message's Message-ID header),
 *   `accepted` (the recipients' addresses the server took, each of `to`), `sent_at` (an ISO 8601 time in UTC from the
 *   sender's clock) and `duplicate: false`.
 * - The message sent MUST carry the sender, every recipient, the reply-to address, the subject, the text and html
 *   bodies, every attachment with its filename, content type and bytes unchanged, and every custom header.
 * - Different keys MUST give different messages with different `message_id`s.
 *
 * Once per key
 * - A second `send` with a key already sent MUST answer the first result with `duplicate: true` and send nothing.
 * - Under any number of concurrent `send`s of one message under one key in one process, the message MUST be sent
 *   once: exactly one caller is answered `duplicate: false`, and every caller gets the same `message_id`.
 * - A `send` of a different message under a key already used MUST be refused with `key_conflict`, sending nothing.
 * - An adapter that declares `durable: true` MUST keep every used key across a restart: after it, a `send` with a
 *   used key answers the first result as a duplicate and sends nothing.
 *
 * Refusals before sending
 * - A message `findEmailMessageProblem` finds a problem in MUST be refused with `invalid_message` naming the field at
 *   fault in `field`, before anything is sent: in particular an address that is not a plain `local@domain`, no
 *   recipient or more than `EMAIL_LIMITS.max_recipients`, a malformed key, a CR or LF (any control character) in
 *   the subject, a name, a filename or a header value, an empty subject, text or html, attachments over
 *   `EMAIL_LIMITS.max_attachment_bytes` in all, and a custom header that is not safe (`isSafeCustomHeader`).
 * - A refused `send` MUST leave its key as it was (free when it was free), whatever its code, unless the outcome
 *   of the send is unknown (below).
 *
 * Failures
 * - A server that cannot be reached or does not answer, or that refuses temporarily (an SMTP 4xx reply), MUST be
 *   `unavailable`, sending nothing; a later `send` under the same key MUST then send the message once.
 * - A permanent refusal (an SMTP 5xx reply to the envelope or the message) MUST be `rejected`, sending nothing.
 * - A refusal of the sender's own credentials MUST be `auth_failed`, sending nothing.
 * - Every failure MUST be an `EmailError` with a code of `EmailErrorCode` and a message that says why, and no error
 *   MUST carry a secret of the adapter's configuration (a password in an SMTP URL), in its message, its properties
 *   or its causes.
 *
 * When a send's outcome is unknown (a connection lost after the message was handed over), an adapter answers
 * `unavailable` and documents what a later `send` under the key does; it SHOULD send again only with the same
 * Message-ID, so that servers and mail clients can drop the second copy.
 */
export interface EmailSender {
  /** A short name for logs and reports, e.g. `smtp` or `outbox`. */
  readonly name: string;
  readonly capabilities: EmailSenderCapabilities;
  /** Sends `message` once per `message.key`. */
  send(message: EmailMessage): Promise<SendResult>;
  /** Releases connections and timers. The sender MUST NOT be used afterwards. */
  close(): Promise<void>;
}

export interface EmailSenderCapabilities {
  /** Used keys survive a restart and a crash. */
  durable: boolean;
  /** Messages reach their recipients; false for an outbox that only keeps them. */
  delivers: boolean;
}

/** A mailbox: an ASCII `local@domain` address and an optional display name. */
export interface EmailAddress {
  /** The display name, 1 to `EMAIL_LIMITS.max_name_chars` characters without control characters. */
  name?: string;
  address: string;
}

export interface EmailAttachment {
  /** 1 to 255 characters, no control characters, no `/` or `\`. */
  filename: string;
  /** `type/subtype`, e.g. `application/pdf`; no parameters. */
  contentType: string;
  content: Uint8Array;
}

export interface EmailMessage {
  /** The idempotency key (`EMAIL_KEY_PATTERN`): a retried job passes the same key and never sends twice. */
  key: string;
  from: EmailAddress;
  /** 1 to `EMAIL_LIMITS.max_recipients` recipients. */
  to: readonly EmailAddress[];
  replyTo?: EmailAddress;
  /** 1 to 998 characters, at least one not a space, no control characters. */
  subject: string;
  /** The plain-text body; not empty. */
  text: string;
  /** The HTML body; not empty. */
  html: string;
  /** PDFs and the like, `EMAIL_LIMITS.max_attachment_bytes` in all. */
  attachments?: readonly EmailAttachment[];
  /** Custom headers whose names `isSafeCustomHeader` admits (`X-…`, `List-Unsubscribe`, …), by name. */
  headers?: Readonly<Record<string, string>>;
}

export interface SendResult {
  key: string;
  /** The Message-ID header of the message sent, with its angle brackets: `<…@…>`. */
  message_id: string;
  /** The recipients' addresses the server accepted. */
  accepted: string[];
  /** When the message was sent: ISO 8601 date-time in UTC. */
  sent_at: string;
  /** True when the key had been sent before and this answer is the first send's, nothing sent now. */
  duplicate: boolean;
}

/** Idempotency keys: letters, digits, `.`, `_`, `-` and `:`, starting with a letter or digit, 1 to 200 long. */
export const EMAIL_KEY_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,199}$/;

export const EMAIL_LIMITS = Object.freeze({
  max_recipients: 50,
  max_subject_chars: 998,
  max_name_chars: 200,
  /** RFC 5321: 254 characters in all, 64 before the `@`. */
  max_address_chars: 254,
  max_local_part_chars: 64,
  /** Each of text and html. */
  max_body_chars: 1_000_000,
  max_attachments: 10,
  /** All attachments together, before encoding (base64 grows them by a third on the wire). */
  max_attachment_bytes: 10 * 1024 * 1024,
  max_filename_chars: 255,
  max_headers: 20,
  max_header_value_chars: 998,
});

/** Header names a message may set besides `X-…` ones; every other standard header is the adapter's. */
export const EMAIL_ALLOWED_HEADERS: readonly string[] = Object.freeze([
  "List-Unsubscribe",
  "List-Unsubscribe-Post",
  "List-Id",
  "Auto-Submitted",
  "Precedence",
  "In-Reply-To",
  "References",
  "Feedback-ID",
]);

/** Stable codes of email failures; apps map them in one place. */
export type EmailErrorCode =
  /** The message is malformed (`findEmailMessageProblem`); `field` names the part at fault. Nothing was sent. */
  | "invalid_message"
  /** The key was used before for a different message. Nothing was sent. */
  | "key_conflict"
  /** The server could not be reached, did not answer or refused for now; try again later under the same key. */
  | "unavailable"
  /** The server refused the message for good (a 5xx reply). Nothing was sent. */
  | "rejected"
  /** The server refused the sender's credentials. Nothing was sent; the configuration needs fixing. */
  | "auth_failed";

export const EMAIL_ERROR_CODES: readonly EmailErrorCode[] = Object.freeze([
  "invalid_message",
  "key_conflict",
  "unavailable",
  "rejected",
  "auth_failed",
]);

const EmailErrorBase = defineError<EmailErrorCode>("EmailError");

/** The error of the email port. `code` is a stable wire contract; `message` is for people and carries no secret. */
export class EmailError extends EmailErrorBase {
  /** The message field at fault for `invalid_message`, e.g. `to.2.address` or `headers.X-Order`. */
  readonly field: string | undefined;

  constructor(code: EmailErrorCode, message: string, options?: ErrorOptions & { field?: string }) {
    super(code, message, options);
    this.field = options?.field;
  }

  /** True for any EmailError, also one created by another copy of this package. */
  static override isInstance(value: unknown): value is EmailError {
    return EmailErrorBase.isInstance(value);
  }
}

/**
 * True when the same send may succeed later (`unavailable`, and `auth_failed` once the credentials are fixed): the
 * caller's job retries under the same key. False for refusals of the message itself.
 */
export function isRetryableEmailError(error: unknown): boolean {
  return EmailError.isInstance(error) && (error.code === "unavailable" || error.code === "auth_failed");
}

/** The field at fault in a message and a sentence for people. */
export interface EmailMessageProblem {
  field: string;
  message: string;
}

/** True when `text` holds a C0 or C1 control (CR and LF among them), DEL, or a Unicode line or paragraph separator. */
function hasControlCharacter(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x20 || (c >= 0x7f && c <= 0x9f) || c === 0x2028 || c === 0x2029) return true;
  }
  return false;
}
const LOCAL_PART = /^[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\.[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+)*$/;
const DOMAIN =
  /^(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.)+[A-Za-z](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?$/;
const CONTENT_TYPE = /^[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]{0,126}\/[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]{0,126}$/;
const HEADER_NAME = /^[A-Za-z0-9][A-Za-z0-9-]{0,76}$/;
const ALLOWED_HEADERS = new Set(EMAIL_ALLOWED_HEADERS.map((name) => name.toLowerCase()));

/**
 * True for a plain ASCII `local@domain` address: a dot-atom local part of at most 64 characters and a domain of
 * DNS labels with a top-level label that starts with a letter; 254 characters at most. No display names, comments,
 * quoted local parts or address literals.
 */
export function isValidEmailAddress(value: unknown): value is string {
  if (typeof value !== "string" || value.length > EMAIL_LIMITS.max_address_chars) return false;
  const at = value.lastIndexOf("@");
  if (at < 1) return false;
  const local = value.slice(0, at);
  const domain = value.slice(at + 1);
  return (
    local.length <= EMAIL_LIMITS.max_local_part_chars &&
    LOCAL_PART.test(local) &&
    domain.length <= 253 &&
    DOMAIN.test(domain)
  );
}

/** True for a custom header name a message may set: `X-…` or one of `EMAIL_ALLOWED_HEADERS`, case aside. */
export function isSafeCustomHeader(name: string): boolean {
  if (!HEADER_NAME.test(name)) return false;
  const lower = name.toLowerCase();
  return (lower.startsWith("x-") && lower.length > 2) || ALLOWED_HEADERS.has(lower);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function textProblem(
  value: unknown,
  field: string,
  max: number,
  what: string,
): EmailMessageProblem | undefined {
  if (typeof value !== "string" || value.trim().length === 0) {
    return { field, message: `${what} must be a non-empty string` };
  }
  if (value.length > max) return { field, message: `${what} must be at most ${max} characters` };
  if (hasControlCharacter(value)) {
    return { field, message: `${what} must not contain line breaks or other control characters` };
  }
  return undefined;
}

function mailboxProblem(value: unknown, at: string): EmailMessageProblem | undefined {
  if (!isRecord(value)) return { field: at, message: `${at} must be an object with an address` };
  if (value.name !== undefined) {
    const name = textProblem(value.name, `${at}.name`, EMAIL_LIMITS.max_name_chars, `${at}.name`);
    if (name) return name;
  }
  if (!isValidEmailAddress(value.address)) {
    return { field: `${at}.address`, message: `${at}.address must be a plain address, local@domain` };
  }
  return undefined;
}

function bodyProblem(value: unknown, field: "text" | "html"): EmailMessageProblem | undefined {
  if (typeof value !== "string" || value.trim().length === 0) {
    return { field, message: `the ${field} body must be a non-empty string` };
  }
  if (value.length > EMAIL_LIMITS.max_body_chars) {
    return { field, message: `the ${field} body must be at most ${EMAIL_LIMITS.max_body_chars} characters` };
  }
  if (value.includes("\u0000"))
    return { field, message: `the ${field} body must not contain NUL characters` };
  return undefined;
}

function attachmentsProblem(value: unknown): EmailMessageProblem | undefined {
  if (value === undefined) return undefined;
  if (!Array.isArray(value)) return { field: "attachments", message: "attachments must be a list" };
  if (value.length > EMAIL_LIMITS.max_attachments) {
    return { field: "attachments", message: `at most ${EMAIL_LIMITS.max_attachments} attachments` };
  }
  let total = 0;
  for (const [index, attachment] of value.entries()) {
    const at = `attachments.${index}`;
    if (!isRecord(attachment)) return { field: at, message: `${at} must be an object` };
    const name = textProblem(
      attachment.filename,
      `${at}.filename`,
      EMAIL_LIMITS.max_filename_chars,
      "a filename",
    );
    if (name) return name;
    if (/[/\\]/.test(attachment.filename as string)) {
      return { field: `${at}.filename`, message: "a filename must not contain / or \\" };
    }
    if (typeof attachment.contentType !== "string" || !CONTENT_TYPE.test(attachment.contentType)) {
      return {
        field: `${at}.contentType`,
        message: "contentType must be type/subtype, e.g. application/pdf",
      };
    }
    if (!(attachment.content instanceof Uint8Array) || attachment.content.byteLength === 0) {
      return { field: `${at}.content`, message: `${at}.content must be non-empty bytes (a Uint8Array)` };
    }
    total += attachment.content.byteLength;
    if (total > EMAIL_LIMITS.max_attachment_bytes) {
      return {
        field: `${at}.content`,
        message: `attachments must be at most ${EMAIL_LIMITS.max_attachment_bytes} bytes in all`,
      };
    }
  }
  return undefined;
}

function headersProblem(value: unknown): EmailMessageProblem | undefined {
  if (value === undefined) return undefined;
  if (!isRecord(value)) return { field: "headers", message: "headers must be an object of names to values" };
  const names = Object.keys(value);
  if (names.length > EMAIL_LIMITS.max_headers) {
    return { field: "headers", message: `at most ${EMAIL_LIMITS.max_headers} custom headers` };
  }
  const seen = new Set<string>();
  for (const name of names) {
    const field = `headers.${name}`;
    if (!isSafeCustomHeader(name)) {
      return {
        field,
        message: `a custom header is named X-… or one of ${EMAIL_ALLOWED_HEADERS.join(", ")}; the others are set by the sender`,
      };
    }
    if (seen.has(name.toLowerCase())) return { field, message: `${name} is given twice` };
    seen.add(name.toLowerCase());
    const problem = textProblem(
      value[name],
      field,
      EMAIL_LIMITS.max_header_value_chars,
      `the ${name} header`,
    );
    if (problem) return problem;
  }
  return undefined;
}

/** The first thing malformed in `message`, or undefined when it can be sent. */
export function findEmailMessageProblem(message: EmailMessage): EmailMessageProblem | undefined {
  if (!isRecord(message)) return { field: "", message: "a message must be an object" };
  if (typeof message.key !== "string" || !EMAIL_KEY_PATTERN.test(message.key)) {
    return {
      field: "key",
      message: "key must be 1 to 200 letters, digits, '.', '_', '-' or ':', starting with a letter or digit",
    };
  }
  const from = mailboxProblem(message.from, "from");
  if (from) return from;
  if (!Array.isArray(message.to) || message.to.length === 0) {
    return { field: "to", message: "to must list at least one recipient" };
  }
  if (message.to.length > EMAIL_LIMITS.max_recipients) {
    return { field: "to", message: `to lists at most ${EMAIL_LIMITS.max_recipients} recipients` };
  }
  for (const [index, recipient] of message.to.entries()) {
    const problem = mailboxProblem(recipient, `to.${index}`);
    if (problem) return problem;
  }
  if (message.replyTo !== undefined) {
    const replyTo = mailboxProblem(message.replyTo, "replyTo");
    if (replyTo) return replyTo;
  }
  return (
    textProblem(message.subject, "subject", EMAIL_LIMITS.max_subject_chars, "the subject") ??
    bodyProblem(message.text, "text") ??
    bodyProblem(message.html, "html") ??
    attachmentsProblem(message.attachments) ??
    headersProblem(message.headers)
  );
}

/** Throws `EmailError` `invalid_message`, naming the field, when `message` cannot be sent. */
export function assertSendableEmail(message: EmailMessage): void {
  const problem = findEmailMessageProblem(message);
  if (problem) throw new EmailError("invalid_message", problem.message, { field: problem.field });
}

async function sha256Hex(bytes: Uint8Array): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
  return Array.from(digest, (b) => b.toString(16).padStart(2, "0")).join("");
}

/**
 * A lowercase hex SHA-256 of everything a (well-formed) message sends, its key aside: two sends under one key are
 * the same message exactly when their fingerprints are equal. Attachments count by their bytes; header names by
 * their lower case.
 */
export async function emailFingerprint(message: EmailMessage): Promise<string> {
  const mailbox = (m: EmailAddress | undefined) => (m ? [m.name ?? null, m.address] : null);
  const attachments = await Promise.all(
    (message.attachments ?? []).map(async (a) => [a.filename, a.contentType, await sha256Hex(a.content)]),
  );
  const headers = Object.entries(message.headers ?? {})
    .map(([name, value]) => [name.toLowerCase(), value])
    .sort(([a], [b]) => ((a as string) < (b as string) ? -1 : 1));
  const canonical = JSON.stringify([
    mailbox(message.from),
    message.to.map(mailbox),
    mailbox(message.replyTo),
    message.subject,
    message.text,
    message.html,
    attachments,
    headers,
  ]);
  return sha256Hex(new TextEncoder().encode(canonical));
}
