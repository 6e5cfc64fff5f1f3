import { defineError } from "@mailpiece/errors";

/**
 * Stable codes of OrdersError.
 * - `order_invalid`: `parseOrderRequest` found problems; `issues` lists every one.
 * - `csv_too_large`: a campaign CSV stream passed its byte limit. Internal: `readCampaignCsvStream` turns it into a
 *   `csv_too_large` problem of its result, so it never reaches a caller.
 */
export type OrdersErrorCode = "order_invalid" | "csv_too_large";

/** The one error class of the orders package. `code` is a stable wire contract; `message` is for people. */
export class OrdersError extends defineError<OrdersErrorCode>("OrdersError") {}
