import type { Lifecycle } from "@mailpiece/lifecycle";
import type { NormalizedOrder } from "@mailpiece/orders";
import type { Store, StoredRecord } from "@mailpiece/ports";
import type { PayableRecord, PaymentRecord, PaymentStatus } from "./payments/payment-record.ts";
import type { QuoteView } from "./quote-order.ts";
import { updateRecord } from "./records.ts";

export type { PaymentRecord, PaymentStatus };

/** Status steps reported to agents (spec 1), each at most once, in the order they happened. */
export type StatusStep =
  | "payment_received"
  | "receiver_address_verified"
  | "sender_address_verified"
  | "pdf_normalized"
  | "letter_created"
  | "email_sent"
  | "canceled"
  | "refunded"
  | "abandoned";

/**
 * Where an order or a campaign stands before its work starts: unpaid, then queued once paid. A paid order's
 * status is then its lifecycle's; a paid campaign's is derived from its pieces.
 */
export type MailingStatus = "awaiting_payment" | "queued" | "canceled" | "abandoned";

/**
 * What an order's record and a campaign's record share: the request_ids that reach it, the content key that unpaid
 * duplicates collapse on, the price, the money and the steps reported to agents.
 */
export interface MailingRecord extends PayableRecord {
  /** The request_id that created it, then every request_id collapsed onto it. */
  request_ids: string[];
  fingerprint: string;
  /** The content key unpaid duplicates collapse on. */
  draft_key: string;
  quote: QuoteView;
  status: MailingStatus;
  steps: { step: StatusStep; at: number }[];
  created_at: number;
}

/** What a Projects API order (spec 3) carries besides the piece: its workspace, its credits and its metadata. */
export interface ProjectOrderInfo {
  workspace_id: string;
  mode: "test" | "live";
  quote_id: string;
  document_id: string;
  billing_rail: "mock_test_credits" | "prepaid_credits";
  /** The ledger entry that reserved the price; captured when a print provider accepts, released on failure. */
  reservation_id: string;
  funds_status: "reserved" | "captured" | "released";
  metadata: Record<string, string>;
}

/** A machine order as stored: the request as validated, the document, the price, the money and the steps. */
export interface OrderRecord extends MailingRecord {
  object: "order";
  order: NormalizedOrder;
  document: { blob_key: string; sha256: string; page_count: number; source: string; format: string | null };
  /** Before payment; once paid, `lifecycle.status` is the order's status. */
  status: MailingStatus;
  /** The order statuses of spec 3 and their timeline, from payment on. */
  lifecycle?: Lifecycle;
  /** For a piece of a campaign: the campaign's id and the CSV row. */
  campaign_id?: string;
  /** A draft's hosted checkout session (the newest; earlier ones expired or were canceled). */
  checkout_session_id?: string;
  row_number?: number;
  /** A Projects API order: paid from the workspace's credits, not through a payment rail. */
  project?: ProjectOrderInfo;
  /** Where the piece is being produced. */
  fulfilment?: {
    provider: string;
    reference?: string;
    tracking_number?: string | null;
    tracking_url?: string | null;
    tracking_events?: { status: string; at: string; description: string; location?: string }[];
    last_error?: { code: string; message: string; at: number };
  };
}

export const orderKey = (id: string) => `orders:${id}`;

/**
 * The order stored under `id`. A record under `orders:` that carries a campaign plan is a campaign in the legacy
 * layout (read by loadCampaign), never an order.
 */
export async function loadOrder(store: Store, id: string): Promise<StoredRecord<OrderRecord> | undefined> {
  const found = await store.get<OrderRecord>(orderKey(id));
  return found && !("campaign" in found.value) ? found : undefined;
}

/**
 * Applies `change` to the stored order with compare-and-set, re-reading and re-applying on a conflict, so
 * concurrent updates never lose each other. `change` returns undefined to leave the order as it is.
 */
export function updateOrder(
  store: Store,
  id: string,
  now: () => number,
  change: (order: OrderRecord) => OrderRecord | undefined,
): Promise<OrderRecord> {
  return updateRecord(store, orderKey(id), now, change);
}

export function addStep(record: { steps: OrderRecord["steps"] }, step: StatusStep, at: number): void {
  if (!record.steps.some((s) => s.step === step)) record.steps.push({ step, at });
}
