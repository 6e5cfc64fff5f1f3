import { checkoutPaymentsContract } from "@mailpiece/conformance";
import { registerSuite } from "@mailpiece/conformance/vitest";
import type { CheckoutPayments } from "@mailpiece/ports";
import { afterAll, beforeAll } from "vitest";
import { FAKE_SECRET_KEY, FAKE_TOKENS, type FakeStripe, startFakeStripe } from "./fake-stripe.fixture.ts";
import { createStripeCheckout } from "./stripe-checkout.ts";

let fake: FakeStripe;

beforeAll(async () => {
  fake = await startFakeStripe();
});

afterAll(async () => {
  await fake?.close();
});

/**
 * The adapter on the real Stripe client, pointed at the local fake. A fault lasts until the call it affects has
 * answered: the Stripe client itself reconnects once after a dropped connection, and that attempt must fail too.
 * With no client retries, a lost answer reaches the caller as provider_unavailable.
 */
function faultable(payments: CheckoutPayments): CheckoutPayments {
  async function healed<T>(call: () => Promise<T>): Promise<T> {
    try {
      return await call();
    } finally {
      fake.heal();
    }
  }
  return {
    name: payments.name,
    simulated: payments.simulated,
    charge: (request) => healed(() => payments.charge(request)),
    saveMethod: (request) => healed(() => payments.saveMethod(request)),
    chargeSaved: (request) => healed(() => payments.chargeSaved(request)),
  };
}

registerSuite(
  checkoutPaymentsContract({
    name: "Stripe adapter on a local fake Stripe API",
    async create() {
      const payments = createStripeCheckout({
        secretKey: FAKE_SECRET_KEY,
        host: "127.0.0.1",
        port: fake.port,
        protocol: "http",
        maxNetworkRetries: 0,
      });
      return {
        payments: faultable(payments),
        tokens: {
          ok: FAKE_TOKENS.ok,
          declined: FAKE_TOKENS.declined,
          requiresAction: FAKE_TOKENS.requiresAction,
          unknown: FAKE_TOKENS.unknown,
          declinesOffSession: FAKE_TOKENS.declinesOffSession,
        },
        faults: {
          loseAnswer: () => fake.loseAnswers(),
          unreachable: () => fake.refuseRequests(),
        },
      };
    },
  }),
);
