import type { PaymentError, PaymentErrorCode } from "@mailpiece/ports";

/** The media type of every MPP error body (RFC 9457 problem details). */
export const PROBLEM_CONTENT_TYPE = "application/problem+json";

const PROBLEMS = "https://paymentauth.org/problems/";

/** RFC 9457: a problem that means no more than its HTTP status. */
const ABOUT_BLANK = "about:blank";

/** An RFC 9457 problem details object with an MPP problem type. */
export interface MppProblemBody {
  type: string;
  title: string;
  status: number;
  detail: string;
  /** The stable Mailpiece code, as an extension member. */
  code?: PaymentErrorCode;
}

export interface MppProblem {
  status: number;
  contentType: typeof PROBLEM_CONTENT_TYPE;
  body: MppProblemBody;
}

/** Each code's registered problem type (`slug` under paymentauth.org/problems/), or none. */
const BY_CODE: Record<PaymentErrorCode, { slug: string | undefined; title: string; status: number }> = {
  malformed_credential: { slug: "malformed-credential", title: "Malformed Credential", status: 402 },
  invalid_challenge: { slug: "invalid-challenge", title: "Invalid Challenge", status: 402 },
  // The credential answers a genuine challenge, but one issued for another price or order.
  payment_mismatch: { slug: "invalid-challenge", title: "Invalid Challenge", status: 402 },
  payment_expired: { slug: "payment-expired", title: "Payment Expired", status: 402 },
  verification_failed: { slug: "verification-failed", title: "Verification Failed", status: 402 },
  // The challenge was already paid once: a credential settles at most one order.
  payment_replayed: { slug: "invalid-challenge", title: "Invalid Challenge", status: 402 },
  settlement_failed: { slug: "verification-failed", title: "Verification Failed", status: 402 },
  // Card outcomes of a hosted checkout; an MPP rail does not raise them, but the table covers every code.
  payment_declined: { slug: "verification-failed", title: "Verification Failed", status: 402 },
  requires_action: { slug: "verification-failed", title: "Verification Failed", status: 402 },
  invalid_payment_token: { slug: "malformed-credential", title: "Malformed Credential", status: 402 },
  method_unsupported: { slug: "method-unsupported", title: "Method Unsupported", status: 400 },
  // No registered problem type: the payment provider could not be reached, so nothing was decided.
  facilitator_unavailable: { slug: undefined, title: "Service Unavailable", status: 503 },
};

/** The problem body for an unpaid request. */
export function paymentRequiredProblem(detail: string): MppProblemBody {
  return { type: `${PROBLEMS}payment-required`, title: "Payment Required", status: 402, detail };
}

/**
 * The MPP answer to a failed payment: status, problem type and title for a `PaymentError` code. An app sends
 * it together with fresh `WWW-Authenticate` challenges (from `rail.challenge`) so the client can pay again;
 * a 503 means the payment provider could not be reached and the same request may be retried later.
 */
export function mppProblem(error: PaymentError): MppProblem {
  const entry = BY_CODE[error.code];
  return {
    status: entry.status,
    contentType: PROBLEM_CONTENT_TYPE,
    body: {
      type: entry.slug === undefined ? ABOUT_BLANK : `${PROBLEMS}${entry.slug}`,
      title: entry.title,
      status: entry.status,
      detail: error.message,
      code: error.code,
    },
  };
}
