import { defineError } from "@mailpiece/errors";
import { describe, expect, it } from "vitest";
import { OrdersError } from "./errors.ts";
import { EXAMPLE_ORDER_REQUESTS } from "./examples.ts";
import { parseOrderRequest } from "./parse-order-request.ts";

describe("parseOrderRequest", () => {
  it("returns the order and its warnings", () => {
    const { order, warnings } = parseOrderRequest({
      ...EXAMPLE_ORDER_REQUESTS.letter,
      signature_required: true,
    });
    expect(order.request_id).toBe(EXAMPLE_ORDER_REQUESTS.letter.request_id);
    expect(warnings.map((w) => w.code)).toEqual(["option_ignored"]);
  });
  it("throws OrdersError order_invalid with every issue", () => {
    let caught: unknown;
    try {
      parseOrderRequest({ ...EXAMPLE_ORDER_REQUESTS.letter, request_id: "x", colour: 1 });
    } catch (error) {
      caught = error;
    }
    expect(OrdersError.isInstance(caught)).toBe(true);
    const error = caught as OrdersError;
    expect(error.code).toBe("order_invalid");
    expect(error.issues.map((i) => i.path)).toEqual(["colour", "request_id"]);
    expect(error.message).toBe("The order request has 2 problems.");
  });
  it("OrdersError is recognised across copies of the package, and nothing else is", () => {
    const CopiedOrdersError = defineError<"order_invalid">("OrdersError");
    expect(OrdersError.isInstance(new CopiedOrdersError("order_invalid", "x"))).toBe(true);
    expect(OrdersError.isInstance(new Error("x"))).toBe(false);
    expect(OrdersError.isInstance(new (defineError("FlowersError"))("order_invalid", "x"))).toBe(false);
    expect(OrdersError.isInstance(null)).toBe(false);
  });
});
