import { createTestCheckout } from "@mailpiece/checkout-test";
import { letterOrder } from "@mailpiece/conformance";
import { canonicalJson } from "@mailpiece/idempotency";
import type { CheckoutCharge, CheckoutPayments, CheckoutReceipt } from "@mailpiece/ports";
import { CheckoutPaymentError } from "@mailpiece/ports";
import { createMemoryBlobStore, createMemoryStore } from "@mailpiece/store-unstorage";
import { describe, expect, it } from "vitest";
import type { CoreConfig } from "../config.ts";
import { createMailpieceCore } from "../core.ts";
import { CoreError } from "../errors.ts";
import { FULFILMENT_QUEUE, fulfilmentJobKey } from "../fulfilment.ts";
import { loadOrder } from "../order-record.ts";

/** The test checkout, counting the charges that moved money (by reference) and every call. */
function countingCheckout(inner: CheckoutPayments = createTestCheckout()) {
  const paid = new Set<string>();
  let calls = 0;
  let loseNextAnswer = false;
  const payments: CheckoutPayments = {
    name: inner.name,
    simulated: true,
    async charge(request: CheckoutCharge): Promise<CheckoutReceipt> {
      calls++;
      const receipt = await inner.charge(request);
      paid.add(receipt.reference);
      if (loseNextAnswer) {
        loseNextAnswer = false;
        throw new CheckoutPaymentError("provider_unavailable", "The answer was lost.");
      }
      return receipt;
    },
    saveMethod: (request) => inner.saveMethod(request),
    chargeSaved: (request) => inner.chargeSaved(request),
  };
  return {
    payments,
    paid,
    calls: () => calls,
    loseNextAnswer: () => {
      loseNextAnswer = true;
    },
  };
}

function setup(config: Partial<CoreConfig> = {}) {
  const store = createMemoryStore();
  let now = Date.UTC(2026, 10, 24, 12);
  const clock = { now: () => now };
  const checkout = countingCheckout();
  const core = createMailpieceCore({
    store,
    blobs: createMemoryBlobStore(),
    clock,
    checkoutPayments: checkout.payments,
    config,
  });
  const draftBody = (overrides: Record<string, unknown> = {}) => {
    const { buyer_name: _n, buyer_email: _e, ...order } = letterOrder(overrides);
    return order;
  };
  const draft = (body: Record<string, unknown>, clientKey = "198.51.100.7") =>
    core.createDraft({ body, raw: canonicalJson(body), clientKey });
  const complete = (session: string, token: string, buyer: unknown = ADA) =>
    core.completeCheckout({
      checkout_session_id: session,
      buyer,
      payment_data: { token, provider: "stripe" },
    });
  return {
    core,
    store,
    checkout,
    draftBody,
    draft,
    complete,
    advance: (ms: number) => {
      now += ms;
    },
  };
}

const ADA = { first_name: "Ada", last_name: "Lovelace", email: "ada@example.com" };

async function coreError(promise: Promise<unknown>): Promise<CoreError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(CoreError.isInstance(error), String(error)).toBe(true);
  return error as CoreError;
}

describe("order drafts", () => {
  it("creates an unpaid draft with its price, parties and an open checkout session, and queues nothing", async () => {
    const { draft, draftBody, store, core } = setup();
    const view = await draft(draftBody());
    expect(view).toMatchObject({
      view: "order_draft",
      status: "awaiting_payment",
      is_paid: false,
      mailpiece_type: "letter",
      page_count: 1,
      sender_name: "Zoë Łukasz-Müller",
      recipient_name: "Grace Recipient",
      checkout_session: { status: "open" },
    });
    expect(view.price_cents).toBeGreaterThan(0);
    expect(view.price_usd).toBe((view.price_cents / 100).toFixed(2));
    expect(view.line_items.reduce((sum, item) => sum + item.amount_cents, 0)).toBe(view.price_cents);
    expect(view.sender_address_text).toContain("350 Fifth Avenue");
    expect(view.checkout_session.id).toMatch(/^cs_[0-9a-f]{32}$/);
    expect(await core.jobs.get(FULFILMENT_QUEUE, fulfilmentJobKey(view.order_id))).toBeUndefined();
    const order = (await loadOrder(store, view.order_id))!.value;
    expect(order.payment_status).toBe("unpaid");
    expect(order.order.buyer_email).toBe("");
  });

  it("answers an identical retry with the same draft and session, and refuses the request_id with another body", async () => {
    const { draft, draftBody } = setup();
    const body = draftBody();
    const first = await draft(body);
    const again = await draft(structuredClone(body));
    expect(again.order_id).toBe(first.order_id);
    expect(again.checkout_session.id).toBe(first.checkout_session.id);
    const changed = await coreError(draft({ ...body, letter: "Another letter." }));
    expect(changed.code).toBe("request_id_conflict");
  });

  it("validates exactly as a machine order: every issue with its field, nothing stored", async () => {
    const { draft, draftBody, store } = setup();
    const body = draftBody({ recipient_address_manual: undefined, recipient_address_type: "Manual" });
    const error = await coreError(draft(body));
    expect(error.code).toBe("validation_failed");
    expect(error.issues.map((i) => i.path)).toContain("recipient_address_manual");
    expect((await store.list("orders:", { limit: 10 })).records).toHaveLength(0);
    const badEmail = await coreError(draft({ ...draftBody(), buyer_email: "not an email" }));
    expect(badEmail.issues.map((i) => i.path)).toContain("buyer_email");
  });

  it("counts new drafts against the unpaid-creation limit, and identical retries not", async () => {
    const { draft, draftBody } = setup({ unpaidRateLimit: { limit: 2, windowMs: 3_600_000 } });
    const body = draftBody();
    await draft(body);
    await draft(body);
    await draft(draftBody({ letter: "A second letter." }));
    const limited = await coreError(draft(draftBody({ letter: "A third letter." })));
    expect(limited.code).toBe("rate_limited");
    expect(limited.retryAfterSeconds).toBeGreaterThan(0);
  });

  it("collapses an unpaid duplicate under a new request_id onto the same order and session", async () => {
    const { draft, draftBody } = setup();
    const first = await draft(draftBody());
    const duplicate = await draft(draftBody());
    expect(duplicate.order_id).toBe(first.order_id);
    expect(duplicate.checkout_session.id).toBe(first.checkout_session.id);
  });

  it("keeps a draft made with collapse: false apart from its duplicates, so canceling one session leaves the other", async () => {
    const { core, draft, draftBody } = setup();
    const first = await draft(draftBody());
    const body = draftBody();
    const own = await core.createDraft({
      body,
      raw: canonicalJson(body),
      clientKey: "198.51.100.7",
      collapse: false,
    });
    expect(own.order_id).not.toBe(first.order_id);
    expect(own.checkout_session.id).not.toBe(first.checkout_session.id);
    // Its retry finds it again, and later duplicates do not join it.
    const retry = await core.createDraft({
      body,
      raw: canonicalJson(body),
      clientKey: "198.51.100.7",
      collapse: false,
    });
    expect(retry.order_id).toBe(own.order_id);
    expect((await draft(draftBody())).order_id).toBe(first.order_id);
    await core.cancelCheckout(own.checkout_session.id);
    expect((await core.getCheckout(first.checkout_session.id))?.status).toBe("open");
  });
});

describe("hosted checkout completion", () => {
  it("pays once with a shared payment token, queues the order, and answers a second completion without charging", async () => {
    const { draft, draftBody, complete, checkout, store, core } = setup();
    const { order_id, checkout_session } = await draft(draftBody());
    const done = await complete(checkout_session.id, "spt_test_ok");
    expect(done).toMatchObject({ status: "completed", order_id, order: { is_paid: true }, messages: [] });
    expect(done.completed_at).not.toBeNull();
    expect(await core.jobs.get(FULFILMENT_QUEUE, fulfilmentJobKey(order_id))).toBeDefined();
    const order = (await loadOrder(store, order_id))!.value;
    expect(order.payment?.protocol).toBe("checkout");
    expect(order.order.buyer_email).toBe("ada@example.com");
    expect(order.order.buyer_name).toBe("Ada Lovelace");
    expect(JSON.stringify(await core.getOrderStatus(order_id))).not.toContain("spt_test_ok");

    const again = await complete(checkout_session.id, "spt_test_ok_other");
    expect(again.status).toBe("completed");
    expect(checkout.paid.size).toBe(1);
    expect((await core.getOrderStatus(order_id))?.is_paid).toBe(true);
  });

  it("leaves the session open with payment_declined, requires_3ds or invalid_payment_token, then pays", async () => {
    const { draft, draftBody, complete, checkout } = setup();
    const { checkout_session } = await draft(draftBody());
    const declined = await complete(checkout_session.id, "spt_test_declined");
    expect(declined.status).toBe("open");
    expect(declined.messages).toEqual([expect.objectContaining({ type: "error", code: "payment_declined" })]);
    const threeDs = await complete(checkout_session.id, "spt_test_3ds");
    expect(threeDs.messages.map((m) => m.code)).toEqual(["requires_3ds"]);
    const unknown = await complete(checkout_session.id, "spt_unknown_token");
    expect(unknown.messages.map((m) => m.code)).toEqual(["invalid_payment_token"]);
    const paid = await complete(checkout_session.id, "spt_test_ok");
    expect(paid).toMatchObject({ status: "completed", messages: [] });
    expect(checkout.paid.size).toBe(1);
  });

  it("refuses a missing buyer email, a token without spt_ and an unknown session, charging nothing", async () => {
    const { draft, draftBody, complete, checkout } = setup();
    const { checkout_session } = await draft(draftBody());
    const bad = await coreError(
      complete(checkout_session.id, "tok_visa", { first_name: "Ada", email: "nope" }),
    );
    expect(bad.code).toBe("validation_failed");
    expect(bad.issues.map((i) => i.path).sort()).toEqual(["buyer.email", "payment_data.token"]);
    const missing = await coreError(complete(`cs_${"0".repeat(32)}`, "spt_test_ok"));
    expect(missing.code).toBe("not_found");
    expect(checkout.calls()).toBe(0);
  });

  it("charges once when many completions of one session race", async () => {
    const { draft, draftBody, complete, checkout } = setup();
    const { checkout_session } = await draft(draftBody());
    const answers = await Promise.all(
      Array.from({ length: 6 }, (_, i) => complete(checkout_session.id, `spt_test_ok_${i}`)),
    );
    expect(checkout.paid.size).toBe(1);
    for (const answer of answers) expect(["completed", "complete_in_progress"]).toContain(answer.status);
  });

  it("finishes a charge whose answer was lost through the reconciler, without a second charge", async () => {
    const { draft, draftBody, complete, checkout, core, advance } = setup({
      settleLeaseMs: 15_000,
      settleWaitMs: 100,
    });
    const { order_id, checkout_session } = await draft(draftBody());
    checkout.loseNextAnswer();
    const lost = await complete(checkout_session.id, "spt_test_ok");
    expect(lost.status).toBe("complete_in_progress");
    expect((await core.getOrderStatus(order_id))?.payment_status).toBe("settled_pending_webhook");
    // A retry inside the lease waits for the payment in flight; it never charges again.
    expect((await complete(checkout_session.id, "spt_test_ok")).status).toBe("complete_in_progress");
    advance(16_000);
    await core.fulfil();
    expect((await core.getCheckout(checkout_session.id))?.status).toBe("completed");
    expect(checkout.paid.size).toBe(1);
  });

  it("expires a session after its time; a new draft call opens a new session for the unpaid order", async () => {
    const { draft, draftBody, complete, advance, core } = setup({ checkoutTtlMs: 60_000 });
    const body = draftBody();
    const first = await draft(body);
    advance(61_000);
    expect((await core.getCheckout(first.checkout_session.id))?.status).toBe("expired");
    expect((await coreError(complete(first.checkout_session.id, "spt_test_ok"))).code).toBe(
      "checkout_expired",
    );
    const renewed = await draft(body);
    expect(renewed.order_id).toBe(first.order_id);
    expect(renewed.checkout_session.id).not.toBe(first.checkout_session.id);
    expect((await complete(renewed.checkout_session.id, "spt_test_ok")).status).toBe("completed");
    // The expired session now shows what became of its order.
    expect((await core.getCheckout(first.checkout_session.id))?.status).toBe("completed");
  });

  it("cancels an open session, which can then not be paid; a paid session cannot be canceled", async () => {
    const { draft, draftBody, complete, core, checkout } = setup();
    const open = await draft(draftBody());
    expect((await core.cancelCheckout(open.checkout_session.id)).status).toBe("canceled");
    expect((await coreError(complete(open.checkout_session.id, "spt_test_ok"))).code).toBe(
      "checkout_canceled",
    );
    expect(checkout.calls()).toBe(0);
    const other = await draft(draftBody({ letter: "Another letter to cancel." }));
    await complete(other.checkout_session.id, "spt_test_ok");
    expect((await coreError(core.cancelCheckout(other.checkout_session.id))).code).toBe("checkout_completed");
  });

  it("answers payment_rail_unavailable when the deployment takes no card payments", async () => {
    const core = createMailpieceCore({ store: createMemoryStore(), blobs: createMemoryBlobStore() });
    const { buyer_name: _n, buyer_email: _e, ...body } = letterOrder();
    const view = await core.createDraft({ body, raw: canonicalJson(body), clientKey: "x" });
    const error = await coreError(
      core.completeCheckout({
        checkout_session_id: view.checkout_session.id,
        buyer: ADA,
        payment_data: { token: "spt_test_ok" },
      }),
    );
    expect(error.code).toBe("payment_rail_unavailable");
  });
});
