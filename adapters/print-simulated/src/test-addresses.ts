import type { PrintAddress } from "@mailpiece/ports";

/**
 * Scripted outcomes, chosen by a phrase in the recipient's `line1` (any letter case). Every other address is
 * delivered. Use them to exercise failure paths end to end in test mode.
 */
export const TEST_ADDRESS_PHRASES = Object.freeze({
  /** Accepted and in transit, then `returned` instead of delivered. */
  returnToSender: "RETURN TO SENDER",
  /** Accepted, then `failed` when it would have been handed to the carrier. */
  failPrint: "FAIL PRINT",
  /** `submit` refuses the job for good with `job_rejected`; no job is created. */
  rejectPrint: "REJECT PRINT",
  /**
   * The job is created but the first `submit` answers `provider_unavailable`, as if the answer were lost on the
   * way back: `lookup` finds the job and a repeated `submit` with the same key returns it. For reconciliation.
   */
  submitTimeout: "SUBMIT TIMEOUT",
});

/** How a simulated job ends. */
export type SimulatedOutcome = "delivered" | "returned" | "failed";

/** What `submit` does with the job. */
export type SubmitScript = "accept" | "reject" | "lose_answer";

export function outcomeFor(recipient: PrintAddress): SimulatedOutcome {
  const line = recipient.line1.toUpperCase();
  if (line.includes(TEST_ADDRESS_PHRASES.failPrint)) return "failed";
  if (line.includes(TEST_ADDRESS_PHRASES.returnToSender)) return "returned";
  return "delivered";
}

export function submitScriptFor(recipient: PrintAddress): SubmitScript {
  const line = recipient.line1.toUpperCase();
  if (line.includes(TEST_ADDRESS_PHRASES.rejectPrint)) return "reject";
  if (line.includes(TEST_ADDRESS_PHRASES.submitTimeout)) return "lose_answer";
  return "accept";
}
