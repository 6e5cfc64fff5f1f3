import type { CampaignView } from "@mailpiece/core";

/** The campaign page: the same data as the JSON, for a person. */
export function campaignPage(view: CampaignView): string {
  const esc = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
  const rows = view.items
    .map(
      (item) =>
        `<tr><td>${item.row_number}</td><td>${esc(item.recipient)}</td><td>${esc(item.status)}</td><td>${esc(item.tracking?.number ?? "")}</td><td>${item.timeline.map((e) => `${esc(e.status_after)} ${esc(e.created_at)}`).join("<br>")}</td></tr>`,
    )
    .join("\n");
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Campaign ${esc(view.name ?? view.campaign_id)}</title>
<style>body{font:14px system-ui,sans-serif;margin:2rem}table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:4px 8px;text-align:left;vertical-align:top}</style></head>
<body><h1>Campaign ${esc(view.name ?? view.campaign_id)}</h1>
<p>${view.pieces} mailpieces, ${esc(view.content_mode)}; payment: ${esc(view.payment_status)}; total $${(view.price_cents / 100).toFixed(2)}</p>
<table><thead><tr><th>Row</th><th>Recipient</th><th>Status</th><th>Tracking</th><th>Events</th></tr></thead>
<tbody>
${rows}
</tbody></table></body></html>`;
}
