import { isValidKey, type Store } from "@mailpiece/ports";
import { CoreError } from "../errors.ts";
import { updateRecord } from "../records.ts";
import { asksForElectronicReceipt, canMove, type ReceiptOrder, type ReceiptState } from "./receipt-states.ts";

/** The electronic return receipt of one delivered letter, as stored (`return_receipts:<order id>`). */
export interface ReturnReceiptRecord {
  order_id: string;
  /** The workspace and mode of a Projects API order, who may read and export it; null for a machine order. */
  workspace_id: string | null;
  mode: "test" | "live" | null;
  err_delivery: "manual" | "email";
  state: ReceiptState;
  /** The print provider that produced the letter, by name, and its job's reference. */
  provider: string;
  reference: string;
  /** When the delivered letter was noted: the looks for its receipt count from here. */
  noted_at: number;
  /** The article number the receipt names (the letter's tracking number). */
  tracking_number: string | null;
  /** When the letter was signed for, ISO 8601 in UTC, as the receipt says. */
  signed_at: string | null;
  signer_name: string | null;
  /** When the PDF was stored, and until when it is kept (milliseconds since the epoch). */
  stored_at: number | null;
  retention_until: number | null;
  emailed_at: number | null;
  /** Why the receipt is unavailable, or why its email failed. */
  failure: { code: string; message: string; at: number } | null;
  expired_at: number | null;
  updated_at: number;
}

/** What the export lists of a stored receipt of a Projects API order (`return_receipt_index:...`). */
export interface ReceiptIndexEntry {
  order_id: string;
  tracking_number: string;
  signed_at: string;
  signer_name: string;
}

export const receiptKey = (orderId: string) => `return_receipts:${orderId}`;
/** Where a receipt's PDF is kept. */
export const receiptBlobKey = (orderId: string) => `receipts:${orderId}`;
/** The export's listing of one workspace and mode, in the order the receipts were signed. */
export const receiptIndexPrefix = (workspaceId: string, mode: "test" | "live") =>
  `return_receipt_index:${workspaceId}:${mode}:`;
/** Milliseconds since the epoch as 13 digits, so that keys sort as times do (until the year 2286). */
export const sortableMs = (ms: number) => String(Math.max(0, Math.trunc(ms))).padStart(13, "0");
export const receiptIndexKey = (record: ReturnReceiptRecord, signedAt: string) =>
  `${receiptIndexPrefix(record.workspace_id!, record.mode!)}${sortableMs(Date.parse(signedAt))}:${record.order_id}`;

/** True when `orderId` can name a receipt at all (a Store key segment); anything else has none. */
export function isReceiptId(orderId: unknown): orderId is string {
  return typeof orderId === "string" && orderId.length <= 200 && isValidKey(receiptKey(orderId));
}

export async function loadReceipt(store: Store, orderId: string): Promise<ReturnReceiptRecord | undefined> {
  return isReceiptId(orderId)
    ? (await store.get<ReturnReceiptRecord>(receiptKey(orderId)))?.value
    : undefined;
}

/**
 * The record a delivered letter that asked for an electronic receipt opens, awaiting its receipt; undefined for any
 * other order (no such receipt asked, not delivered, or not known to a print provider).
 */
export function openingRecord(order: ReceiptOrder, now: number): ReturnReceiptRecord | undefined {
  const fulfilment = order.fulfilment;
  if (!asksForElectronicReceipt(order) || order.lifecycle?.status !== "delivered") return undefined;
  if (!fulfilment?.provider || !fulfilment.reference) return undefined;
  return {
    order_id: order.id,
    workspace_id: order.project?.workspace_id ?? null,
    mode: order.project?.mode ?? null,
    err_delivery: order.order.options.err_delivery,
    state: "awaiting",
    provider: fulfilment.provider,
    reference: fulfilment.reference,
    noted_at: now,
    tracking_number: fulfilment.tracking_number ?? null,
    signed_at: null,
    signer_name: null,
    stored_at: null,
    retention_until: null,
    emailed_at: null,
    failure: null,
    expired_at: null,
    updated_at: now,
  };
}

/**
 * Moves the receipt of `orderId` to `to` with `change` applied (compare-and-set, so concurrent moves never lose each
 * other). A receipt already in `to` is left as it is and answered. Throws not_found, or state_conflict for a move the
 * states do not allow.
 */
export async function moveReceipt(
  store: Store,
  now: () => number,
  orderId: string,
  to: ReceiptState,
  change: (record: ReturnReceiptRecord) => Partial<ReturnReceiptRecord> = () => ({}),
): Promise<ReturnReceiptRecord> {
  if (!(await loadReceipt(store, orderId))) {
    throw new CoreError("not_found", "No electronic return receipt is kept for this order.");
  }
  return updateRecord<ReturnReceiptRecord>(store, receiptKey(orderId), now, (record) => {
    if (record.state === to) return undefined;
    if (!canMove(record.state, to)) {
      throw new CoreError(
        "state_conflict",
        `This order's return receipt is ${record.state.replace("_", " ")}; it cannot become ${to.replace("_", " ")}.`,
      );
    }
    return { ...record, ...change(record), state: to };
  });
}
