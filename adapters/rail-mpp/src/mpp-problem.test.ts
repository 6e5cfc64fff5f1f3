import type { PaymentErrorCode } from "@mailpiece/ports";
import { PaymentError } from "@mailpiece/ports";
import { describe, expect, it } from "vitest";
import { mppProblem } from "./mpp-problem.ts";

describe("mppProblem", () => {
  it("maps every code to a problem type and status", () => {
    const expected: Record<PaymentErrorCode, [string, number]> = {
      malformed_credential: ["https://paymentauth.org/problems/malformed-credential", 402],
      invalid_challenge: ["https://paymentauth.org/problems/invalid-challenge", 402],
      payment_mismatch: ["https://paymentauth.org/problems/invalid-challenge", 402],
      payment_expired: ["https://paymentauth.org/problems/payment-expired", 402],
      verification_failed: ["https://paymentauth.org/problems/verification-failed", 402],
      payment_replayed: ["https://paymentauth.org/problems/invalid-challenge", 402],
      settlement_failed: ["https://paymentauth.org/problems/verification-failed", 402],
      payment_declined: ["https://paymentauth.org/problems/verification-failed", 402],
      requires_action: ["https://paymentauth.org/problems/verification-failed", 402],
      invalid_payment_token: ["https://paymentauth.org/problems/malformed-credential", 402],
      method_unsupported: ["https://paymentauth.org/problems/method-unsupported", 400],
      facilitator_unavailable: ["about:blank", 503],
    };
    for (const [code, [type, status]] of Object.entries(expected) as Array<
      [PaymentErrorCode, [string, number]]
    >) {
      const problem = mppProblem(new PaymentError(code, `because ${code}`));
      expect(problem.status, code).toBe(status);
      expect(problem.contentType).toBe("application/problem+json");
      expect(problem.body).toMatchObject({ type, status, detail: `because ${code}`, code });
      expect(problem.body.title.length).toBeGreaterThan(0);
    }
  });
});
