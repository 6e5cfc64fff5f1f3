import { defineError } from "@mailpiece/errors";

/**
 * Stable codes of CampaignsError, thrown only for a call the engine cannot plan from (a campaign's own problems
 * are returned as issues, never thrown):
 * - `campaign_input_invalid`: a needed input is missing or malformed (no page counter for a template, no page
 *   count for a PDF, a ceiling that is not a non-negative integer number of cents).
 * - `page_count_invalid`: a page count given or returned by the page counter is not an integer of at least 1.
 */
export type CampaignsErrorCode = "campaign_input_invalid" | "page_count_invalid";

/** The one error class of the campaigns package. */
export class CampaignsError extends defineError<CampaignsErrorCode>("CampaignsError") {}
