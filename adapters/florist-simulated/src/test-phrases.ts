import type { FloristRecipient } from "@mailpiece/ports";

/**
 * Scripted outcomes, chosen by a phrase in the recipient's `address1` (any letter case). Every other order is
 * delivered. Use them to exercise failure paths end to end in test mode.
 */
export const FLORIST_TEST_PHRASES = Object.freeze({
  /** Accepted and out for delivery, then `failed` at delivery time: nobody could take the flowers. */
  deliveryFails: "DELIVERY FAILS",
  /**
   * The order is placed but the first `submit` answers `florist_unavailable`, as if the answer were lost on the way
   * back; submitting again under the same key returns the order with `idempotent_replay: true`.
   */
  submitTimeout: "SUBMIT TIMEOUT",
});

/** How a simulated order ends. */
export type FloristOutcome = "delivered" | "failed";

export function outcomeFor(recipient: FloristRecipient): FloristOutcome {
  return recipient.address1.toUpperCase().includes(FLORIST_TEST_PHRASES.deliveryFails)
    ? "failed"
    : "delivered";
}

/** True when the first answer to this order's submit is lost. */
export function losesFirstAnswer(recipient: FloristRecipient): boolean {
  return recipient.address1.toUpperCase().includes(FLORIST_TEST_PHRASES.submitTimeout);
}
