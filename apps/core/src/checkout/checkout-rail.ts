import type {
  Charge,
  CheckoutPaymentErrorCode,
  CheckoutPayments,
  CheckoutReceipt,
  PaymentConfirmation,
  PaymentCredential,
  PaymentErrorCode,
  PaymentRail,
  Settlement,
  VerifiedPayment,
} from "@mailpiece/ports";
import { CheckoutPaymentError, isSharedPaymentToken, PaymentError } from "@mailpiece/ports";

/**
 * One attempt to pay a checkout session, as the core hands it to the payment flow. It never comes from a client
 * as is: the core builds it from the buyer's token and a fresh idempotency key.
 */
export interface CheckoutCredential {
  token: string;
  /** `<session id>:<attempt id>`: the provider charges at most once under it. */
  idempotency_key: string;
  session_id: string;
}

/** What the payment flow stores of a checkout attempt, so that an interrupted charge can be asked about again. */
interface CheckoutDetails {
  token: string;
  idempotency_key: string;
  session_id: string;
}

/** How a refusal of the provider reads in the payment flow's codes; each is certain that no money moved. */
const REFUSALS: Partial<Record<CheckoutPaymentErrorCode, PaymentErrorCode>> = {
  payment_declined: "payment_declined",
  requires_action: "requires_action",
  invalid_token: "invalid_payment_token",
  invalid_request: "settlement_failed",
  idempotency_conflict: "settlement_failed",
};

/**
 * The payment flow's rail for hosted checkout: card payments with shared payment tokens through the
 * CheckoutPayments port. Every attempt carries its own idempotency key, so a declined attempt never blocks the
 * next one, and an attempt whose answer was lost is asked about with the same key, which answers what happened
 * without charging again. It has no HTTP credential: the core builds the credential (see `checkoutCredential`).
 */
export function checkoutRail(payments: CheckoutPayments): PaymentRail {
  const terms = (details: CheckoutDetails, amount_cents: number, charge?: Charge) => ({
    token: details.token,
    amount_cents,
    currency: "usd" as const,
    description: charge?.description ?? `Mailpiece checkout ${details.session_id}`,
    idempotency_key: details.idempotency_key,
    metadata: { checkout_session: details.session_id, ...(charge ? { order: charge.order_ref } : {}) },
  });
  const settlement = (receipt: CheckoutReceipt, details: CheckoutDetails): Settlement => ({
    protocol: "checkout",
    status: "settled",
    reference: receipt.reference,
    amount_cents: receipt.amount_cents,
    settledAt: receipt.paidAt,
    details: { idempotency_key: details.idempotency_key, provider: payments.name },
  });
  return {
    protocol: "checkout",
    simulated: payments.simulated,
    credentialHeader: "x-mailpiece-checkout",
    async challenge(charge, failure) {
      return {
        status: 402,
        headers: {},
        contentType: "application/json",
        body: {
          amount_cents: charge.amount_cents,
          currency: charge.currency,
          ...(failure ? { error: { code: failure.code, message: failure.message } } : {}),
        },
      };
    },
    async parseCredential(value) {
      let decoded: unknown;
      try {
        decoded = JSON.parse(value);
      } catch {
        throw new PaymentError("malformed_credential", "The checkout attempt is not readable.");
      }
      const attempt = decoded as Partial<CheckoutCredential>;
      if (typeof attempt.idempotency_key !== "string" || typeof attempt.session_id !== "string") {
        throw new PaymentError("malformed_credential", "The checkout attempt is not readable.");
      }
      return { protocol: "checkout", raw: value, decoded: attempt } satisfies PaymentCredential;
    },
    async readCredential() {
      // Checkout payments are never read from request headers: the core builds each attempt itself.
      return undefined;
    },
    async verify(credential, charge): Promise<VerifiedPayment> {
      const attempt = credential.decoded as CheckoutCredential;
      if (!isSharedPaymentToken(attempt.token)) {
        throw new PaymentError(
          "invalid_payment_token",
          "payment_data.token must be a shared payment token (spt_...).",
        );
      }
      const details: CheckoutDetails = {
        token: attempt.token,
        idempotency_key: attempt.idempotency_key,
        session_id: attempt.session_id,
      };
      return {
        protocol: "checkout",
        // One key per attempt: the provider, not a replay claim, decides whether a token may pay again.
        replayKey: `checkout:${attempt.idempotency_key}`,
        amount_cents: charge.amount_cents,
        details,
      };
    },
    async settle(payment, charge) {
      const details = payment.details as CheckoutDetails;
      try {
        return settlement(await payments.charge(terms(details, charge.amount_cents, charge)), details);
      } catch (error) {
        throw asPaymentError(error);
      }
    },
    receiptHeaders() {
      return {};
    },
    async confirm(question): Promise<PaymentConfirmation> {
      const details = question.details as CheckoutDetails;
      try {
        // The same key and terms answer the outcome of the first call; they never charge a second time.
        return settlement(await payments.charge(terms(details, question.amount_cents)), details);
      } catch (error) {
        const refused = asPaymentError(error);
        if (refused.code === "facilitator_unavailable") return { status: "pending" };
        return { status: "failed", code: refused.code, message: refused.message };
      }
    },
  };
}

/** The credential string of one checkout attempt, for `PaymentAttempt.credential`. */
export function checkoutCredential(attempt: CheckoutCredential): string {
  return JSON.stringify(attempt);
}

function asPaymentError(error: unknown): PaymentError {
  if (!CheckoutPaymentError.isInstance(error)) {
    return new PaymentError("facilitator_unavailable", "The payment provider did not answer.", {
      cause: error,
    });
  }
  const code = REFUSALS[error.code];
  // provider_unavailable: the outcome is unknown, and the attempt is asked about again with the same key.
  return code
    ? new PaymentError(code, error.message)
    : new PaymentError("facilitator_unavailable", error.message);
}
