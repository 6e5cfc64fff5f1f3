import { validateCampaign } from "../apps/core/src/campaigns.ts";
import { defaultCoreConfig } from "../apps/core/src/config.ts";
import { validateOrderRequest } from "../engines/orders/src/index.ts";
import { campaignCsv, campaignOrder } from "./campaign-fixture.ts";

/**
 * Validates and quotes one campaign of as many rows as its first argument says (default 100,000) in this process, then prints one JSON line:
 * the rows, the valid rows, the time taken, resident memory before the campaign and the peak (maxRSS).
 */
const rows = Number(process.argv[2] ?? "100000");
const startRssMiB = process.memoryUsage().rss / 2 ** 20;
const started = performance.now();
const checked = validateOrderRequest(campaignOrder(campaignCsv(rows)));
if (!checked.ok)
  throw new Error(`the campaign order is invalid: ${JSON.stringify(checked.issues.slice(0, 3))}`);
const outcome = await validateCampaign(checked.order, { config: defaultCoreConfig() }, checked.warnings);
if (!outcome.ok) throw new Error(`the campaign is refused: ${JSON.stringify(outcome.issues)}`);
const ms = performance.now() - started;
process.stdout.write(
  `${JSON.stringify({
    rows: outcome.view.bulk.row_count,
    valid: outcome.view.bulk.recipient_count,
    ms,
    startRssMiB,
    peakRssMiB: process.resourceUsage().maxRSS / 1024,
  })}\n`,
);
