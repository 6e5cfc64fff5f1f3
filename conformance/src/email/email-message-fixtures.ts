import { EMAIL_LIMITS, type EmailAttachment, type EmailMessage } from "@mailpiece/ports";

/**
 * Bytes that stand for a receipt PDF: a PDF header and trailer around every byte value from 0 to 255, so that an
 * attachment that is re-encoded, trimmed or read as text does not come back byte for byte.
 */
export function samplePdfBytes(): Uint8Array {
  const head = new TextEncoder().encode("%PDF-1.7\n%\u00e2\u00e3\u00cf\u00d3\n");
  const tail = new TextEncoder().encode("\n%%EOF\n");
  const body = Uint8Array.from({ length: 512 }, (_, i) => i % 256);
  const bytes = new Uint8Array(head.length + body.length + tail.length);
  bytes.set(head, 0);
  bytes.set(body, head.length);
  bytes.set(tail, head.length + body.length);
  return bytes;
}

/**
 * A well-formed message under `key`: two recipients (one without a name), a reply-to address, a subject, text and
 * html bodies with characters beyond ASCII, a PDF attachment and a custom header. `overrides` replace its fields.
 */
export function emailMessageFixture(key: string, overrides: Partial<EmailMessage> = {}): EmailMessage {
  const attachment: EmailAttachment = {
    filename: "receipt-o_1.pdf",
    contentType: "application/pdf",
    content: samplePdfBytes(),
  };
  return {
    key,
    from: { name: "Mailpiece receipts", address: "receipts@mailpiece.test" },
    to: [{ name: "Zoë Ångström", address: "zoe@example.test" }, { address: "accounts@example.test" }],
    replyTo: { name: "Mailpiece support", address: "help@mailpiece.test" },
    subject: "Reçu de paiement : commande o_1 (3,40 $)",
    text: "Bonjour Zoë,\n\nWe received 340 cents for order o_1.\nThe receipt is attached.\n\n— Mailpiece",
    html: "<p>Bonjour Zoë,</p><p>We received <b>$3.40</b> for order o_1.</p><p>— Mailpiece</p>",
    attachments: [attachment],
    headers: { "X-Mailpiece-Order": "o_1", "X-Mailpiece-Kind": "payment-receipt" },
    ...overrides,
  };
}

/** One way to break a message, the field a refusal must name, and the message. */
export interface MalformedEmail {
  why: string;
  field: string;
  message: EmailMessage;
}

const addressCases: ReadonlyArray<[string, string]> = [
  ["an empty address", ""],
  ["an address without @", "zoe.example.test"],
  ["a domain without a dot", "zoe@localhost"],
  ["a space in the address", "zo e@example.test"],
  ["an address in angle brackets", "<zoe@example.test>"],
  ["a display name in the address", "Zoe <zoe@example.test>"],
  ["two @", "zoe@@example.test"],
  ["two dots in a row", "zo..e@example.test"],
  ["a leading dot", ".zoe@example.test"],
  ["a domain label starting with a hyphen", "zoe@-example.test"],
  ["a trailing dot", "zoe@example.test."],
  ["a CRLF after the address", "zoe@example.test\r\nBcc: victim@example.test"],
  ["a comma between two addresses", "zoe@example.test,eve@example.test"],
  ["a local part over 64 characters", `${"z".repeat(65)}@example.test`],
  ["an address over 254 characters", `zoe@${Array.from({ length: 5 }, () => "d".repeat(50)).join(".")}.test`],
];

/** Malformed addresses, recipient lists and keys. */
export function malformedAddressMessages(key: string): MalformedEmail[] {
  const base = emailMessageFixture(key);
  const cases: MalformedEmail[] = [];
  for (const [why, address] of addressCases) {
    cases.push({
      why: `to: ${why}`,
      field: "to.1.address",
      message: { ...base, to: [base.to[0] as EmailMessage["to"][number], { address }] },
    });
  }
  cases.push(
    {
      why: "from: not an address",
      field: "from.address",
      message: { ...base, from: { address: "receipts" } },
    },
    { why: "from: missing", field: "from", message: { ...base, from: undefined as never } },
    {
      why: "replyTo: not an address",
      field: "replyTo.address",
      message: { ...base, replyTo: { name: "Help", address: "help at mailpiece.test" } },
    },
    { why: "no recipient", field: "to", message: { ...base, to: [] } },
    { why: "to is not a list", field: "to", message: { ...base, to: "zoe@example.test" as never } },
    {
      why: `more than ${EMAIL_LIMITS.max_recipients} recipients`,
      field: "to",
      message: {
        ...base,
        to: Array.from({ length: EMAIL_LIMITS.max_recipients + 1 }, (_, i) => ({
          address: `r${i}@example.test`,
        })),
      },
    },
  );
  for (const badKey of ["", ":leading-colon", "has space", "a/b", "é", `k${"x".repeat(200)}`]) {
    cases.push({ why: `key ${JSON.stringify(badKey)}`, field: "key", message: { ...base, key: badKey } });
  }
  cases.push({ why: "key is not a string", field: "key", message: { ...base, key: 42 as never } });
  return cases;
}

/** CR, LF and other control characters where they would make or break a header. */
export function headerInjectionMessages(key: string): MalformedEmail[] {
  const base = emailMessageFixture(key);
  const [first, second] = base.to as [EmailMessage["to"][number], EmailMessage["to"][number]];
  const pdf = (base.attachments ?? [])[0] as EmailAttachment;
  const injected = "Hello\r\nBcc: victim@example.test";
  return [
    { why: "CRLF in the subject", field: "subject", message: { ...base, subject: injected } },
    {
      why: "LF in the subject",
      field: "subject",
      message: { ...base, subject: "Hello\nBcc: victim@example.test" },
    },
    { why: "CR in the subject", field: "subject", message: { ...base, subject: "Hello\rthere" } },
    {
      why: "a line separator in the subject",
      field: "subject",
      message: { ...base, subject: "Hi\u2028there" },
    },
    { why: "NUL in the subject", field: "subject", message: { ...base, subject: "Hi\u0000there" } },
    {
      why: "CRLF in the sender's name",
      field: "from.name",
      message: { ...base, from: { ...base.from, name: injected } },
    },
    {
      why: "LF in a recipient's name",
      field: "to.1.name",
      message: { ...base, to: [first, { ...second, name: "Bob\nBcc: x@example.test" }] },
    },
    {
      why: "CRLF in the reply-to name",
      field: "replyTo.name",
      message: { ...base, replyTo: { address: "help@mailpiece.test", name: injected } },
    },
    {
      why: "CRLF in an attachment's filename",
      field: "attachments.0.filename",
      message: { ...base, attachments: [{ ...pdf, filename: "receipt.pdf\r\nX-Evil: 1" }] },
    },
    {
      why: "CRLF in a header value",
      field: "headers.X-Mailpiece-Order",
      message: { ...base, headers: { "X-Mailpiece-Order": "o_1\r\nBcc: victim@example.test" } },
    },
    {
      why: "LF in a header value",
      field: "headers.X-Note",
      message: { ...base, headers: { "X-Note": "one\ntwo" } },
    },
  ];
}

/** Empty or blank subjects and bodies. */
export function emptyPartMessages(key: string): MalformedEmail[] {
  const base = emailMessageFixture(key);
  return [
    { why: "an empty subject", field: "subject", message: { ...base, subject: "" } },
    { why: "a blank subject", field: "subject", message: { ...base, subject: "   " } },
    { why: "no subject", field: "subject", message: { ...base, subject: undefined as never } },
    {
      why: "a subject over 998 characters",
      field: "subject",
      message: { ...base, subject: "s".repeat(EMAIL_LIMITS.max_subject_chars + 1) },
    },
    { why: "an empty text body", field: "text", message: { ...base, text: "" } },
    { why: "a blank text body", field: "text", message: { ...base, text: " \n\t " } },
    { why: "no text body", field: "text", message: { ...base, text: undefined as never } },
    { why: "an empty html body", field: "html", message: { ...base, html: "" } },
    { why: "no html body", field: "html", message: { ...base, html: undefined as never } },
  ];
}

/** Attachments that are too large, too many or malformed. */
export function malformedAttachmentMessages(key: string): MalformedEmail[] {
  const base = emailMessageFixture(key);
  const pdf = (base.attachments ?? [])[0] as EmailAttachment;
  const half = Math.floor(EMAIL_LIMITS.max_attachment_bytes / 2);
  const big = (bytes: number): EmailAttachment => ({ ...pdf, content: new Uint8Array(bytes) });
  return [
    {
      why: "one attachment over the size limit",
      field: "attachments.0.content",
      message: { ...base, attachments: [big(EMAIL_LIMITS.max_attachment_bytes + 1)] },
    },
    {
      why: "attachments over the size limit together",
      field: "attachments.2.content",
      message: {
        ...base,
        attachments: [big(half), big(half), big(EMAIL_LIMITS.max_attachment_bytes - 2 * half + 1)],
      },
    },
    {
      why: `more than ${EMAIL_LIMITS.max_attachments} attachments`,
      field: "attachments",
      message: { ...base, attachments: Array.from({ length: EMAIL_LIMITS.max_attachments + 1 }, () => pdf) },
    },
    {
      why: "an empty attachment",
      field: "attachments.0.content",
      message: { ...base, attachments: [{ ...pdf, content: new Uint8Array(0) }] },
    },
    {
      why: "content that is not bytes",
      field: "attachments.0.content",
      message: { ...base, attachments: [{ ...pdf, content: "%PDF-1.7" as never }] },
    },
    {
      why: "a content type without a subtype",
      field: "attachments.0.contentType",
      message: { ...base, attachments: [{ ...pdf, contentType: "pdf" }] },
    },
    {
      why: "a content type with parameters",
      field: "attachments.0.contentType",
      message: { ...base, attachments: [{ ...pdf, contentType: "application/pdf; name=x.pdf" }] },
    },
    {
      why: "an empty filename",
      field: "attachments.0.filename",
      message: { ...base, attachments: [{ ...pdf, filename: "" }] },
    },
    {
      why: "a filename with a path",
      field: "attachments.0.filename",
      message: { ...base, attachments: [{ ...pdf, filename: "../receipt.pdf" }] },
    },
    {
      why: "attachments that are not a list",
      field: "attachments",
      message: { ...base, attachments: pdf as never },
    },
  ];
}

/** Custom headers that would override what the sender sets, or that are malformed. */
export function unsafeHeaderMessages(key: string): MalformedEmail[] {
  const base = emailMessageFixture(key);
  const header = (name: string, value = "value") => ({ ...base, headers: { [name]: value } });
  const cases: MalformedEmail[] = [];
  for (const name of [
    "Bcc",
    "Cc",
    "To",
    "From",
    "Subject",
    "Reply-To",
    "Message-ID",
    "Date",
    "Content-Type",
    "Content-Transfer-Encoding",
    "MIME-Version",
    "Sender",
    "Return-Path",
    "DKIM-Signature",
    "Received",
    "X-",
    "X Bad",
    "X-Bad:",
    "X-Ünicode",
  ]) {
    cases.push({ why: `a ${name} header`, field: `headers.${name}`, message: header(name) });
  }
  cases.push(
    { why: "an empty header value", field: "headers.X-Note", message: header("X-Note", "") },
    {
      why: "a header value that is not a string",
      field: "headers.X-Note",
      message: header("X-Note", 7 as never),
    },
    {
      why: "a header value over 998 characters",
      field: "headers.X-Note",
      message: header("X-Note", "v".repeat(EMAIL_LIMITS.max_header_value_chars + 1)),
    },
    {
      why: `more than ${EMAIL_LIMITS.max_headers} custom headers`,
      field: "headers",
      message: {
        ...base,
        headers: Object.fromEntries(
          Array.from({ length: EMAIL_LIMITS.max_headers + 1 }, (_, i) => [`X-H${i}`, "v"]),
        ),
      },
    },
    {
      why: "headers that are not an object",
      field: "headers",
      message: { ...base, headers: ["X-A: b"] as never },
    },
  );
  return cases;
}
