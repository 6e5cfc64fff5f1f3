import { mortgageFormOrder } from "@mailpiece/conformance";
import { BUILTIN_WORKFLOWS, loadWorkflow } from "@mailpiece/forms";
import type { NormalizedOrder } from "@mailpiece/orders";
import { validateOrderRequest } from "@mailpiece/orders";
import { manualClock } from "@mailpiece/ports";
import { describe, expect, it } from "vitest";
import { formRefusalAtFulfilment } from "./forms.ts";

/** The mortgage packet with a rule that only a later stage can break: the letter date may not be in the past. */
const mortgage = BUILTIN_WORKFLOWS.find((w) => w.slug === "mortgage-servicing-error-packet")!;
const dated = loadWorkflow({
  ...structuredClone(mortgage),
  fields: mortgage.fields.map((f) => (f.id === "letter_date" ? { ...f, not_in_past: true } : f)),
});

function orderOf(body: unknown): NormalizedOrder {
  const checked = validateOrderRequest(body);
  if (!checked.ok) throw new Error(JSON.stringify(checked.issues));
  return checked.order;
}

describe("the compliance check at fulfillment", () => {
  it("refuses to print a form order whose rules no longer hold on the day it is fulfilled", () => {
    const order = orderOf(mortgageFormOrder());
    const letterDate = String((order.document as { fields: Record<string, unknown> }).fields.letter_date);
    const paidOn = manualClock(Date.parse(`${letterDate}T12:00:00Z`));
    expect(formRefusalAtFulfilment(order, [dated], paidOn)).toBeUndefined();
    const later = manualClock(Date.parse(`${letterDate}T12:00:00Z`) + 3 * 24 * 60 * 60 * 1000);
    const refusal = formRefusalAtFulfilment(order, [dated], later);
    expect(refusal).toContain("at fulfillment");
    expect(refusal).toContain("form.fields.letter_date");
  });

  it("lets other orders through, and refuses a form whose workflow is no longer offered", () => {
    const order = orderOf(mortgageFormOrder());
    const clock = manualClock();
    expect(formRefusalAtFulfilment(order, BUILTIN_WORKFLOWS, manualClock(Date.parse("2026-03-10")))).toBe(
      undefined,
    );
    expect(formRefusalAtFulfilment(order, [], clock)).toContain("no longer offered");
  });
});
