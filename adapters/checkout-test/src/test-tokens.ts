/** What a test token does when charged. */
export type TestTokenOutcome = "paid" | "payment_declined" | "requires_action" | "invalid_token";

/** The shared payment tokens the test adapter knows. Any other token is refused with `invalid_token`. */
export const CHECKOUT_TEST_TOKENS = {
  /** Pays; so does `spt_test_ok_<suffix>`, to tell several test buyers apart. */
  ok: "spt_test_ok",
  /** Declined, as a card would be: `payment_declined`. */
  declined: "spt_test_declined",
  /** Needs the buyer to authenticate with 3-D Secure: `requires_action`. */
  requiresAction: "spt_test_3ds",
  /**
   * Pays on-session (`charge`) and can be saved (`saveMethod`), but every off-session charge of the saved method
   * (`chargeSaved`) is declined: `payment_declined`, as a card that expired or was frozen after it was saved.
   */
  declinesOffSession: "spt_test_declines_off_session",
} as const;

const OK_WITH_SUFFIX = /^spt_test_ok_[A-Za-z0-9_-]{1,200}$/;

/**
 * What charging `token` does in the test adapter; saving it does the same, with "saved" for "paid" (the off-session
 * charges of a saved `declinesOffSession` are declined).
 */
export function testTokenOutcome(token: string): TestTokenOutcome {
  if (token === CHECKOUT_TEST_TOKENS.ok || OK_WITH_SUFFIX.test(token)) return "paid";
  if (token === CHECKOUT_TEST_TOKENS.declinesOffSession) return "paid";
  if (token === CHECKOUT_TEST_TOKENS.declined) return "payment_declined";
  if (token === CHECKOUT_TEST_TOKENS.requiresAction) return "requires_action";
  return "invalid_token";
}
