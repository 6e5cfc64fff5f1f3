import { createHash } from "node:crypto";
import type {
  ApprovalSummary,
  CreditLedgerEntryView,
  IssuedKey,
  ModeCredits,
  WorkspaceView,
} from "@mailpiece/core";
import type { AdminWorkspaceView, KeyMode } from "./views.ts";

/** Escapes a value for HTML text and attribute values (names come from users). */
export const text = (value: unknown): string =>
  String(value ?? "")
    .replaceAll("&", "&amp;")
    .replaceAll("<", "&lt;")
    .replaceAll(">", "&gt;")
    .replaceAll('"', "&quot;")
    .replaceAll("'", "&#39;");

const usd = (cents: number) => `${cents < 0 ? "−" : ""}$${(Math.abs(cents) / 100).toFixed(2)}`;
const signed = (cents: number) => (cents > 0 ? `+${usd(cents)}` : usd(cents));
export const when = (iso: string) => text(iso.replace("T", " ").replace(/\.\d+Z$/, " UTC"));

const STYLE = `
*{box-sizing:border-box}
body{margin:0;font:15px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1d2433;background:#f4f5f7}
header.top{background:#1d2433;color:#fff}
header.top .bar{max-width:1100px;margin:0 auto;padding:10px 16px;display:flex;justify-content:space-between;align-items:center;gap:12px;flex-wrap:wrap}
header.top a{color:#fff;text-decoration:none;font-weight:600}
header.top form{margin:0}
header.top nav{display:flex;gap:20px;align-items:center;flex-wrap:wrap}
header.top button{background:transparent;color:#fff;border:1px solid #8a93a6;padding:4px 12px;width:auto;margin:0}
main{max-width:1100px;margin:0 auto;padding:16px}
h1{font-size:1.5rem;margin:.3em 0;overflow-wrap:anywhere}
h2{font-size:1.1rem;margin:1.2em 0 .5em}
.card{background:#fff;border-radius:10px;padding:16px;box-shadow:0 1px 2px rgba(0,0,0,.06);margin:12px 0}
.narrow{max-width:420px;margin:48px auto}
.notice{border-radius:8px;padding:12px 16px;margin:12px 0;background:#fdecec;border:1px solid #e5a4a4}
.notice.info{background:#eef4ff;border-color:#b7c9f0}
.created{border-radius:8px;padding:12px 16px;margin:12px 0;background:#e9f7ef;border:1px solid #9fd4b3}
.created code{display:inline-block;font-size:1rem;padding:4px 8px;margin:4px 0;word-break:break-all;background:#fff}
.scroll{overflow-x:auto}
table{width:100%;border-collapse:collapse}
th,td{padding:6px 8px;border-bottom:1px solid #eceef2;text-align:left;vertical-align:top}
th{font-size:.8rem;text-transform:uppercase;letter-spacing:.03em;color:#5b6475;font-weight:600}
td.num,th.num{text-align:right;white-space:nowrap}
td.name{min-width:10em;overflow-wrap:break-word;word-break:break-word}
code{background:#eef0f4;padding:0 4px;border-radius:4px;font-size:.9em}
label{display:block;font-size:.9rem;margin-bottom:2px}
input{width:100%;font:inherit;padding:9px;border:1px solid #b9bfca;border-radius:6px}
.row{display:flex;gap:8px;flex-wrap:wrap;align-items:flex-end}.row .grow{flex:1 1 240px}
.decide{display:flex;gap:8px}.decide form{margin:0}button.reject{background:#b42318}
button{font:inherit;font-weight:600;padding:9px 16px;border:0;border-radius:8px;background:#1d4ed8;color:#fff;cursor:pointer}
.narrow button{width:100%;margin-top:12px}
button:focus-visible,input:focus-visible,a:focus-visible{outline:3px solid #93b4f5;outline-offset:1px}
.problem{color:#c0392b;margin:4px 0 0;font-size:.9rem}
.muted{color:#5b6475;font-size:.9rem}
.badge{display:inline-block;border-radius:999px;padding:0 8px;font-size:.8rem;background:#eef0f4}
.badge.yes,.badge.active{background:#dff3e6}.badge.expiring{background:#fff1cc}.badge.expired,.badge.disabled{background:#f1e1e1}
pre{margin:0;padding:12px;background:#f7f8fa;border:1px solid #eceef2;border-radius:6px;font-size:.85rem;white-space:pre-wrap;overflow-wrap:anywhere;max-height:40em;overflow-y:auto}
details summary{cursor:pointer;margin:.5em 0}
dl{display:grid;grid-template-columns:max-content 1fr;gap:4px 16px;margin:0}dt{color:#5b6475}dd{margin:0;overflow-wrap:anywhere}
.grid{display:grid;grid-template-columns:1fr;gap:12px}@media (min-width:900px){.grid{grid-template-columns:1fr 1fr}}
`;

/** The page's one style sheet, allowed by its hash: the policy admits no other style and no script at all. */
export const CONTENT_SECURITY_POLICY = `default-src 'none'; style-src 'sha256-${createHash("sha256").update(STYLE).digest("base64")}'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'`;

/** What every signed-in page knows: the session's CSRF token, and whether the navigation links the outbox. */
export interface SignedInPage {
  csrf: string;
  /** The deployment has an email outbox: the navigation links it. */
  outbox?: boolean;
}

interface Layout {
  title: string;
  /** The signed-in session's CSRF token: shows the navigation and the sign-out button. */
  csrf?: string;
  outbox?: boolean;
  body: string;
}

export function layout({ title, csrf, outbox, body }: Layout): string {
  const links = outbox ? `<a href="/dashboard/outbox" id="outbox-link">Outbox</a>` : "";
  const nav =
    csrf === undefined
      ? `<span>Mailpiece admin</span>`
      : `<nav><a href="/dashboard" id="home">Mailpiece admin</a>${links}</nav><form method="post" action="/dashboard/sign-out">${csrfField(csrf)}<button type="submit" id="sign-out">Sign out</button></form>`;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex, nofollow">
<title>${text(title)} · Mailpiece admin</title>
<style>${STYLE}</style>
</head>
<body>
<header class="top"><div class="bar">${nav}</div></header>
<main>
${body}
</main>
</body>
</html>`;
}

const csrfField = (csrf: string) => `<input type="hidden" name="csrf" value="${text(csrf)}">`;

const notice = (kind: "error" | "info", message: string) =>
  `<div class="notice ${kind}" role="alert" id="notice">${text(message)}</div>`;

/** The sign-in form; `csrf` is the sign-in form's own token (from its cookie), not a session's. */
export function signInPage(csrf: string, message?: string): string {
  return layout({
    title: "Sign in",
    body: `<div class="card narrow">
<h1>Sign in</h1>
<p class="muted">Sign in with this deployment's admin token (ADMIN_TOKEN).</p>
${message === undefined ? "" : notice("error", message)}
<form method="post" action="/dashboard/sign-in">
${csrfField(csrf)}
<label for="token">Admin token</label>
<input id="token" name="token" type="password" autocomplete="current-password" required maxlength="1024" spellcheck="false">
<button type="submit" id="sign-in">Sign in</button>
</form>
</div>`,
  });
}

/** A workspace's row of the list: its credits in both modes. */
export interface WorkspaceRow {
  workspace: WorkspaceView;
  test: ModeCredits;
  live: ModeCredits;
}

export interface ListPageContext extends SignedInPage {
  rows: WorkspaceRow[];
  nextCursor: string | null;
  /** A workspace just made: its test key, shown this once. */
  created?: { id: string; name: string; test_api_key: string };
  /** What was typed in the create form, with the problem found in it. */
  /** A refused create form: what was typed, and the problem of each field (by name). */
  form?: { name: string; email: string; problems: Partial<Record<"name" | "email", string>> };
}

/** The workspaces, a page at a time, with the form that creates one. */
export function listPage(ctx: ListPageContext): string {
  const created = ctx.created
    ? `<section class="created" id="created" role="status">
<p>Workspace <strong>${text(ctx.created.name)}</strong> (<code id="new-id">${text(ctx.created.id)}</code>) was created. Its test API key is shown only this once; copy it now:</p>
<code id="new-key">${text(ctx.created.test_api_key)}</code>
<p class="muted">The key has every test permission. Only its prefix is kept visible; a lost key is replaced by rotation.</p>
</section>`
    : "";
  const rows = ctx.rows
    .map(
      ({ workspace, test, live }) => `<tr data-id="${text(workspace.id)}">
<td class="name"><a href="/dashboard/workspaces/${encodeURIComponent(workspace.id)}">${text(workspace.name)}</a></td>
<td><code>${text(workspace.id)}</code></td>
<td>${workspace.live_enabled ? '<span class="badge yes">yes</span>' : '<span class="badge">no</span>'}</td>
<td class="num">${usd(test.available_cents)}</td><td class="num">${usd(test.reserved_cents)}</td>
<td class="num">${usd(live.available_cents)}</td><td class="num">${usd(live.reserved_cents)}</td>
</tr>`,
    )
    .join("\n");
  const table =
    ctx.rows.length === 0
      ? `<p class="muted" id="empty">No workspaces yet.</p>`
      : `<div class="scroll"><table id="workspaces">
<thead><tr><th>Name</th><th>ID</th><th>Live enabled</th><th class="num">Test available</th><th class="num">Test reserved</th><th class="num">Live available</th><th class="num">Live reserved</th></tr></thead>
<tbody>
${rows}
</tbody></table></div>`;
  const next =
    ctx.nextCursor === null
      ? ""
      : `<p><a href="/dashboard?cursor=${encodeURIComponent(ctx.nextCursor)}" id="next">Next page</a></p>`;
  const problems = ctx.form?.problems ?? {};
  return layout({
    title: "Workspaces",
    csrf: ctx.csrf,
    outbox: ctx.outbox,
    body: `<h1>Workspaces</h1>
${created}
<div class="card">
<h2>Create a workspace</h2>
<form method="post" action="/dashboard/workspaces">
${csrfField(ctx.csrf)}
<div class="row"><div class="grow"><label for="name">Name</label>
<input id="name" name="name" required maxlength="200" value="${text(ctx.form?.name ?? "")}"${invalid("name", problems.name)}>
${fieldProblem("name", problems.name)}</div>
<div class="grow"><label for="email">Account email (optional: gets the receipts)</label>
<input id="email" name="email" type="email" maxlength="256" value="${text(ctx.form?.email ?? "")}"${invalid("email", problems.email)}>
${fieldProblem("email", problems.email)}</div>
<div><button type="submit" id="create">Create workspace</button></div></div>
</form>
</div>
<div class="card">
${table}
${next}
</div>`,
  });
}

export interface WorkspacePageContext extends SignedInPage {
  workspace: AdminWorkspaceView;
  ledgers: Record<KeyMode, { entries: CreditLedgerEntryView[]; truncated: boolean }>;
  notice?: string;
  /** The workspace's first live key, issued by live-enabling it: shown on this page once. */
  liveKey?: IssuedKey;
  /** A refused account email: what was typed, and why it was refused. */
  emailForm?: { email: string; problem: string };
}

/** How many ledger entries the workspace page shows per mode. */
export const LEDGER_ENTRIES_SHOWN = 10;

function ledgerTable(mode: KeyMode, ledger: WorkspacePageContext["ledgers"][KeyMode]): string {
  if (ledger.entries.length === 0) return `<p class="muted">No ${mode} credit movements yet.</p>`;
  const rows = ledger.entries
    .map(
      (entry) => `<tr>
<td>${when(entry.created_at)}</td><td>${text(entry.type)}</td>
<td class="num">${usd(entry.amount_cents)}</td>
<td class="num">${signed(entry.available_delta_cents)}</td><td class="num">${signed(entry.reserved_delta_cents)}</td>
<td class="name">${text(entry.reference ?? "")}</td>
</tr>`,
    )
    .join("\n");
  return `<div class="scroll"><table class="ledger" id="ledger-${mode}">
<thead><tr><th>When</th><th>Type</th><th class="num">Amount</th><th class="num">Available</th><th class="num">Reserved</th><th>Reference</th></tr></thead>
<tbody>
${rows}
</tbody></table></div>${ledger.truncated ? `<p class="muted">This ledger is long: the entries shown are not its latest; read it through the admin API.</p>` : ""}`;
}

function balanceRow(mode: KeyMode, credits: ModeCredits): string {
  return `<tr id="balance-${mode}"><td>${mode}</td><td><code>${text(credits.billing_rail)}</code></td>
<td class="num">${usd(credits.available_cents)}</td><td class="num">${usd(credits.reserved_cents)}</td>
<td><span class="badge ${credits.status === "active" ? "active" : ""}">${text(credits.status)}</span></td></tr>`;
}

/** One workspace: its keys by prefix and status, its balances, the last ledger entries of each mode. */
export function workspacePage(ctx: WorkspacePageContext): string {
  const { workspace } = ctx;
  const keys = workspace.keys
    .map(
      (key) => `<tr>
<td>${key.mode}</td><td><code class="key-prefix">${text(key.api_key_prefix)}…</code></td>
<td><span class="badge ${key.status}">${key.status}</span></td>
<td>${key.expires_at === null ? "—" : when(key.expires_at)}</td>
</tr>`,
    )
    .join("\n");
  const live = workspace.live_enabled
    ? '<span class="badge yes">yes</span>'
    : `<span class="badge">no</span>
<form method="post" action="/dashboard/workspaces/${encodeURIComponent(workspace.id)}/live">${csrfField(ctx.csrf)}<button type="submit" id="enable-live">Enable live</button></form>
<p class="muted">Live keys work once the workspace is live-enabled, normally by its payment-method setup; this overrides that.</p>`;
  return layout({
    title: workspace.name,
    csrf: ctx.csrf,
    outbox: ctx.outbox,
    body: `<p><a href="/dashboard">← Workspaces</a></p>
<h1 id="workspace-name">${text(workspace.name)}</h1>
${ctx.notice === undefined ? "" : notice("info", ctx.notice)}
${ctx.liveKey ? `<div class="card" id="live-key"><h2>First live API key</h2><p>Give it to the workspace's owner now: it is shown this once and never again.</p><p><code id="live-api-key">${text(ctx.liveKey.api_key)}</code></p></div>` : ""}
<div class="card"><dl>
<dt>ID</dt><dd><code id="workspace-id">${text(workspace.id)}</code></dd>
<dt>Created</dt><dd>${when(workspace.created_at)}</dd>
<dt>Live enabled</dt><dd id="live-enabled">${live}</dd>
<dt>Account email</dt><dd><form method="post" action="/dashboard/workspaces/${encodeURIComponent(workspace.id)}/email">${csrfField(ctx.csrf)}
<label for="account-email" class="muted">Receipts of the workspace's orders and its emailed return receipts go here; leave empty for none.</label>
<div class="row"><div class="grow"><input id="account-email" name="email" type="email" maxlength="256" value="${text(ctx.emailForm?.email ?? workspace.email ?? "")}"${invalid("account-email", ctx.emailForm?.problem)}>
${fieldProblem("account-email", ctx.emailForm?.problem)}</div>
<div><button type="submit" id="save-email">Save email</button></div></div></form></dd>
<dt>Approvals</dt><dd><a href="/dashboard/workspaces/${encodeURIComponent(workspace.id)}/approvals" id="approvals-link">Drafts waiting for approval</a></dd>
</dl></div>
<div class="grid">
<div class="card"><h2>API keys</h2>
<div class="scroll"><table id="keys"><thead><tr><th>Mode</th><th>Prefix</th><th>Status</th><th>Expires</th></tr></thead>
<tbody>
${keys}
</tbody></table></div>
<p class="muted">Keys are shown once, when they are made; only their prefixes are kept visible.</p></div>
<div class="card"><h2>Credits</h2>
<div class="scroll"><table id="balances"><thead><tr><th>Mode</th><th>Rail</th><th class="num">Available</th><th class="num">Reserved</th><th>Status</th></tr></thead>
<tbody>
${balanceRow("test", workspace.balances.test)}
${balanceRow("live", workspace.balances.live)}
</tbody></table></div></div>
</div>
<div class="card"><h2>Last test ledger entries</h2>
${ledgerTable("test", ctx.ledgers.test)}
<h2>Last live ledger entries</h2>
${ledgerTable("live", ctx.ledgers.live)}
</div>`,
  });
}

export interface ApprovalsPageContext extends SignedInPage {
  workspace: Pick<WorkspaceView, "id" | "name">;
  /** Each mode's pending approvals (a page of them), and the cursor of the next page. */
  pending: Record<KeyMode, { approvals: ApprovalSummary[]; nextCursor: string | null }>;
  /** What the last decision did, or why it was refused. */
  notice?: { kind: "error" | "info"; message: string };
}

function approvalRows(ctx: ApprovalsPageContext, mode: KeyMode): string {
  const { approvals, nextCursor } = ctx.pending[mode];
  if (approvals.length === 0)
    return `<p class="muted" id="no-approvals-${mode}">No ${mode} drafts wait for approval.</p>`;
  const base = `/dashboard/workspaces/${encodeURIComponent(ctx.workspace.id)}/approvals`;
  const decision = (approval: ApprovalSummary, action: "approve" | "reject", label: string) =>
    `<form method="post" action="${base}/${encodeURIComponent(approval.draft_id)}/${action}">${csrfField(ctx.csrf)}<input type="hidden" name="revision" value="${approval.revision}"><button type="submit" class="${action}" id="${action}-${text(approval.draft_id)}">${label}</button></form>`;
  const rows = approvals
    .map(
      (approval) => `<tr data-draft="${text(approval.draft_id)}">
<td><code>${text(approval.draft_id)}</code></td><td>${text(approval.type)}</td><td class="num">${approval.revision}</td>
<td class="num">${usd(approval.price_cents)}</td><td>${approval.requested_at === null ? "—" : when(approval.requested_at)}</td>
<td><div class="decide">${decision(approval, "approve", "Approve")}${decision(approval, "reject", "Reject")}</div></td>
</tr>`,
    )
    .join("\n");
  const next =
    nextCursor === null
      ? ""
      : `<p><a href="${base}?${mode}_cursor=${encodeURIComponent(nextCursor)}" id="next-${mode}">More ${mode} approvals</a></p>`;
  return `<div class="scroll"><table class="approvals" id="approvals-${mode}">
<thead><tr><th>Draft</th><th>Type</th><th class="num">Revision</th><th class="num">Price</th><th>Requested</th><th>Decision</th></tr></thead>
<tbody>
${rows}
</tbody></table></div>${next}`;
}

/**
 * A workspace's drafts waiting for a person's approval, live first (they spend money), with approve and reject
 * buttons. Each row shows the expense only: kind, revision, price, when it was asked; each decision names the
 * revision shown, so a draft revised meanwhile is not decided unseen. Approving neither charges nor sends.
 */
export function approvalsPage(ctx: ApprovalsPageContext): string {
  const { workspace } = ctx;
  return layout({
    title: `Approvals · ${workspace.name}`,
    csrf: ctx.csrf,
    outbox: ctx.outbox,
    body: `<p><a href="/dashboard/workspaces/${encodeURIComponent(workspace.id)}">← ${text(workspace.name)}</a></p>
<h1>Approvals</h1>
${ctx.notice === undefined ? "" : notice(ctx.notice.kind, ctx.notice.message)}
<p class="muted">Approving a draft neither charges nor sends it: the workspace releases it with its API key.</p>
<div class="card"><h2>Live drafts</h2>
${approvalRows(ctx, "live")}
</div>
<div class="card"><h2>Test drafts</h2>
${approvalRows(ctx, "test")}
</div>`,
  });
}

/** A dashboard page that says what went wrong (not found, refused, failed). */
export function messagePage(title: string, message: string, csrf?: string, outbox?: boolean): string {
  return layout({
    title,
    outbox,
    ...(csrf === undefined ? {} : { csrf }),
    body: `<div class="card narrow"><h1>${text(title)}</h1>${notice("error", message)}<p><a href="/dashboard">Back to the dashboard</a></p></div>`,
  });
}

/** The attributes that mark a field as refused, pointing at its problem. */
function invalid(id: string, problem: string | undefined): string {
  return problem ? ` aria-invalid="true" aria-describedby="${id}-problem"` : "";
}

/** A refused field's problem, under it. */
function fieldProblem(id: string, problem: string | undefined): string {
  return problem ? `<p class="problem" id="${id}-problem">${text(problem)}</p>` : "";
}
