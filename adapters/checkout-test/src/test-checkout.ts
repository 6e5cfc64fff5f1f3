import { createHash } from "node:crypto";
import {
  assertCheckoutCharge,
  assertSavedMethodCharge,
  assertSaveMethodRequest,
  type CheckoutCharge,
  CheckoutPaymentError,
  type CheckoutPaymentErrorCode,
  type CheckoutPayments,
  type CheckoutReceipt,
  type Clock,
  type IdGenerator,
  isSharedPaymentToken,
  randomIds,
  type SavedMethod,
  type SavedMethodCharge,
  type SaveMethodRequest,
  systemClock,
} from "@mailpiece/ports";
import {
  type CheckoutLedger,
  type CheckoutLedgerEntry,
  memoryCheckoutLedger,
  methodLedgerKey,
} from "./checkout-ledger.ts";
import { CHECKOUT_TEST_TOKENS, testTokenOutcome } from "./test-tokens.ts";

export interface TestCheckoutOptions {
  /** Where outcomes are kept by idempotency key; default a memory ledger (one process). */
  ledger?: CheckoutLedger;
  /** `paidAt` of receipts; default the system clock. */
  clock?: Clock;
  /**
   * Makes references `ch_test_<uuid without dashes>`, saved methods `pm_test_<...>` and new customers
   * `cus_test_<...>`; default random UUIDs.
   */
  ids?: IdGenerator;
  /** Shown in logs; default `test`. */
  name?: string;
}

const MESSAGES = {
  invalid_token: "The payment token is not a shared payment token this checkout accepts.",
  payment_declined: "The payment was declined. Ask the buyer for another payment method.",
  requires_action: "The payment needs the buyer to authenticate (3-D Secure) before it can be charged.",
  idempotency_conflict: "This idempotency key was already used with other terms.",
  provider_unavailable: "The test payment ledger cannot be reached; ask again with the same idempotency key.",
  unknown_method: "The payment method is not one this checkout saved for the customer.",
} as const;

/** The expiry year of every saved test method: a Visa ending in 4242 that expires in December. */
export const TEST_CARD_EXP_YEAR = 2034;

/**
 * CheckoutPayments that moves no money (`simulated: true`): the token decides the outcome (`CHECKOUT_TEST_TOKENS`).
 * A key is taken by the first call that reaches the ledger (paid, saved, declined or needing 3-D Secure) and every
 * repeat with the same terms answers that outcome; other terms are `idempotency_conflict`. A malformed request, an
 * unknown token or an unknown saved method takes no key. Ledger failures are `provider_unavailable`.
 *
 * `saveMethod` answers a Visa ending in 4242 (`pm_test_<...>`) under the given customer, or a new `cus_test_<...>`,
 * and keeps the method in the ledger under `method:<reference>` so that every adapter on the same ledger can charge
 * it. `chargeSaved` charges only a method kept there for the customer named; one saved from
 * `CHECKOUT_TEST_TOKENS.declinesOffSession` is declined.
 */
export function createTestCheckout(options: TestCheckoutOptions = {}): CheckoutPayments {
  const ledger = options.ledger ?? memoryCheckoutLedger();
  const clock = options.clock ?? systemClock;
  const ids = options.ids ?? randomIds;
  const newId = (prefix: string) => `${prefix}_${ids.uuid().replaceAll("-", "")}`;

  async function reach<T>(step: () => Promise<T>): Promise<T> {
    try {
      return await step();
    } catch {
      throw new CheckoutPaymentError("provider_unavailable", MESSAGES.provider_unavailable);
    }
  }

  const refuse = (code: Exclude<CheckoutPaymentErrorCode, "invalid_request">) =>
    new CheckoutPaymentError(code, MESSAGES[code]);

  /** The entry under a key, or the refusal it stands for. */
  function settled<Outcome extends CheckoutLedgerEntry["outcome"]>(
    entry: CheckoutLedgerEntry,
    terms: string,
    outcome: Outcome,
  ): Extract<CheckoutLedgerEntry, { outcome: Outcome }> {
    if (entry.terms !== terms) throw refuse("idempotency_conflict");
    if (entry.outcome === "payment_declined" || entry.outcome === "requires_action")
      throw refuse(entry.outcome);
    // A key used for another kind of call (a charge, a save) answers a conflict, as the terms differ.
    if (entry.outcome !== outcome) throw refuse("idempotency_conflict");
    return entry as Extract<CheckoutLedgerEntry, { outcome: Outcome }>;
  }

  const receiptOf = (amount_cents: number): CheckoutReceipt => ({
    reference: newId("ch_test"),
    amount_cents,
    currency: "usd",
    paidAt: clock.now(),
  });

  /**
   * Keeps the method of a save under its reference. Create-if-absent makes it safe to repeat: every repeat of the save
   * does it again, so a save whose answer was lost before this step is completed by the caller's retry.
   */
  async function keepMethod(entry: Extract<CheckoutLedgerEntry, { outcome: "saved" }>): Promise<SavedMethod> {
    const { method, off_session, terms } = entry;
    const kept = await reach(() =>
      ledger.record(methodLedgerKey(method.reference), {
        terms,
        outcome: "method",
        customer: method.customer,
        off_session,
      }),
    );
    if (kept.outcome !== "method" || kept.customer !== method.customer) throw refuse("provider_unavailable");
    return { ...method };
  }

  return {
    name: options.name ?? "test",
    simulated: true,
    async charge(request: CheckoutCharge): Promise<CheckoutReceipt> {
      assertCheckoutCharge(request);
      const { token, amount_cents, idempotency_key: key } = request;
      if (!isSharedPaymentToken(token)) throw refuse("invalid_token");
      const terms = digest([request.amount_cents, request.currency, request.token]);
      const existing = await reach(() => ledger.read(key));
      if (existing) return { ...settled(existing, terms, "paid").receipt };
      const outcome = testTokenOutcome(token);
      if (outcome === "invalid_token") throw refuse("invalid_token");
      const entry: CheckoutLedgerEntry =
        outcome === "paid" ? { terms, outcome, receipt: receiptOf(amount_cents) } : { terms, outcome };
      return { ...settled(await reach(() => ledger.record(key, entry)), terms, "paid").receipt };
    },

    async saveMethod(request: SaveMethodRequest): Promise<SavedMethod> {
      assertSaveMethodRequest(request);
      const { token, customer, idempotency_key: key } = request;
      if (!isSharedPaymentToken(token)) throw refuse("invalid_token");
      const terms = digest(["saveMethod", token, customer ?? null]);
      const existing = await reach(() => ledger.read(key));
      if (existing) return keepMethod(settled(existing, terms, "saved"));
      const outcome = testTokenOutcome(token);
      if (outcome === "invalid_token") throw refuse("invalid_token");
      const entry: CheckoutLedgerEntry =
        outcome === "paid"
          ? {
              terms,
              outcome: "saved",
              method: {
                customer: customer ?? newId("cus_test"),
                reference: newId("pm_test"),
                brand: "visa",
                last4: "4242",
                exp_month: 12,
                exp_year: TEST_CARD_EXP_YEAR,
              },
              off_session: token === CHECKOUT_TEST_TOKENS.declinesOffSession ? "payment_declined" : "paid",
            }
          : { terms, outcome };
      return keepMethod(settled(await reach(() => ledger.record(key, entry)), terms, "saved"));
    },

    async chargeSaved(request: SavedMethodCharge): Promise<CheckoutReceipt> {
      assertSavedMethodCharge(request);
      const { customer, payment_method, amount_cents, idempotency_key: key } = request;
      const terms = digest(["chargeSaved", amount_cents, request.currency, customer, payment_method]);
      const existing = await reach(() => ledger.read(key));
      if (existing) return { ...settled(existing, terms, "paid").receipt };
      const method = await reach(() => ledger.read(methodLedgerKey(payment_method)));
      if (method?.outcome !== "method" || method.customer !== customer) {
        throw new CheckoutPaymentError("invalid_token", MESSAGES.unknown_method);
      }
      const entry: CheckoutLedgerEntry =
        method.off_session === "paid"
          ? { terms, outcome: "paid", receipt: receiptOf(amount_cents) }
          : { terms, outcome: "payment_declined" };
      return { ...settled(await reach(() => ledger.record(key, entry)), terms, "paid").receipt };
    },
  };
}

/**
 * A digest of what a repeat must bring again (so the ledger never holds a token). A charge's is the digest of
 * `[amount, currency, token]`; saves and off-session charges name their call first, so no two calls share terms.
 */
function digest(terms: ReadonlyArray<string | number | null>): string {
  return createHash("sha256").update(JSON.stringify(terms)).digest("base64url");
}
