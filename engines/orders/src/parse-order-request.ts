import { OrdersError } from "./errors.ts";
import type { Issue } from "./issues.ts";
import { type NormalizedOrder, validateOrderRequest } from "./validate-order-request.ts";

/**
 * validateOrderRequest for callers that prefer an exception: returns the normalised order and its warnings, or
 * throws OrdersError "order_invalid" carrying every issue.
 */
export function parseOrderRequest(body: unknown): { order: NormalizedOrder; warnings: Issue[] } {
  const result = validateOrderRequest(body);
  if (result.ok) return { order: result.order, warnings: result.warnings };
  const count = result.issues.length;
  throw new OrdersError("order_invalid", `The order request has ${count} problem${count === 1 ? "" : "s"}.`, {
    issues: result.issues,
  });
}
