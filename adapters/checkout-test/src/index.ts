export type { CheckoutLedger, CheckoutLedgerEntry, OffSessionOutcome } from "./checkout-ledger.ts";
export { memoryCheckoutLedger, storeCheckoutLedger } from "./checkout-ledger.ts";
export type { TestCheckoutOptions } from "./test-checkout.ts";
export { createTestCheckout, TEST_CARD_EXP_YEAR } from "./test-checkout.ts";
export type { TestTokenOutcome } from "./test-tokens.ts";
export { CHECKOUT_TEST_TOKENS, testTokenOutcome } from "./test-tokens.ts";
