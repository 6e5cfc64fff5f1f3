import { createHash } from "node:crypto";
import {
  assertCheckoutCharge,
  type CheckoutCharge,
  CheckoutPaymentError,
  type CheckoutPayments,
  type CheckoutReceipt,
  type Clock,
  type IdGenerator,
  isSharedPaymentToken,
  randomIds,
  systemClock,
} from "@mailpiece/ports";
import { type CheckoutLedger, type CheckoutLedgerEntry, memoryCheckoutLedger } from "./checkout-ledger.ts";
import { testTokenOutcome } from "./test-tokens.ts";

export interface TestCheckoutOptions {
  /** Where outcomes are kept by idempotency key; default a memory ledger (one process). */
  ledger?: CheckoutLedger;
  /** `paidAt` of receipts; default the system clock. */
  clock?: Clock;
  /** Makes references `ch_test_<uuid without dashes>`; default random UUIDs. */
  ids?: IdGenerator;
  /** Shown in logs; default `test`. */
  name?: string;
}

const MESSAGES = {
  invalid_token: "The payment token is not a shared payment token this checkout accepts.",
  payment_declined: "The payment was declined. Ask the buyer for another payment method.",
  requires_action: "The payment needs the buyer to authenticate (3-D Secure) before it can be charged.",
  idempotency_conflict: "This idempotency key was already used for a charge with other terms.",
  provider_unavailable: "The test payment ledger cannot be reached; ask again with the same idempotency key.",
} as const;

/**
 * CheckoutPayments that moves no money (`simulated: true`): the token decides the outcome (`CHECKOUT_TEST_TOKENS`).
 * A key is taken by the first charge that reaches the ledger (paid, declined or needing 3-D Secure) and every
 * repeat with the same amount, currency and token answers that outcome; other terms are `idempotency_conflict`.
 * A malformed request or an unknown token takes no key. Ledger failures are `provider_unavailable`.
 */
export function createTestCheckout(options: TestCheckoutOptions = {}): CheckoutPayments {
  const ledger = options.ledger ?? memoryCheckoutLedger();
  const clock = options.clock ?? systemClock;
  const ids = options.ids ?? randomIds;

  async function reach<T>(step: () => Promise<T>): Promise<T> {
    try {
      return await step();
    } catch {
      throw new CheckoutPaymentError("provider_unavailable", MESSAGES.provider_unavailable);
    }
  }

  function answer(entry: CheckoutLedgerEntry, terms: string): CheckoutReceipt {
    if (entry.terms !== terms)
      throw new CheckoutPaymentError("idempotency_conflict", MESSAGES.idempotency_conflict);
    if (entry.outcome !== "paid") throw new CheckoutPaymentError(entry.outcome, MESSAGES[entry.outcome]);
    return { ...entry.receipt };
  }

  return {
    name: options.name ?? "test",
    simulated: true,
    async charge(request: CheckoutCharge): Promise<CheckoutReceipt> {
      assertCheckoutCharge(request);
      const { token, amount_cents, idempotency_key: key } = request;
      if (!isSharedPaymentToken(token))
        throw new CheckoutPaymentError("invalid_token", MESSAGES.invalid_token);
      const terms = termsDigest(request);
      const existing = await reach(() => ledger.read(key));
      if (existing) return answer(existing, terms);
      const outcome = testTokenOutcome(token);
      if (outcome === "invalid_token")
        throw new CheckoutPaymentError("invalid_token", MESSAGES.invalid_token);
      const entry: CheckoutLedgerEntry =
        outcome === "paid"
          ? {
              terms,
              outcome,
              receipt: {
                reference: `ch_test_${ids.uuid().replaceAll("-", "")}`,
                amount_cents,
                currency: "usd",
                paidAt: clock.now(),
              },
            }
          : { terms, outcome };
      return answer(await reach(() => ledger.record(key, entry)), terms);
    },
  };
}

/** A digest of what a repeat must bring again: amount, currency and token (so the ledger never holds a token). */
function termsDigest(request: CheckoutCharge): string {
  const text = JSON.stringify([request.amount_cents, request.currency, request.token]);
  return createHash("sha256").update(text).digest("base64url");
}
