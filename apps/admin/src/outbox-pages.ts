import type { AdminOutboxEntry, OutboxMessageView } from "./outbox.ts";
import { layout, type SignedInPage, text, when } from "./pages.ts";

/** A size in bytes as people read it: bytes, then KiB and MiB with one decimal. */
export function byteSize(size: number): string {
  if (size < 1024) return `${size} B`;
  if (size < 1024 * 1024) return `${(size / 1024).toFixed(1)} KiB`;
  return `${(size / (1024 * 1024)).toFixed(1)} MiB`;
}

const messagePath = (id: string) => `/dashboard/outbox/${encodeURIComponent(id)}`;

export interface OutboxListContext extends SignedInPage {
  /** Newest first. */
  entries: readonly AdminOutboxEntry[];
  /** The cursor of the older messages, when there are more. */
  cursor?: string;
}

/** The outbox, newest first, a page at a time: when, to whom, subject and size of each message. */
export function outboxListPage(ctx: OutboxListContext): string {
  const rows = ctx.entries
    .map(
      (entry) => `<tr data-id="${text(entry.id)}">
<td>${when(entry.sent_at)}</td><td class="name">${text(entry.to.join(", "))}</td>
<td class="name"><a href="${messagePath(entry.id)}">${text(entry.subject)}</a></td>
<td class="num">${byteSize(entry.size)}</td>
</tr>`,
    )
    .join("\n");
  const table =
    ctx.entries.length === 0
      ? `<p class="muted" id="empty-outbox">No messages here.</p>`
      : `<div class="scroll"><table id="outbox">
<thead><tr><th>Sent</th><th>To</th><th>Subject</th><th class="num">Size</th></tr></thead>
<tbody>
${rows}
</tbody></table></div>`;
  const older =
    ctx.cursor === undefined
      ? ""
      : `<p><a href="/dashboard/outbox?cursor=${encodeURIComponent(ctx.cursor)}" id="older">Older messages</a></p>`;
  return layout({
    title: "Outbox",
    csrf: ctx.csrf,
    outbox: ctx.outbox,
    body: `<h1>Outbox</h1>
<p class="muted">Email this deployment composed and kept as .eml files instead of delivering it.</p>
<div class="card">
${table}
${older}
</div>`,
  });
}

export interface OutboxMessageContext extends SignedInPage {
  message: OutboxMessageView;
}

/**
 * One message of the outbox: its headers, text part, attachments and raw source, every value escaped. Its HTML part
 * is shown as escaped source only, never rendered.
 */
export function outboxMessagePage(ctx: OutboxMessageContext): string {
  const { entry, parsed, raw, rawTruncated } = ctx.message;
  const subject = parsed?.subject ?? entry.subject;
  const header = (name: string, id: string, value: string | undefined) =>
    `<dt>${name}</dt><dd id="${id}">${value === undefined || value === "" ? "—" : text(value)}</dd>`;
  const headers = `<dl>
${header("From", "mail-from", parsed?.from ?? entry.from)}
${header("To", "mail-to", parsed?.to ?? entry.to.join(", "))}
${header("Subject", "mail-subject", subject)}
${header("Date", "mail-date", parsed?.date ?? entry.sent_at)}
${header("Message-ID", "mail-message-id", parsed?.messageId ?? entry.message_id)}
</dl>`;
  const download = `<p><a href="${messagePath(entry.id)}.eml" id="download">Download the .eml</a> <span class="muted">(${byteSize(entry.size)})</span></p>`;
  const unreadable = parsed
    ? ""
    : `<div class="notice" role="alert" id="notice">This message could not be read as email; its raw text is below.</div>`;
  const textPart =
    parsed === undefined
      ? ""
      : `<div class="card"><h2>Text</h2>
${parsed.text === undefined ? `<p class="muted" id="no-text">The message has no text part.</p>` : `<pre id="mail-text">${text(parsed.text)}</pre>`}
</div>`;
  const htmlPart =
    parsed?.html === undefined
      ? ""
      : `<div class="card"><h2>HTML part</h2>
<p class="muted">Shown as source: the dashboard never renders a message's HTML.</p>
<details><summary>HTML source (${text(parsed.html.length)} characters)</summary><pre id="mail-html">${text(parsed.html)}</pre></details>
</div>`;
  const attachmentRows = (parsed?.attachments ?? [])
    .map(
      (attachment) => `<tr>
<td class="name">${attachment.filename === "" ? "—" : text(attachment.filename)}</td><td><code>${text(attachment.contentType)}</code></td>
<td class="num">${byteSize(attachment.size)}</td>
</tr>`,
    )
    .join("\n");
  const attachments =
    parsed === undefined
      ? ""
      : `<div class="card"><h2>Attachments</h2>
${
  attachmentRows === ""
    ? `<p class="muted" id="no-attachments">No attachments.</p>`
    : `<div class="scroll"><table id="attachments">
<thead><tr><th>File name</th><th>Type</th><th class="num">Size</th></tr></thead>
<tbody>
${attachmentRows}
</tbody></table></div>`
}
</div>`;
  const truncated = rawTruncated
    ? `<p class="muted" id="raw-truncated">Only the start of the message is shown; download the .eml for all of it.</p>`
    : "";
  return layout({
    title: subject === "" ? "Message" : subject,
    csrf: ctx.csrf,
    outbox: ctx.outbox,
    body: `<p><a href="/dashboard/outbox">← Outbox</a></p>
<h1 id="subject">${text(subject)}</h1>
${unreadable}
<div class="card">
${headers}
${download}
</div>
${textPart}
${attachments}
${htmlPart}
<div class="card"><h2>Raw message</h2>
${truncated}<pre id="mail-raw">${text(raw)}</pre>
</div>`,
  });
}
