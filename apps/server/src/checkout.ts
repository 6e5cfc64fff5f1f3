import type { CheckoutPayments, Store } from "@mailpiece/ports";
import type { ServerConfig } from "./config.ts";
import { lazily } from "./lazy.ts";

/**
 * Card payments for hosted checkout. The test payments keep their ledger in the server's store, so every process
 * sharing the store answers one idempotency key alike. The payment library loads with the first charge, so a
 * server whose drafts are never paid by card does not hold it.
 */
export function checkoutPayments(config: ServerConfig["checkout"], store: Store): CheckoutPayments {
  const payments = lazily(async (): Promise<CheckoutPayments> => {
    if (config.provider === "stripe") {
      const { createStripeCheckout } = await import("@mailpiece/checkout-stripe");
      return createStripeCheckout({ secretKey: config.secretKey });
    }
    const { createTestCheckout, storeCheckoutLedger } = await import("@mailpiece/checkout-test");
    return createTestCheckout({ ledger: storeCheckoutLedger(store) });
  });
  return {
    name: config.provider,
    simulated: config.provider === "test" || config.secretKey.includes("_test_"),
    charge: async (request) => (await payments()).charge(request),
    saveMethod: async (request) => (await payments()).saveMethod(request),
    chargeSaved: async (request) => (await payments()).chargeSaved(request),
  };
}
