import type { Issue } from "@mailpiece/orders";
import { formatUsd } from "@mailpiece/pricing";
import { CampaignsError } from "./errors.ts";
import type { CampaignCeiling } from "./types.ts";

/**
 * How many of `pieces`, in order, one order of at most `maxCents` carries: the leading pieces up to the first one
 * that would pass the ceiling.
 */
export function ceilingFit(
  pieces: readonly { row_number: number; price_cents: number }[],
  maxCents: number,
): CampaignCeiling {
  if (!Number.isSafeInteger(maxCents) || maxCents < 0) {
    throw new CampaignsError(
      "campaign_input_invalid",
      `The ceiling must be a non-negative integer number of cents; got ${String(maxCents)}.`,
    );
  }
  let fit = 0;
  let sum = 0;
  for (const piece of pieces) {
    if (sum + piece.price_cents > maxCents) break;
    sum += piece.price_cents;
    fit++;
  }
  const total = fit === pieces.length ? sum : pieces.reduce((all, piece) => all + piece.price_cents, 0);
  return {
    max_cents: maxCents,
    within: total <= maxCents,
    fit_pieces: fit,
    fit_cents: sum,
    fit_through_row: fit > 0 ? pieces[fit - 1]!.row_number : null,
  };
}

/**
 * One machine order, a campaign included, is paid with one payment within the published bounds. A campaign above
 * the ceiling is refused (`campaign_above_ceiling`, on bulk.csv_content) with how many of its rows fit in one order,
 * so the client can split it; mailings larger than one payment belong to the Projects API, paid from prepaid credits.
 */
export function aboveCeilingIssue(ceiling: CampaignCeiling, totalCents: number, pieces: number): Issue {
  const max = formatUsd(ceiling.max_cents);
  const fits =
    ceiling.fit_pieces > 0
      ? `The first ${ceiling.fit_pieces} valid rows (through CSV row ${ceiling.fit_through_row}) fit in one order ($${formatUsd(ceiling.fit_cents)}): split the CSV into campaigns that each cost at most $${max}, each under its own request_id. `
      : "";
  return {
    path: "bulk.csv_content",
    code: "campaign_above_ceiling",
    message:
      `This campaign costs $${formatUsd(totalCents)} for ${pieces} mailpieces; one machine order is paid with one payment of at most $${max}. ` +
      fits +
      "Larger mailings go through the Projects API (/api/v1), paid from prepaid credits.",
  };
}
