import type { ReturnReceiptRecord } from "./receipt-record.ts";
import {
  asksForElectronicReceipt,
  type ErrStatus,
  errStatusOf,
  pdfKept,
  type ReceiptOrder,
} from "./receipt-states.ts";

/** The receipt fields of an order view (spec 3's order response; the machine API's status shows them too). */
export interface ReturnReceiptFields {
  err_status: ErrStatus;
  /** See receipt-states.ts: when the receipt reached the customer the way err_delivery says. */
  err_delivered_at: string | null;
  err_retention_until: string | null;
  /** True while the signed PDF is kept and can be downloaded. */
  return_receipt_available: boolean;
  /** Where a Projects API order's receipt is downloaded (relative, authenticated); null otherwise. */
  return_receipt_url: string | null;
}

/** The relative URL of a letter's receipt in the Projects API. */
export const returnReceiptPath = (orderId: string) =>
  `/api/v1/letters/${encodeURIComponent(orderId)}/return-receipt.pdf`;

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

/** The receipt fields of `order`, whose receipt record is `record` (none yet: undefined). */
export function receiptFields(
  order: ReceiptOrder,
  record: ReturnReceiptRecord | undefined,
): ReturnReceiptFields {
  if (!asksForElectronicReceipt(order)) {
    return {
      err_status: "manual",
      err_delivered_at: null,
      err_retention_until: null,
      return_receipt_available: false,
      return_receipt_url: null,
    };
  }
  const errDelivery = order.order.options.err_delivery;
  const available = record !== undefined && pdfKept(record.state);
  return {
    err_status: errStatusOf(order, errDelivery, record?.state),
    err_delivered_at: iso((errDelivery === "email" ? record?.emailed_at : record?.stored_at) ?? null),
    err_retention_until: iso(record?.retention_until ?? null),
    return_receipt_available: available,
    return_receipt_url: available && order.project ? returnReceiptPath(order.id) : null,
  };
}
