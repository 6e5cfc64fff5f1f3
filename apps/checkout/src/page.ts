import type { CheckoutView, IssuedKey, PartyView, SetupSessionView, TopUpSessionView } from "@mailpiece/core";

/** What the page shows beyond the session: where its preview is, and whether payments are simulated. */
export interface PageContext {
  /** Absolute URL of the signed preview of the PDF that will print; absent: previews are off. */
  previewUrl?: string;
  /** The test checkout moves no money: the page says so and names the test tokens. */
  simulated: boolean;
  /** What the buyer typed, shown again with the problems found in it (never the token). */
  form?: { first_name?: string; last_name?: string; email?: string };
  /** Problems with the form, by field name. */
  problems?: Record<string, string>;
  /** A notice above everything (a payment refused, a session that can no longer be paid). */
  notice?: { kind: "error" | "info"; text: string };
}

const text = (value: unknown): string =>
  String(value ?? "")
    .replaceAll("&", "&amp;")
    .replaceAll("<", "&lt;")
    .replaceAll(">", "&gt;")
    .replaceAll('"', "&quot;")
    .replaceAll("'", "&#39;");

const usd = (cents: number) => `$${(cents / 100).toFixed(2)}`;

const STATUS_TEXT: Record<CheckoutView["status"], { title: string; text: string }> = {
  open: { title: "Review and pay", text: "Nothing is printed or mailed until you pay." },
  complete_in_progress: {
    title: "Payment in progress",
    text: "Your payment is being confirmed. This page shows the result once it is final; reload it in a moment.",
  },
  completed: { title: "Paid", text: "Thank you. Your mail is queued for printing and posting." },
  expired: {
    title: "This checkout has expired",
    text: "It can no longer be paid. Ask for a new checkout link; nothing was charged.",
  },
  canceled: { title: "This checkout was canceled", text: "It can no longer be paid; nothing was charged." },
};

function party(label: string, view: PartyView): string {
  return `<section class="party"><h3>${text(label)}</h3><address>${view.lines
    .map((line) => text(line))
    .join("<br>")}</address></section>`;
}

function options(view: CheckoutView): string {
  const o = view.mailpiece.options;
  const items = [
    view.mailpiece.mailpiece_type === "postcard"
      ? `Postcard ${text(view.mailpiece.postcard_size ?? "")}`
      : `Letter, ${view.mailpiece.page_count} page${view.mailpiece.page_count === 1 ? "" : "s"}`,
    o.color ? "Color" : "Black and white",
    o.double_sided ? "Double-sided" : "Single-sided",
    `${text(String(o.mail_class ?? "standard")).replace(/^./, (c) => c.toUpperCase())} mail`,
    ...(o.certified ? ["Certified"] : []),
    ...(o.certified_return_receipt ? ["Return receipt"] : []),
  ];
  return `<ul class="options">${items.map((item) => `<li>${item}</li>`).join("")}</ul>`;
}

function price(view: CheckoutView): string {
  const rows = view.line_items
    .map(
      (item) =>
        `<tr><td>${text(item.description)}${item.quantity > 1 ? ` × ${item.quantity}` : ""}</td><td class="amount">${usd(item.amount_cents)}</td></tr>`,
    )
    .join("");
  return `<table class="price"><tbody>${rows}</tbody><tfoot><tr><th scope="row">Total</th><td class="amount" id="total">${usd(view.amount_cents)}</td></tr></tfoot></table>`;
}

function field(
  name: string,
  label: string,
  type: string,
  value: string | undefined,
  ctx: PageContext,
  extra = "",
): string {
  const problem = ctx.problems?.[name];
  const id = `f-${name}`;
  return `<div class="field${problem ? " invalid" : ""}"><label for="${id}">${text(label)}</label><input id="${id}" name="${name}" type="${type}" value="${text(value)}"${extra}${problem ? ` aria-invalid="true" aria-describedby="${id}-problem"` : ""}>${problem ? `<p class="problem" id="${id}-problem">${text(problem)}</p>` : ""}</div>`;
}

function payForm(view: CheckoutView, ctx: PageContext): string {
  const buyer = { ...view.buyer, ...ctx.form };
  const testHint = ctx.simulated
    ? `<p class="test">Test mode: no money moves. Use <code>spt_test_ok</code> to pay, <code>spt_test_declined</code> for a declined card, <code>spt_test_3ds</code> for a card that needs 3-D Secure.</p>`
    : "";
  return `<form method="post" action="" novalidate>
<h2>Your details</h2>
<div class="row">${field("first_name", "First name", "text", buyer.first_name, ctx, ' autocomplete="given-name" required maxlength="128"')}${field("last_name", "Last name", "text", buyer.last_name, ctx, ' autocomplete="family-name" maxlength="128"')}</div>
${field("email", "Email for the receipt", "email", buyer.email, ctx, ' autocomplete="email" required maxlength="256"')}
<h2>Payment</h2>
${field("token", "Shared payment token", "text", "", ctx, ' autocomplete="off" required maxlength="256" placeholder="spt_…" spellcheck="false"')}
${testHint}
<button type="submit" id="pay">Pay ${usd(view.amount_cents)}</button>
</form>`;
}

const STYLE = `
*{box-sizing:border-box}
body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1d2433;background:#f4f5f7}
main{max-width:960px;margin:0 auto;padding:16px}
header{display:flex;justify-content:space-between;align-items:baseline;gap:8px;flex-wrap:wrap}
h1{font-size:1.6rem;margin:.2em 0}
h2{font-size:1.1rem;margin:1.2em 0 .4em}
h3{font-size:.85rem;text-transform:uppercase;letter-spacing:.04em;color:#5b6475;margin:0 0 .3em}
.status{border-radius:8px;padding:12px 16px;margin:12px 0;background:#fff;border-left:6px solid #3b6fd8}
.status.completed{border-color:#1f8a4c}.status.expired,.status.canceled{border-color:#8a8f99}
.status.complete_in_progress{border-color:#c98a00}
.notice{border-radius:8px;padding:12px 16px;margin:12px 0;background:#fdecec;border:1px solid #e5a4a4}
.notice.info{background:#eef4ff;border-color:#b7c9f0}
.grid{display:grid;grid-template-columns:1fr;gap:16px}
@media (min-width:760px){.grid{grid-template-columns:3fr 2fr}}
.card{background:#fff;border-radius:10px;padding:16px;box-shadow:0 1px 2px rgba(0,0,0,.06)}
.parties{display:flex;flex-wrap:wrap;gap:16px}.party{flex:1 1 200px}
address{font-style:normal;white-space:normal;overflow-wrap:anywhere}
.options{list-style:none;padding:0;margin:8px 0;display:flex;flex-wrap:wrap;gap:6px}
.options li{background:#eef0f4;border-radius:999px;padding:2px 10px;font-size:.9rem}
.preview{margin-top:12px}
.preview object{width:100%;height:420px;border:1px solid #d5d9e0;border-radius:6px;display:none}
@media (min-width:760px){.preview object{display:block}}
.price{width:100%;border-collapse:collapse}.price td,.price th{padding:6px 0;border-bottom:1px solid #eceef2;text-align:left}
.price .amount{text-align:right;white-space:nowrap}.price tfoot th,.price tfoot td{font-weight:700;border-bottom:0}
.field{margin:8px 0;flex:1 1 160px}.row{display:flex;flex-wrap:wrap;gap:12px}
label{display:block;font-size:.9rem;margin-bottom:2px}
input{width:100%;font:inherit;padding:10px;border:1px solid #b9bfca;border-radius:6px}
.invalid input{border-color:#c0392b}.problem{color:#c0392b;margin:4px 0 0;font-size:.9rem}
button{width:100%;margin-top:12px;font:inherit;font-weight:600;padding:12px;border:0;border-radius:8px;background:#1d4ed8;color:#fff;cursor:pointer}
button:focus-visible,input:focus-visible{outline:3px solid #93b4f5;outline-offset:1px}
.test{font-size:.85rem;color:#5b6475}code{background:#eef0f4;padding:0 4px;border-radius:4px}
.muted{color:#5b6475;font-size:.9rem}
`;

/** A page's opening: the document head, the title and the status line (its data-status for tests and tools). */
function opening(
  title: string,
  status: { title: string; text: string },
  code: string,
  aside: string,
): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>${text(title)}</title>
<style>${STYLE}</style>
</head>
<body>
<main>
<header><h1>${text(status.title)}</h1><span class="muted">${text(aside)}</span></header>
<div class="status ${code}" id="status" data-status="${code}">${text(status.text)}</div>`;
}

/** The hosted checkout page of one session: plain HTML and inline CSS, no scripts, no outside assets. */
export function checkoutPage(view: CheckoutView, ctx: PageContext): string {
  const status = STATUS_TEXT[view.status];
  const preview = ctx.previewUrl
    ? `<div class="preview"><object data="${text(ctx.previewUrl)}" type="application/pdf" aria-label="Preview of the PDF that will be printed"></object><p><a href="${text(ctx.previewUrl)}" target="_blank" rel="noopener">Open the PDF that will be printed</a> (${view.mailpiece.page_count} page${view.mailpiece.page_count === 1 ? "" : "s"})</p></div>`
    : "";
  const notice = ctx.notice
    ? `<div class="notice ${ctx.notice.kind}" role="alert" id="notice">${text(ctx.notice.text)}</div>`
    : view.messages
        .map(
          (m) =>
            `<div class="notice" role="alert" id="notice" data-code="${text(m.code)}">${text(m.content)}</div>`,
        )
        .join("");
  const paid =
    view.status === "completed"
      ? `<p class="muted">Order <code id="order-id">${text(view.order_id)}</code>${view.buyer ? ` · receipt to ${text(view.buyer.email)}` : ""}</p>`
      : "";
  return `${opening(`${status.title} · Mailpiece checkout`, status, view.status, usd(view.amount_cents))}
${notice}${paid}
<div class="grid">
<div class="card">
<h2>What will be mailed</h2>
${options(view)}
<div class="parties">${party("From", view.sender)}${party("To", view.recipient)}</div>
${preview}
</div>
<div class="card">
<h2>Price</h2>
${price(view)}
${view.status === "open" ? `${payForm(view, ctx)}<p class="muted">Open until ${text(new Date(view.expires_at).toUTCString())}.</p>` : ""}
</div>
</div>
</main>
</body>
</html>`;
}

/** A page for a session that does not exist (or a link that was mistyped). */
export function notFoundPage(): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Checkout not found · Mailpiece</title><style>${STYLE}</style></head><body><main><h1>Checkout not found</h1><div class="status expired">This checkout link is not valid. Check the link you were sent.</div></main></body></html>`;
}

/** The notice above a hosted page: the one given, else the session's message (a refused card), else none. */
function noticeOf(
  ctx: Pick<PageContext, "notice">,
  message: { code: string; content: string } | null,
): string {
  if (ctx.notice) {
    return `<div class="notice ${ctx.notice.kind}" role="alert" id="notice">${text(ctx.notice.text)}</div>`;
  }
  return message
    ? `<div class="notice" role="alert" id="notice" data-code="${text(message.code)}">${text(message.content)}</div>`
    : "";
}

const TOP_UP_STATUS: Record<TopUpSessionView["status"], { title: string; text: string }> = {
  open: {
    title: "Add credits",
    text: "The credits are added to your workspace as soon as the payment succeeds.",
  },
  complete_in_progress: {
    title: "Payment in progress",
    text: "Your payment is being confirmed. Reload this page in a moment to see the result.",
  },
  completed: { title: "Credits added", text: "Thank you. The credits are in your workspace's balance." },
  expired: {
    title: "This page has expired",
    text: "It can no longer be paid; nothing was charged. Ask for a new one.",
  },
  canceled: { title: "This top-up was canceled", text: "It can no longer be paid; nothing was charged." },
};

/** The hosted page of a credit top-up: the amount, the mode, and a form for a shared payment token. */
export function topUpPage(view: TopUpSessionView, ctx: Pick<PageContext, "notice" | "problems">): string {
  const status = TOP_UP_STATUS[view.status];
  const notice = noticeOf(ctx, view.message);
  const testHint = view.simulated
    ? `<p class="test">Test mode: no money moves. Use <code>spt_test_ok</code> to pay, <code>spt_test_declined</code> for a declined card.</p>`
    : "";
  const form =
    view.status === "open"
      ? `<form method="post" action="" novalidate>
${field("token", "Shared payment token", "text", "", { simulated: view.simulated, ...(ctx.problems ? { problems: ctx.problems } : {}) }, ' autocomplete="off" required maxlength="256" placeholder="spt_…" spellcheck="false"')}
${testHint}
<button type="submit" id="pay">Pay ${usd(view.amount_cents)}</button>
</form><p class="muted">Open until ${text(new Date(view.expires_at).toUTCString())}.</p>`
      : "";
  return `${opening(`${status.title} · Mailpiece credits`, status, view.status, `${view.mode} mode`)}
${notice}
<div class="card">
<table class="price"><tbody><tr><td>Mailpiece credits (${view.mode} mode)</td><td class="amount">${usd(view.amount_cents)}</td></tr></tbody>
<tfoot><tr><th scope="row">Total</th><td class="amount" id="total">${usd(view.amount_cents)}</td></tr></tfoot></table>
${form}
</div>
</main>
</body>
</html>`;
}

const SETUP_STATUS: Record<SetupSessionView["status"], { title: string; text: string }> = {
  open: {
    title: "Save a card",
    text: "Nothing is charged now. The card pays automatic refills of your credits, when you turn them on.",
  },
  complete_in_progress: {
    title: "Saving your card",
    text: "Your card is being saved. Reload this page in a moment to see the result.",
  },
  completed: { title: "Card saved", text: "Thank you. The card is saved for your workspace's credits." },
  expired: { title: "This page has expired", text: "No card was saved. Ask for a new setup link." },
};

/**
 * The hosted page of a payment-method setup: what saving the card means, a form for a shared payment token, and
 * once saved, the card's brand and last digits. `liveKey` is the workspace's first live key, shown on the answer
 * to the form post that issued it and never again.
 */
export function setupPage(
  view: SetupSessionView,
  ctx: Pick<PageContext, "notice" | "problems"> & { liveKey?: IssuedKey },
): string {
  const status = SETUP_STATUS[view.status];
  const notice = noticeOf(ctx, view.message);
  const testHint = view.simulated
    ? `<p class="test">Test mode: no money moves. Use <code>spt_test_ok</code> to save a card, <code>spt_test_declined</code> for a declined one, <code>spt_test_declines_off_session</code> for one that later refills decline.</p>`
    : "";
  const live = view.enables_live
    ? `<p>Saving this card turns on live mode for the workspace: live keys work, and live mail is paid from prepaid credits.</p>`
    : "";
  const form =
    view.status === "open"
      ? `<form method="post" action="" novalidate>
${field("token", "Shared payment token", "text", "", { simulated: view.simulated, ...(ctx.problems ? { problems: ctx.problems } : {}) }, ' autocomplete="off" required maxlength="256" placeholder="spt_…" spellcheck="false"')}
${testHint}
<button type="submit" id="save">Save card</button>
</form><p class="muted">Open until ${text(new Date(view.expires_at).toUTCString())}.</p>`
      : "";
  const method = view.payment_method
    ? `<p id="method">${text((view.payment_method.brand ?? "card").replace(/^./, (c) => c.toUpperCase()))} ending in ${text(view.payment_method.last4 ?? "····")}${view.payment_method.exp_month && view.payment_method.exp_year ? `, expires ${String(view.payment_method.exp_month).padStart(2, "0")}/${view.payment_method.exp_year}` : ""}</p>`
    : "";
  const key = ctx.liveKey
    ? `<div class="notice info" id="live-key"><h2>Your live API key</h2><p>Copy it now: it is shown this once and never again. Keep it secret, as you would a password.</p><p><code id="live-api-key">${text(ctx.liveKey.api_key)}</code></p></div>`
    : view.live_api_key_prefix
      ? `<p class="muted">The workspace's first live key (${text(view.live_api_key_prefix)}…) was shown once when the card was saved.</p>`
      : "";
  return `${opening(`${status.title} · Mailpiece credits`, status, view.status, `${view.mode} mode`)}
${notice}
<div class="card">
${live}
${method}
${key}
${form}
</div>
</main>
</body>
</html>`;
}
