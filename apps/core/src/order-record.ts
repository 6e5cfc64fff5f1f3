import type { Lifecycle } from "@mailpiece/lifecycle";
import type { NormalizedOrder } from "@mailpiece/orders";
import type { Store, StoredRecord } from "@mailpiece/ports";
import type { PaymentRecord, PaymentStatus } from "./payments/payment-record.ts";
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

/** A machine order as stored: the request as validated, the document, the price, the money and the steps. */
export interface OrderRecord {
  id: string;
  object: "order";
  /** The request_id that created it, then every request_id collapsed onto it. */
  request_ids: string[];
  fingerprint: string;
  /** The content key unpaid duplicates collapse on. */
  draft_key: string;
  order: NormalizedOrder;
  document: { blob_key: string; sha256: string; page_count: number; source: string; format: string | null };
  quote: QuoteView;
  /** Before payment; once paid, `lifecycle.status` is the order's status. */
  status: "awaiting_payment" | "queued" | "canceled" | "abandoned";
  /** The order statuses of spec 3 and their timeline, from payment on. */
  lifecycle?: Lifecycle;
  /** For a bulk order: what the campaign mails; its pieces become orders of their own once paid. */
  campaign?: import("./campaign-orders.ts").CampaignPlan;
  /** For a piece of a campaign: the campaign's order id and the CSV row. */
  campaign_id?: string;
  row_number?: number;
  /** Where the piece is being produced. */
  fulfilment?: {
    provider: string;
    reference?: string;
    tracking_number?: string | null;
    tracking_url?: string | null;
    tracking_events?: { status: string; at: string; description: string; location?: string }[];
    last_error?: { code: string; message: string; at: number };
  };
  payment_status: PaymentStatus;
  payment?: PaymentRecord;
  /** Failed payment attempts, newest last, for support. */
  payment_failures: { code: string; message: string; at: number }[];
  steps: { step: StatusStep; at: number }[];
  created_at: number;
  updated_at: number;
}

export const orderKey = (id: string) => `orders:${id}`;
export const aliasKey = (requestId: string) => `aliases:${requestId}`;

export async function loadOrder(store: Store, id: string): Promise<StoredRecord<OrderRecord> | undefined> {
  return store.get<OrderRecord>(orderKey(id));
}

/** Resolves an order id or any request_id aliased to it. */
export async function findOrder(
  store: Store,
  idOrRequestId: string,
): Promise<StoredRecord<OrderRecord> | undefined> {
  const direct = await loadOrder(store, idOrRequestId);
  if (direct) return direct;
  const alias = await store.get<{ order_id: string }>(aliasKey(idOrRequestId));
  return alias ? loadOrder(store, alias.value.order_id) : undefined;
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

export function addStep(order: OrderRecord, step: StatusStep, at: number): void {
  if (!order.steps.some((s) => s.step === step)) order.steps.push({ step, at });
}
