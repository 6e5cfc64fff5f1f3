import { letterJob } from "@mailpiece/conformance";
import {
  followProvider,
  type Lifecycle,
  machineSteps,
  type ProviderAnswer,
  reconcileSubmission,
  startLifecycle,
  transition,
} from "@mailpiece/lifecycle";
import { isDefiniteRefusal, manualClock, type PrintJob } from "@mailpiece/ports";
import { createMemoryStore } from "@mailpiece/store-unstorage";
import { describe, expect, it } from "vitest";
import { createSimulatedPrinter } from "./simulated-printer.ts";

/** The simulated printer driven the way the core drives a provider, with the lifecycle engine keeping score. */
describe("a paid order through the simulated printer", () => {
  function world() {
    const clock = manualClock(Date.UTC(2026, 0, 1));
    let n = 0;
    const ids = { uuid: () => `00000000-0000-4000-8000-${String(++n).padStart(12, "0")}` };
    const printer = createSimulatedPrinter({ store: createMemoryStore({ clock }), clock });
    const prepared = (): Lifecycle => {
      let order = startLifecycle({ source: "payment", at: clock.now(), id: ids.uuid() });
      order = transition(order, "document_preparing", { source: "system", at: clock.now(), id: ids.uuid() });
      return transition(order, "document_prepared", { source: "system", at: clock.now(), id: ids.uuid() });
    };
    /** Submits as the core does: a definite refusal fails the order, any other failure makes it pending. */
    const submit = async (order: Lifecycle, job: PrintJob, key: string) => {
      try {
        const result = await printer.submit(job, { idempotencyKey: key });
        return {
          order: transition(order, "submitted", { source: "system", at: clock.now(), id: ids.uuid() }),
          reference: result.reference,
        };
      } catch (error) {
        const to = isDefiniteRefusal(error) ? "failed" : "submission_pending";
        return { order: transition(order, to, { source: "system", at: clock.now(), id: ids.uuid() }) };
      }
    };
    return { clock, ids, printer, prepared, submit };
  }

  it("reaches submitted and accepted within seconds and delivered within a minute", async () => {
    const { clock, ids, printer, prepared, submit } = world();
    const submitted = await submit(prepared(), await letterJob("US"), "order-1");
    expect(submitted.order.status).toBe("submitted");
    clock.advance(2_000);
    let view = await printer.status(submitted.reference as string);
    let order = followProvider(submitted.order, view.status, {
      source: "provider",
      at: clock.now(),
      ids,
    }).order;
    expect(order.status).toBe("accepted");
    clock.advance(28_000);
    view = await printer.status(submitted.reference as string);
    order = followProvider(order, view.status, { source: "provider", at: clock.now(), ids }).order;
    expect(order.status).toBe("delivered");
    expect(machineSteps(order.timeline).map((s) => s.step)).toEqual([
      "payment_received",
      "receiver_address_verified",
      "sender_address_verified",
      "pdf_normalized",
      "letter_created",
    ]);
  });

  it("reconciles a lost answer by its idempotency key instead of mailing twice", async () => {
    const { clock, ids, printer, prepared, submit } = world();
    const base = await letterJob("US");
    const job = { ...base, recipient: { ...base.recipient, line1: "1 Submit Timeout Street" } };
    const attempt = await submit(prepared(), job, "order-2");
    expect(attempt.order.status).toBe("submission_pending");
    clock.advance(15_000);
    const answer: ProviderAnswer = await printer.lookup("order-2");
    const decision = reconcileSubmission(attempt.order, answer, { at: clock.now(), ids });
    expect(decision.decision).toBe("advance");
    expect(decision.order.status).toBe("in_transit");
    expect(decision.events.map((e) => e.source)).toEqual([
      "reconciliation",
      "reconciliation",
      "reconciliation",
    ]);
  });

  it("resubmits under the same key when the provider never saw the job", async () => {
    const { clock, ids, printer, prepared } = world();
    const pending = transition(prepared(), "submission_pending", {
      source: "system",
      at: clock.now(),
      id: ids.uuid(),
    });
    const decision = reconcileSubmission(pending, await printer.lookup("order-3"), { at: clock.now(), ids });
    expect(decision.decision).toBe("resubmit");
    await printer.submit(await letterJob("US"), { idempotencyKey: "order-3" });
    const submitted = transition(decision.order, "submitted", {
      source: "reconciliation",
      at: clock.now(),
      id: ids.uuid(),
    });
    expect(submitted.status).toBe("submitted");
    expect(await printer.lookup("order-3")).toMatchObject({ outcome: "found", status: "submitted" });
  });

  it("fails the order on a definite refusal", async () => {
    const { prepared, submit } = world();
    const base = await letterJob("US");
    const job = { ...base, recipient: { ...base.recipient, line1: "Reject Print Avenue 4" } };
    expect((await submit(prepared(), job, "order-4")).order.status).toBe("failed");
  });
});
