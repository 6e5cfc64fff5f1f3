import { type CheckoutPaymentsContractFaults, checkoutPaymentsContract } from "@mailpiece/conformance";
import { registerSuite } from "@mailpiece/conformance/vitest";
import type { CheckoutPayments } from "@mailpiece/ports";
import { createMemoryStore } from "@mailpiece/store-unstorage";
import { type CheckoutLedger, memoryCheckoutLedger, storeCheckoutLedger } from "./checkout-ledger.ts";
import { createTestCheckout } from "./test-checkout.ts";
import { CHECKOUT_TEST_TOKENS } from "./test-tokens.ts";

const tokens = {
  ok: CHECKOUT_TEST_TOKENS.ok,
  declined: CHECKOUT_TEST_TOKENS.declined,
  requiresAction: CHECKOUT_TEST_TOKENS.requiresAction,
  unknown: "spt_test_unknown",
  declinesOffSession: CHECKOUT_TEST_TOKENS.declinesOffSession,
};

/**
 * The test adapter's provider is its ledger: a ledger that records and then fails loses the answer of a charge that
 * happened; one that fails before anything is read cannot be reached. Each fault affects the next charge only (its
 * first read, or its one record), on whichever ledger `wrap` made it reaches.
 */
function faultInjector(): {
  wrap(inner: CheckoutLedger): CheckoutLedger;
  faults: CheckoutPaymentsContractFaults;
} {
  let next: "lose" | "unreachable" | undefined;
  return {
    wrap: (inner) => ({
      async read(key) {
        if (next === "unreachable") {
          next = undefined;
          throw new Error("the ledger cannot be reached");
        }
        return inner.read(key);
      },
      async record(key, entry) {
        const lose = next === "lose";
        next = undefined;
        const first = await inner.record(key, entry);
        if (lose) throw new Error("the answer was lost");
        return first;
      },
    }),
    faults: {
      loseAnswer: () => {
        next = "lose";
      },
      unreachable: () => {
        next = "unreachable";
      },
    },
  };
}

registerSuite(
  checkoutPaymentsContract({
    name: "test adapter on a memory ledger",
    async create() {
      const { wrap, faults } = faultInjector();
      return { payments: createTestCheckout({ ledger: wrap(memoryCheckoutLedger()) }), tokens, faults };
    },
  }),
);

registerSuite(
  checkoutPaymentsContract({
    name: "test adapter on a Store ledger shared by two instances",
    async create() {
      const store = createMemoryStore();
      const { wrap, faults } = faultInjector();
      const first = createTestCheckout({ ledger: wrap(storeCheckoutLedger(store)) });
      const second = createTestCheckout({ ledger: wrap(storeCheckoutLedger(store)) });
      let turn = 0;
      const next = () => (turn++ % 2 === 0 ? first : second);
      // Calls alternate between two adapters on one Store, as requests reach several server processes: a method
      // saved by one is charged by the other.
      const payments: CheckoutPayments = {
        name: first.name,
        simulated: first.simulated,
        charge: (request) => next().charge(request),
        saveMethod: (request) => next().saveMethod(request),
        chargeSaved: (request) => next().chargeSaved(request),
      };
      return { payments, tokens, faults };
    },
  }),
);
