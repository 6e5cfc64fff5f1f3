import { strict as assert } from "node:assert";
import type { CheckoutCharge, CheckoutPayments, CheckoutReceipt } from "@mailpiece/ports";
import type { Suite } from "../kit.ts";
import { assertSafeError, checkoutRefusedWith as refusedWith, show } from "./checkout-refused-with.ts";

/** The names of the CheckoutPayments contract tests, one per MUST sentence of the port. Skip lists are typed by it. */
export const CHECKOUT_PAYMENTS_CONTRACT_NAMES = [
  "charge answers a well-formed receipt for the amount charged",
  "a repeat under the same key and terms answers the first receipt",
  "concurrent calls under one key charge once and answer one reference",
  "different keys make different charges",
  "the same key with other terms is refused with idempotency_conflict, changing nothing",
  "a token that is not a shared payment token, or one the provider does not know, is refused with invalid_token",
  "a declined payment is refused with payment_declined, also on a repeat",
  "a payment that needs authentication is refused with requires_action, also on a repeat",
  "an amount that is not a positive integer or a currency other than usd is refused with invalid_request",
  "after a lost answer a retry under the same key answers the charge that happened",
  "after an unreachable provider a retry under the same key charges once",
  "errors are CheckoutPaymentErrors that carry no token",
] as const;

export type CheckoutPaymentsContractName = (typeof CHECKOUT_PAYMENTS_CONTRACT_NAMES)[number];

/** Shared payment tokens the provider under test answers in a known way. */
export interface CheckoutPaymentsContractTokens {
  /** Pays, as often as asked (each time under another key). */
  ok: string;
  /** Is declined. */
  declined: string;
  /** Needs the buyer to authenticate (3-D Secure). */
  requiresAction: string;
  /** Starts with `spt_` but the provider does not know it. */
  unknown: string;
}

/**
 * Faults the test can inject into the next `charge` of the provider, usually through the ledger or the server it
 * gave the adapter. Each affects the next charge only.
 */
export interface CheckoutPaymentsContractFaults {
  /** The next charge moves the money, then its answer is lost: it throws, as after a timeout or a crash. */
  loseAnswer(): void;
  /** The next charge cannot reach the provider: nothing is charged and it throws. */
  unreachable(): void;
}

export interface CheckoutPaymentsContractContext {
  payments: CheckoutPayments;
  tokens: CheckoutPaymentsContractTokens;
  /** Optional: without it the fault tests pass without checking anything (not applicable). */
  faults?: CheckoutPaymentsContractFaults;
}

export interface CheckoutPaymentsContractOptions {
  /** Shown in reports, e.g. `test adapter on a memory ledger`. */
  name: string;
  /** Makes a provider and its tokens; called once per test. */
  create(): Promise<CheckoutPaymentsContractContext>;
  /** Releases what `create` opened. */
  dispose?(context: CheckoutPaymentsContractContext): void | Promise<void>;
}

/**
 * The amount of most charges, in cents. Every amount the suite charges is at least 50 cents, the smallest card
 * charge Stripe takes in US dollars.
 */
const AMOUNT = 1234;

/** Strings and values that are no shared payment token at all; `ok` is the provider's paying token. */
const notTokens = (ok: string): unknown[] => [
  "tok_visa",
  "pm_card_visa",
  "card_1MvoiELkdIwHu7ixOeFGbN9D",
  `tok_contract_secret_${crypto.randomUUID().replaceAll("-", "")}`,
  "",
  "spt",
  `SPT_${ok.slice(4)}`,
  ` ${ok}`,
  `x${ok}`,
  undefined,
  null,
  42,
];

/** Amounts and currencies the port refuses with invalid_request. */
const BAD_TERMS: ReadonlyArray<[string, Partial<Record<"amount_cents" | "currency", unknown>>]> = [
  ["amount 0", { amount_cents: 0 }],
  ["a negative amount", { amount_cents: -500 }],
  ["an amount in fractions of a cent", { amount_cents: 1234.5 }],
  ["an amount that is not a number", { amount_cents: Number.NaN }],
  ["an infinite amount", { amount_cents: Number.POSITIVE_INFINITY }],
  ["an amount as a string", { amount_cents: "1234" }],
  ["no amount", { amount_cents: undefined }],
  ["currency eur", { currency: "eur" }],
  ["currency USD in capitals", { currency: "USD" }],
  ["an empty currency", { currency: "" }],
  ["no currency", { currency: undefined }],
];

const newKey = () => `contract-${crypto.randomUUID()}`;

/** The receipt's fields that the port defines, for comparing two answers. */
const gist = (receipt: CheckoutReceipt) => ({
  reference: receipt.reference,
  amount_cents: receipt.amount_cents,
  currency: receipt.currency,
  paidAt: receipt.paidAt,
});

/** Asserts a receipt's shape and that it answers `request`. */
function checkReceipt(receipt: CheckoutReceipt, request: CheckoutCharge, what: string): CheckoutReceipt {
  assert.equal(typeof receipt?.reference, "string", `${what}: reference is a string`);
  assert.ok(
    /^\S+$/.test(receipt.reference),
    `${what}: reference ${show(receipt.reference)} is a non-empty word`,
  );
  assert.ok(!receipt.reference.includes(request.token), `${what}: the reference does not carry the token`);
  assert.equal(receipt.amount_cents, request.amount_cents, `${what}: amount_cents is the amount charged`);
  assert.equal(receipt.currency, "usd", `${what}: currency is usd`);
  assert.ok(
    Number.isSafeInteger(receipt.paidAt) && receipt.paidAt > Date.UTC(2000, 0, 1),
    `${what}: paidAt ${show(receipt.paidAt)} is milliseconds since the epoch`,
  );
  return receipt;
}

/**
 * The CheckoutPayments contract (adapters/ports/src/checkout-payments.ts) as a suite: one named test per MUST
 * sentence. Every charge uses a fresh idempotency key unless the test is about keys, so one provider may serve every
 * test. The fault tests need `faults`; without them they check nothing.
 */
export function checkoutPaymentsContract(
  options: CheckoutPaymentsContractOptions,
): Suite<CheckoutPaymentsContractName> {
  interface Ctx extends CheckoutPaymentsContractContext {
    charge(request: CheckoutCharge): Promise<CheckoutReceipt>;
    request(overrides?: Partial<CheckoutCharge>): CheckoutCharge;
  }

  const run = (body: (ctx: Ctx) => Promise<void>) => async () => {
    const context = await options.create();
    try {
      let order = 0;
      await body({
        ...context,
        charge: (request) => context.payments.charge(request),
        request(overrides = {}) {
          order += 1;
          return {
            token: context.tokens.ok,
            amount_cents: AMOUNT,
            currency: "usd",
            description: "One letter, printed and posted by US First-Class Mail",
            idempotency_key: newKey(),
            metadata: { order_id: `contract-order-${order}`, session_id: `contract-session-${order}` },
            ...overrides,
          };
        },
      });
    } finally {
      await options.dispose?.(context);
    }
  };

  const tests: Record<CheckoutPaymentsContractName, () => Promise<void>> = {
    "charge answers a well-formed receipt for the amount charged": run(async (ctx) => {
      assert.ok(
        typeof ctx.payments.name === "string" && ctx.payments.name.length > 0,
        "the adapter has a name",
      );
      assert.equal(typeof ctx.payments.simulated, "boolean", "the adapter says whether money moves");
      for (const amount of [50, 340, AMOUNT, 987_654]) {
        const request = ctx.request({ amount_cents: amount });
        checkReceipt(await ctx.charge(request), request, `charge of ${amount} cents`);
      }
      const bare = ctx.request();
      delete bare.metadata;
      checkReceipt(await ctx.charge(bare), bare, "charge without metadata");
    }),

    "a repeat under the same key and terms answers the first receipt": run(async (ctx) => {
      const request = ctx.request();
      const first = checkReceipt(await ctx.charge(request), request, "the first charge");
      for (let i = 1; i <= 3; i++) {
        const again = checkReceipt(await ctx.charge({ ...request }), request, `repeat #${i}`);
        assert.deepEqual(gist(again), gist(first), `repeat #${i} answers the first receipt`);
        const other = ctx.request();
        checkReceipt(await ctx.charge(other), other, `a charge under another key between repeats #${i}`);
      }
    }),

    "concurrent calls under one key charge once and answer one reference": run(async (ctx) => {
      for (let round = 1; round <= 3; round++) {
        const request = ctx.request();
        const receipts = await Promise.all(Array.from({ length: 5 }, () => ctx.charge({ ...request })));
        const references = new Set(
          receipts.map((receipt) => checkReceipt(receipt, request, "a concurrent call").reference),
        );
        assert.equal(
          references.size,
          1,
          `round ${round}: five concurrent calls answer ${references.size} references`,
        );
        const later = await ctx.charge({ ...request });
        assert.deepEqual(
          gist(later),
          gist(receipts[0] as CheckoutReceipt),
          `round ${round}: a later repeat agrees`,
        );
      }
    }),

    "different keys make different charges": run(async (ctx) => {
      const requests = Array.from({ length: 4 }, () => ctx.request());
      const receipts = [];
      for (const request of requests)
        receipts.push(checkReceipt(await ctx.charge(request), request, "a charge"));
      const concurrent = Array.from({ length: 4 }, () => ctx.request());
      receipts.push(...(await Promise.all(concurrent.map((request) => ctx.charge(request)))));
      const references = new Set(receipts.map((receipt) => receipt.reference));
      assert.equal(references.size, receipts.length, "each key has its own charge and reference");
    }),

    "the same key with other terms is refused with idempotency_conflict, changing nothing": run(
      async (ctx) => {
        const request = ctx.request();
        const first = checkReceipt(await ctx.charge(request), request, "the first charge");
        const others: Array<[string, CheckoutCharge]> = [
          ["another amount", { ...request, amount_cents: request.amount_cents + 1 }],
          ["a much larger amount", { ...request, amount_cents: request.amount_cents * 100 }],
          ["another token", { ...request, token: ctx.tokens.declined }],
        ];
        for (const [what, other] of others) {
          await refusedWith(() => ctx.charge(other), "idempotency_conflict", `the same key with ${what}`);
        }
        const again = await ctx.charge({ ...request });
        assert.deepEqual(gist(again), gist(first), "the key still answers the first receipt");
        const refused = ctx.request({ token: ctx.tokens.declined });
        await refusedWith(() => ctx.charge(refused), "payment_declined", "a declined payment");
        await refusedWith(
          () => ctx.charge({ ...refused, amount_cents: refused.amount_cents + 1 }),
          "idempotency_conflict",
          "the key of a declined payment with another amount",
        );
      },
    ),

    "a token that is not a shared payment token, or one the provider does not know, is refused with invalid_token":
      run(async (ctx) => {
        for (const token of notTokens(ctx.tokens.ok)) {
          const request = ctx.request({ token: token as string });
          await refusedWith(() => ctx.charge(request), "invalid_token", `charge with token ${show(token)}`);
        }
        const unknown = [
          ctx.tokens.unknown,
          `spt_contract_unknown_${crypto.randomUUID().replaceAll("-", "")}`,
        ];
        for (const token of unknown) {
          const request = ctx.request({ token });
          await refusedWith(() => ctx.charge(request), "invalid_token", `charge with unknown token ${token}`);
          await refusedWith(
            () => ctx.charge({ ...request }),
            "invalid_token",
            `a repeat with unknown token ${token}`,
          );
        }
      }),

    "a declined payment is refused with payment_declined, also on a repeat": run(async (ctx) => {
      const request = ctx.request({ token: ctx.tokens.declined });
      await refusedWith(() => ctx.charge(request), "payment_declined", "a declined payment");
      await refusedWith(
        () => ctx.charge({ ...request }),
        "payment_declined",
        "its repeat moves no money either",
      );
      const other = ctx.request({ amount_cents: 50, token: ctx.tokens.declined });
      await refusedWith(() => ctx.charge(other), "payment_declined", "a declined payment of 50 cents");
    }),

    "a payment that needs authentication is refused with requires_action, also on a repeat": run(
      async (ctx) => {
        const request = ctx.request({ token: ctx.tokens.requiresAction });
        await refusedWith(() => ctx.charge(request), "requires_action", "a payment that needs 3-D Secure");
        await refusedWith(
          () => ctx.charge({ ...request }),
          "requires_action",
          "its repeat moves no money either",
        );
      },
    ),

    "an amount that is not a positive integer or a currency other than usd is refused with invalid_request":
      run(async (ctx) => {
        for (const [what, terms] of BAD_TERMS) {
          const request = { ...ctx.request(), ...terms } as CheckoutCharge;
          await refusedWith(() => ctx.charge(request), "invalid_request", `charge with ${what}`);
        }
      }),

    "after a lost answer a retry under the same key answers the charge that happened": run(async (ctx) => {
      if (!ctx.faults) return; // not applicable: the provider cannot lose an answer on purpose
      const request = ctx.request();
      ctx.faults.loseAnswer();
      await refusedWith(() => ctx.charge(request), "provider_unavailable", "a charge whose answer is lost");
      await refusedWith(
        () => ctx.charge({ ...request, amount_cents: request.amount_cents + 1 }),
        "idempotency_conflict",
        "the key of the charge that happened, with another amount",
      );
      const retried = checkReceipt(await ctx.charge({ ...request }), request, "the retry");
      const again = await ctx.charge({ ...request });
      assert.deepEqual(gist(again), gist(retried), "every later retry answers the same charge");
    }),

    "after an unreachable provider a retry under the same key charges once": run(async (ctx) => {
      if (!ctx.faults) return; // not applicable: the provider cannot be made unreachable on purpose
      const request = ctx.request();
      ctx.faults.unreachable();
      await refusedWith(
        () => ctx.charge(request),
        "provider_unavailable",
        "a charge that cannot reach the provider",
      );
      const retried = checkReceipt(await ctx.charge({ ...request }), request, "the retry");
      const results = await Promise.all([ctx.charge({ ...request }), ctx.charge({ ...request })]);
      for (const result of results)
        assert.deepEqual(gist(result), gist(retried), "later retries answer one charge");
      await refusedWith(
        () => ctx.charge({ ...request, amount_cents: request.amount_cents + 1 }),
        "idempotency_conflict",
        "the key of the retried charge, with another amount",
      );
    }),

    "errors are CheckoutPaymentErrors that carry no token": run(async (ctx) => {
      const { tokens } = ctx;
      const secret = `tok_contract_secret_${crypto.randomUUID().replaceAll("-", "")}`;
      const unknown = `spt_contract_unknown_${crypto.randomUUID().replaceAll("-", "")}`;
      const paid = ctx.request();
      await ctx.charge(paid);
      const cases: Array<[string, CheckoutCharge, Parameters<typeof refusedWith>[1]]> = [
        ["a token that is no shared payment token", ctx.request({ token: secret }), "invalid_token"],
        ["an unknown token", ctx.request({ token: unknown }), "invalid_token"],
        ["the provider's unknown token", ctx.request({ token: tokens.unknown }), "invalid_token"],
        ["a declined payment", ctx.request({ token: tokens.declined }), "payment_declined"],
        ["a payment that needs 3-D Secure", ctx.request({ token: tokens.requiresAction }), "requires_action"],
        ["amount 0", ctx.request({ amount_cents: 0 }), "invalid_request"],
        ["currency eur", ctx.request({ currency: "eur" as "usd" }), "invalid_request"],
        ["a used key with another token", { ...paid, token: tokens.declined }, "idempotency_conflict"],
      ];
      for (const [what, request, code] of cases) {
        const error = await refusedWith(() => ctx.charge(request), code, what);
        assertSafeError(error, [request.token, tokens.ok, secret, unknown], what);
      }
      if (ctx.faults) {
        const lost = ctx.request();
        ctx.faults.loseAnswer();
        const error = await refusedWith(() => ctx.charge(lost), "provider_unavailable", "a lost answer");
        assertSafeError(error, [lost.token], "a lost answer");
        ctx.faults.unreachable();
        const down = ctx.request();
        const unreachable = await refusedWith(() => ctx.charge(down), "provider_unavailable", "no provider");
        assertSafeError(unreachable, [down.token], "an unreachable provider");
      }
    }),
  };

  return {
    name: `CheckoutPayments contract: ${options.name}`,
    tests: CHECKOUT_PAYMENTS_CONTRACT_NAMES.map((name) => ({ name, run: tests[name] })),
  };
}
