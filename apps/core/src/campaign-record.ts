import type { CampaignPiece } from "@mailpiece/campaigns";
import type { NormalizedBulk, NormalizedOrder } from "@mailpiece/orders";
import type { Store } from "@mailpiece/ports";
import type { MailingRecord, MailingStatus } from "./order-record.ts";
import { updateRecord } from "./records.ts";

/**
 * A bulk order as validated: sender, options and the campaign's content and rows. It names no recipient and no
 * document of its own: every piece has its row's recipient and the campaign's content.
 */
export type CampaignOrder = Omit<NormalizedOrder, "recipient" | "document" | "bulk"> & {
  bulk: NormalizedBulk;
};

/** What a paid campaign mails: its content and one piece per valid row. */
export interface CampaignPlan {
  name: string | null;
  content_mode: "text" | "html" | "pdf";
  /** The letter template of text and html campaigns; null for pdf. */
  template: string | null;
  columns: string[];
  pieces: CampaignPiece[];
  /** The orders made for the pieces once the campaign is paid, in row order. */
  child_ids: string[];
}

/** A document kept by content in the blob store (`documents:<sha256>`, application/pdf). */
export interface StoredDocumentRef {
  blob_key: string;
  sha256: string;
  page_count: number;
}

/** A bulk campaign as stored: the order as validated, its plan, the price of every piece, the money and the steps. */
export interface CampaignRecord extends MailingRecord {
  object: "campaign";
  order: CampaignOrder;
  plan: CampaignPlan;
  /** For content_mode pdf: the PDF every piece prints. */
  pdf?: StoredDocumentRef;
  /** The pages every piece is priced at; `quote` is for all pieces together, each piece's price is in the plan. */
  page_count: number;
  /** Before payment, and `queued` once paid; a paid campaign's status is derived from its pieces. */
  status: MailingStatus;
}

export const campaignKey = (id: string) => `campaigns:${id}`;

/**
 * Applies `change` to the stored campaign with compare-and-set, re-reading and re-applying on a conflict.
 * The campaign must be stored under `campaigns:` (loadCampaign writes a legacy one there first).
 */
export function updateCampaign(
  store: Store,
  id: string,
  now: () => number,
  change: (campaign: CampaignRecord) => CampaignRecord | undefined,
): Promise<CampaignRecord> {
  return updateRecord(store, campaignKey(id), now, change);
}
