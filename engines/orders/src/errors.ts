import type { Issue } from "./issues.ts";

/** Stable codes of OrdersError. */
export type OrdersErrorCode = "order_invalid";

const MARKER = Symbol.for("mailpiece.orders_error");

/** The one error class of the orders package, thrown by parseOrderRequest; `issues` lists every problem. */
export class OrdersError extends Error {
  readonly code: OrdersErrorCode;
  readonly issues: readonly Issue[];
  readonly [MARKER] = true;

  constructor(
    code: OrdersErrorCode,
    message: string,
    issues: readonly Issue[] = [],
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = "OrdersError";
    this.code = code;
    this.issues = issues;
  }

  /** True for any OrdersError, also one created by another copy of this package. */
  static isInstance(value: unknown): value is OrdersError {
    return typeof value === "object" && value !== null && (value as Record<symbol, unknown>)[MARKER] === true;
  }
}
