import { strict as assert } from "node:assert";
import {
  type CheckoutCharge,
  CheckoutPaymentError,
  type CheckoutPaymentErrorCode,
  type CheckoutPayments,
  type CheckoutReceipt,
  type SavedMethod,
  type SavedMethodCharge,
  type SaveMethodRequest,
} from "@mailpiece/ports";
import { kitTests, notApplicable, type Suite, type TestBody } from "../kit.ts";
import { noSecretAssertion, refusalAssertion, show } from "../refused-with.ts";
import { CHECKOUT_PAYMENTS_REQUIREMENTS } from "./checkout-payments-requirements.ts";

/** Every code of `CheckoutPaymentErrorCode`; a failure with any other code breaks the port. */
const CHECKOUT_PAYMENT_ERROR_CODES: readonly string[] = [
  "invalid_token",
  "payment_declined",
  "requires_action",
  "invalid_request",
  "idempotency_conflict",
  "provider_unavailable",
] satisfies CheckoutPaymentErrorCode[];

const refusedWith = refusalAssertion(CheckoutPaymentError);
/** Tokens shorter than 8 characters are not searched for in errors: they would match by chance. */
const assertSafeError = noSecretAssertion(CheckoutPaymentError, {
  codes: CHECKOUT_PAYMENT_ERROR_CODES,
  minLength: 8,
});

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
  "saveMethod answers a saved method under the given customer, or under a new one, that chargeSaved can charge",
  "a repeat of saveMethod under one key, also concurrent, answers the same method; other terms are idempotency_conflict",
  "saveMethod refuses tokens as charge does, and the refusal holds its key",
  "chargeSaved charges once per key, also for five concurrent calls, and a repeat answers the first receipt",
  "chargeSaved with other terms under a used key is refused with idempotency_conflict, changing nothing",
  "chargeSaved of a method or customer the provider does not know, or of another customer's method, is refused with invalid_token",
  "a saved card declined off-session is refused with payment_declined, also on a repeat",
  "saveMethod and chargeSaved refuse malformed requests with invalid_request",
  "after a lost answer or an unreachable provider a chargeSaved retry under the same key answers one charge",
  "saveMethod and chargeSaved errors carry no token",
] as const;

export type CheckoutPaymentsContractName = (typeof CHECKOUT_PAYMENTS_CONTRACT_NAMES)[number];

/** The tests of a lost answer and an unreachable provider: they answer not applicable for a context without `faults`. */
export const CHECKOUT_PAYMENTS_FAULT_TESTS: readonly CheckoutPaymentsContractName[] = [
  "after a lost answer a retry under the same key answers the charge that happened",
  "after an unreachable provider a retry under the same key charges once",
  "after a lost answer or an unreachable provider a chargeSaved retry under the same key answers one charge",
];

const NO_FAULTS =
  "no faults given (context.faults): the provider cannot be made to lose an answer or be unreachable on purpose";

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
  /** Can be saved (`saveMethod`), but every off-session charge of the saved method (`chargeSaved`) is declined. */
  declinesOffSession: string;
}

/**
 * Faults the test can inject into the next `charge` or `chargeSaved` of the provider, usually through the ledger or
 * the server it gave the adapter. Each affects the next charge only.
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
  /**
   * Optional: without it the tests of a lost answer and an unreachable provider (`CHECKOUT_PAYMENTS_FAULT_TESTS`)
   * answer not applicable, and the tests that no error carries a token check the other errors only.
   */
  faults?: CheckoutPaymentsContractFaults;
}

export interface CheckoutPaymentsContractOptions {
  /** Shown in reports, e.g. `test adapter on a memory ledger`. */
  name: string;
  /** Makes a provider and its tokens; called once per test. */
  create(): Promise<CheckoutPaymentsContractContext>;
  /** Releases what `create` opened. */
  dispose?(context: CheckoutPaymentsContractContext): void | Promise<void>;
  /** Tests that cannot apply to the adapter, left out of the suite; a name the kit does not have is refused. */
  disable?: readonly CheckoutPaymentsContractName[];
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

/** A reference no provider has made: `<prefix>_contract_unknown_<32 hex>`. */
const unknownReference = (prefix: string) =>
  `${prefix}_contract_unknown_${crypto.randomUUID().replaceAll("-", "")}`;

/** The receipt's fields that the port defines, for comparing two answers. */
const gist = (receipt: CheckoutReceipt) => ({
  reference: receipt.reference,
  amount_cents: receipt.amount_cents,
  currency: receipt.currency,
  paidAt: receipt.paidAt,
});

/** Asserts a receipt's shape and that it answers `request` (a charge, or an off-session charge without a token). */
function checkReceipt(
  receipt: CheckoutReceipt,
  request: { amount_cents: number; token?: string },
  what: string,
): CheckoutReceipt {
  assert.equal(typeof receipt?.reference, "string", `${what}: reference is a string`);
  assert.ok(
    /^\S+$/.test(receipt.reference),
    `${what}: reference ${show(receipt.reference)} is a non-empty word`,
  );
  if (request.token !== undefined) {
    assert.ok(!receipt.reference.includes(request.token), `${what}: the reference does not carry the token`);
  }
  assert.equal(receipt.amount_cents, request.amount_cents, `${what}: amount_cents is the amount charged`);
  assert.equal(receipt.currency, "usd", `${what}: currency is usd`);
  assert.ok(
    Number.isSafeInteger(receipt.paidAt) && receipt.paidAt > Date.UTC(2000, 0, 1),
    `${what}: paidAt ${show(receipt.paidAt)} is milliseconds since the epoch`,
  );
  return receipt;
}

/** The saved method's fields that the port defines, for comparing two answers. */
const methodGist = (method: SavedMethod) => ({
  customer: method.customer,
  reference: method.reference,
  brand: method.brand,
  last4: method.last4,
  exp_month: method.exp_month,
  exp_year: method.exp_year,
});

const isWord = (value: unknown): value is string => typeof value === "string" && /^\S+$/.test(value);

/** Asserts a saved method's shape, that it carries no token, and that it is under the customer the save named. */
function checkMethod(method: SavedMethod, request: SaveMethodRequest, what: string): SavedMethod {
  assert.ok(isWord(method?.customer), `${what}: customer ${show(method?.customer)} is a non-empty word`);
  assert.ok(isWord(method.reference), `${what}: reference ${show(method.reference)} is a non-empty word`);
  if (request.customer !== undefined) {
    assert.equal(method.customer, request.customer, `${what}: the method is saved under the customer given`);
  }
  const { brand, last4, exp_month: month, exp_year: year } = method;
  assert.ok(
    brand === null || (typeof brand === "string" && brand.length > 0 && brand === brand.toLowerCase()),
    `${what}: brand ${show(brand)} is null or a name in lower case`,
  );
  assert.ok(
    last4 === null || (typeof last4 === "string" && /^\d{4}$/.test(last4)),
    `${what}: last4 ${show(last4)} is null or four digits`,
  );
  assert.ok(
    month === null || (Number.isInteger(month) && month >= 1 && month <= 12),
    `${what}: exp_month ${show(month)} is null or 1 to 12`,
  );
  assert.ok(
    year === null || (Number.isInteger(year) && year >= 2000),
    `${what}: exp_year ${show(year)} is null or a year`,
  );
  if (typeof request.token === "string" && request.token.length > 0) {
    const carries = JSON.stringify(method).includes(request.token);
    assert.ok(!carries, `${what}: the saved method does not carry the token`);
  }
  return method;
}

/** Off-session charges the port refuses with invalid_request, besides BAD_TERMS. */
const BAD_SAVED_CHARGES: ReadonlyArray<[string, Partial<Record<keyof SavedMethodCharge, unknown>>]> = [
  ["no customer", { customer: undefined }],
  ["a customer that is no provider reference", { customer: "cus 1" }],
  ["no payment method", { payment_method: undefined }],
  ["a payment method that is no provider reference", { payment_method: "pm/1" }],
  ["an empty idempotency key", { idempotency_key: "" }],
  ["an idempotency key of 256 characters", { idempotency_key: "k".repeat(256) }],
  ["metadata that are not strings", { metadata: { refill: 1 } }],
];

/** Saves the port refuses with invalid_request. */
const BAD_SAVES: ReadonlyArray<[string, Partial<Record<keyof SaveMethodRequest, unknown>>]> = [
  ["a customer that is no provider reference", { customer: "cus 1" }],
  ["an empty customer", { customer: "" }],
  ["an empty idempotency key", { idempotency_key: "" }],
  ["an idempotency key of 256 characters", { idempotency_key: "k".repeat(256) }],
  ["a description that is not a string", { description: 42 }],
  ["metadata that are not strings", { metadata: { workspace: 1 } }],
];

/**
 * The CheckoutPayments contract (adapters/ports/src/checkout-payments.ts) as a suite: one named test per MUST
 * sentence. Every charge uses a fresh idempotency key unless the test is about keys, so one provider may serve every
 * test. The fault tests need `faults`; without them they answer not applicable.
 */
export function checkoutPaymentsContract(
  options: CheckoutPaymentsContractOptions,
): Suite<CheckoutPaymentsContractName> {
  interface Ctx extends CheckoutPaymentsContractContext {
    charge(request: CheckoutCharge): Promise<CheckoutReceipt>;
    request(overrides?: Partial<CheckoutCharge>): CheckoutCharge;
    save(request: SaveMethodRequest): Promise<SavedMethod>;
    /** A save under a fresh key, by default of the paying token under a new customer. */
    saveRequest(overrides?: Partial<SaveMethodRequest>): SaveMethodRequest;
    /** Saves and checks a method (`saveRequest(overrides)`). */
    saved(overrides?: Partial<SaveMethodRequest>): Promise<SavedMethod>;
    chargeSaved(request: SavedMethodCharge): Promise<CheckoutReceipt>;
    /** An off-session charge of `method` under its customer and a fresh key. */
    savedCharge(method: SavedMethod, overrides?: Partial<SavedMethodCharge>): SavedMethodCharge;
  }

  const run =
    (body: (ctx: Ctx) => ReturnType<TestBody>): TestBody =>
    async () => {
      const context = await options.create();
      try {
        let order = 0;
        const saveRequest = (overrides: Partial<SaveMethodRequest> = {}): SaveMethodRequest => {
          order += 1;
          return {
            token: context.tokens.ok,
            description: `Contract workspace ${order}`,
            idempotency_key: newKey(),
            metadata: { workspace_id: `contract-workspace-${order}` },
            ...overrides,
          };
        };
        return await body({
          ...context,
          charge: (request) => context.payments.charge(request),
          save: (request) => context.payments.saveMethod(request),
          saveRequest,
          async saved(overrides) {
            const request = saveRequest(overrides);
            return checkMethod(await context.payments.saveMethod(request), request, "a save");
          },
          chargeSaved: (request) => context.payments.chargeSaved(request),
          savedCharge(method, overrides = {}) {
            order += 1;
            return {
              customer: method.customer,
              payment_method: method.reference,
              amount_cents: AMOUNT,
              currency: "usd",
              description: "Prepaid credits, refilled automatically",
              idempotency_key: newKey(),
              metadata: { refill_id: `contract-refill-${order}` },
              ...overrides,
            };
          },
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

  const tests: Record<CheckoutPaymentsContractName, TestBody> = {
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
      if (!ctx.faults) return notApplicable(NO_FAULTS);
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
      if (!ctx.faults) return notApplicable(NO_FAULTS);
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

    "saveMethod answers a saved method under the given customer, or under a new one, that chargeSaved can charge":
      run(async (ctx) => {
        const first = ctx.saveRequest();
        const made = checkMethod(await ctx.save(first), first, "a save without a customer");
        const second = ctx.saveRequest({ customer: made.customer });
        const under = checkMethod(await ctx.save(second), second, "a save under the customer of the first");
        assert.notEqual(under.reference, made.reference, "each save under its own key saves its own method");
        const third = ctx.saveRequest({ idempotency_key: `contract-${"k".repeat(246)}` });
        const another = checkMethod(await ctx.save(third), third, "a save under a key of 255 characters");
        assert.notEqual(another.customer, made.customer, "a save without a customer makes a new customer");
        const bare = ctx.saveRequest({ customer: made.customer });
        delete bare.metadata;
        checkMethod(await ctx.save(bare), bare, "a save without metadata");
        const methods: Array<[string, SavedMethod]> = [
          ["the method saved under a new customer", made],
          ["the method saved under a given customer", under],
          ["the method saved under a key of 255 characters", another],
        ];
        for (const [what, method] of methods) {
          const request = ctx.savedCharge(method, { amount_cents: 50 });
          checkReceipt(await ctx.chargeSaved(request), request, `an off-session charge of ${what}`);
        }
      }),

    "a repeat of saveMethod under one key, also concurrent, answers the same method; other terms are idempotency_conflict":
      run(async (ctx) => {
        const owner = await ctx.saved();
        const stranger = await ctx.saved();
        for (const customer of [owner.customer, undefined]) {
          const whose = customer === undefined ? "without a customer" : "under a given customer";
          const request = ctx.saveRequest(customer === undefined ? {} : { customer });
          const first = checkMethod(await ctx.save(request), request, `the first save ${whose}`);
          for (let i = 1; i <= 2; i++) {
            const again = checkMethod(await ctx.save({ ...request }), request, `repeat #${i} ${whose}`);
            assert.deepEqual(
              methodGist(again),
              methodGist(first),
              `repeat #${i} ${whose} answers the first method`,
            );
          }
          const others: Array<[string, SaveMethodRequest]> = [
            ["another token", { ...request, token: ctx.tokens.declinesOffSession }],
            ["a declined token", { ...request, token: ctx.tokens.declined }],
            ["another customer", { ...request, customer: stranger.customer }],
          ];
          for (const [what, other] of others) {
            await refusedWith(
              () => ctx.save(other),
              "idempotency_conflict",
              `the key of a save ${whose}, with ${what}`,
            );
          }
          const later = await ctx.save({ ...request });
          assert.deepEqual(
            methodGist(later),
            methodGist(first),
            `the key of the save ${whose} still answers its method`,
          );

          const concurrent = ctx.saveRequest(customer === undefined ? {} : { customer });
          const methods = await Promise.all(Array.from({ length: 5 }, () => ctx.save({ ...concurrent })));
          const references = new Set(
            methods.map((m) => checkMethod(m, concurrent, "a concurrent save").reference),
          );
          assert.equal(
            references.size,
            1,
            `five concurrent saves ${whose} answer ${references.size} methods`,
          );
          const customers = new Set(methods.map((m) => m.customer));
          assert.equal(
            customers.size,
            1,
            `five concurrent saves ${whose} answer ${customers.size} customers`,
          );
          assert.deepEqual(
            methodGist(await ctx.save({ ...concurrent })),
            methodGist(methods[0] as SavedMethod),
            `a later repeat of the concurrent saves ${whose} agrees`,
          );
        }
      }),

    "saveMethod refuses tokens as charge does, and the refusal holds its key": run(async (ctx) => {
      for (const token of notTokens(ctx.tokens.ok)) {
        const request = ctx.saveRequest({ token: token as string });
        await refusedWith(() => ctx.save(request), "invalid_token", `save of token ${show(token)}`);
      }
      for (const token of [ctx.tokens.unknown, unknownReference("spt")]) {
        const request = ctx.saveRequest({ token });
        await refusedWith(() => ctx.save(request), "invalid_token", `save of unknown token ${token}`);
        await refusedWith(
          () => ctx.save({ ...request }),
          "invalid_token",
          `a repeat with unknown token ${token}`,
        );
      }
      const owner = await ctx.saved();
      const refusals: Array<[string, string, "payment_declined" | "requires_action"]> = [
        ["a declined card", ctx.tokens.declined, "payment_declined"],
        ["a card that needs 3-D Secure", ctx.tokens.requiresAction, "requires_action"],
      ];
      for (const [what, token, code] of refusals) {
        for (const customer of [undefined, owner.customer]) {
          const whose = customer === undefined ? "without a customer" : "under a given customer";
          const request = ctx.saveRequest(customer === undefined ? { token } : { token, customer });
          await refusedWith(() => ctx.save(request), code, `save of ${what} ${whose}`);
          await refusedWith(() => ctx.save({ ...request }), code, `a repeat of the save of ${what} ${whose}`);
          await refusedWith(
            () => ctx.save({ ...request, token: ctx.tokens.ok }),
            "idempotency_conflict",
            `the key of the refused save of ${what} ${whose}, with the paying token: nothing was saved under it`,
          );
        }
      }
    }),

    "chargeSaved charges once per key, also for five concurrent calls, and a repeat answers the first receipt":
      run(async (ctx) => {
        const method = await ctx.saved();
        const request = ctx.savedCharge(method);
        const first = checkReceipt(await ctx.chargeSaved(request), request, "the first off-session charge");
        const references = new Set([first.reference]);
        for (let i = 1; i <= 2; i++) {
          const again = checkReceipt(await ctx.chargeSaved({ ...request }), request, `repeat #${i}`);
          assert.deepEqual(gist(again), gist(first), `repeat #${i} answers the first receipt`);
          const other = ctx.savedCharge(method);
          const between = checkReceipt(
            await ctx.chargeSaved(other),
            other,
            `a charge under another key #${i}`,
          );
          references.add(between.reference);
        }
        assert.equal(references.size, 3, "each key has its own charge and reference");
        for (let round = 1; round <= 2; round++) {
          const concurrent = ctx.savedCharge(method, { amount_cents: AMOUNT + round });
          const receipts = await Promise.all(
            Array.from({ length: 5 }, () => ctx.chargeSaved({ ...concurrent })),
          );
          const answered = new Set(
            receipts.map((receipt) => checkReceipt(receipt, concurrent, "a concurrent call").reference),
          );
          assert.equal(
            answered.size,
            1,
            `round ${round}: five concurrent calls answer ${answered.size} references`,
          );
          const later = await ctx.chargeSaved({ ...concurrent });
          assert.deepEqual(
            gist(later),
            gist(receipts[0] as CheckoutReceipt),
            `round ${round}: a later repeat agrees`,
          );
        }
      }),

    "chargeSaved with other terms under a used key is refused with idempotency_conflict, changing nothing":
      run(async (ctx) => {
        const method = await ctx.saved();
        const sibling = await ctx.saved({ customer: method.customer });
        const stranger = await ctx.saved();
        const request = ctx.savedCharge(method);
        const first = checkReceipt(await ctx.chargeSaved(request), request, "the first off-session charge");
        const others: Array<[string, SavedMethodCharge]> = [
          ["another amount", { ...request, amount_cents: request.amount_cents + 1 }],
          ["a much larger amount", { ...request, amount_cents: request.amount_cents * 100 }],
          ["another method of the customer", { ...request, payment_method: sibling.reference }],
          [
            "another customer and method",
            { ...request, customer: stranger.customer, payment_method: stranger.reference },
          ],
        ];
        for (const [what, other] of others) {
          await refusedWith(
            () => ctx.chargeSaved(other),
            "idempotency_conflict",
            `the same key with ${what}`,
          );
        }
        const again = await ctx.chargeSaved({ ...request });
        assert.deepEqual(gist(again), gist(first), "the key still answers the first receipt");
        const declining = await ctx.saved({ token: ctx.tokens.declinesOffSession });
        const refused = ctx.savedCharge(declining);
        await refusedWith(() => ctx.chargeSaved(refused), "payment_declined", "an off-session decline");
        await refusedWith(
          () => ctx.chargeSaved({ ...refused, amount_cents: refused.amount_cents + 1 }),
          "idempotency_conflict",
          "the key of an off-session decline with another amount",
        );
      }),

    "chargeSaved of a method or customer the provider does not know, or of another customer's method, is refused with invalid_token":
      run(async (ctx) => {
        const method = await ctx.saved();
        const stranger = await ctx.saved();
        const cases: Array<[string, SavedMethodCharge]> = [
          ["an unknown method", ctx.savedCharge(method, { payment_method: unknownReference("pm") })],
          ["an unknown customer", ctx.savedCharge(method, { customer: unknownReference("cus") })],
          ["the method under another customer", ctx.savedCharge(method, { customer: stranger.customer })],
          ["another customer's method", ctx.savedCharge(method, { payment_method: stranger.reference })],
        ];
        for (const [what, request] of cases) {
          await refusedWith(
            () => ctx.chargeSaved(request),
            "invalid_token",
            `an off-session charge of ${what}`,
          );
          await refusedWith(() => ctx.chargeSaved({ ...request }), "invalid_token", `a repeat with ${what}`);
        }
        for (const [what, saved] of [
          ["the method", method],
          ["the other customer's method", stranger],
        ] as const) {
          const request = ctx.savedCharge(saved);
          checkReceipt(await ctx.chargeSaved(request), request, `${what} under its own customer`);
        }
      }),

    "a saved card declined off-session is refused with payment_declined, also on a repeat": run(
      async (ctx) => {
        const method = await ctx.saved({ token: ctx.tokens.declinesOffSession });
        const request = ctx.savedCharge(method);
        await refusedWith(() => ctx.chargeSaved(request), "payment_declined", "an off-session decline");
        await refusedWith(
          () => ctx.chargeSaved({ ...request }),
          "payment_declined",
          "its repeat moves no money either",
        );
        const small = ctx.savedCharge(method, { amount_cents: 50 });
        await refusedWith(
          () => ctx.chargeSaved(small),
          "payment_declined",
          "an off-session decline of 50 cents",
        );
        const other = await ctx.saved({ customer: method.customer });
        const paying = ctx.savedCharge(other);
        checkReceipt(await ctx.chargeSaved(paying), paying, "another method of the same customer");
      },
    ),

    "saveMethod and chargeSaved refuse malformed requests with invalid_request": run(async (ctx) => {
      for (const [what, terms] of BAD_SAVES) {
        const request = { ...ctx.saveRequest(), ...terms } as SaveMethodRequest;
        await refusedWith(() => ctx.save(request), "invalid_request", `save with ${what}`);
      }
      const method = await ctx.saved();
      for (const [what, terms] of [...BAD_TERMS, ...BAD_SAVED_CHARGES]) {
        const request = { ...ctx.savedCharge(method), ...terms } as SavedMethodCharge;
        await refusedWith(
          () => ctx.chargeSaved(request),
          "invalid_request",
          `off-session charge with ${what}`,
        );
      }
    }),

    "after a lost answer or an unreachable provider a chargeSaved retry under the same key answers one charge":
      run(async (ctx) => {
        if (!ctx.faults) return notApplicable(NO_FAULTS);
        const method = await ctx.saved();
        const request = ctx.savedCharge(method);
        ctx.faults.loseAnswer();
        await refusedWith(
          () => ctx.chargeSaved(request),
          "provider_unavailable",
          "an off-session charge whose answer is lost",
        );
        await refusedWith(
          () => ctx.chargeSaved({ ...request, amount_cents: request.amount_cents + 1 }),
          "idempotency_conflict",
          "the key of the charge that happened, with another amount",
        );
        const retried = checkReceipt(await ctx.chargeSaved({ ...request }), request, "the retry");
        const again = await ctx.chargeSaved({ ...request });
        assert.deepEqual(gist(again), gist(retried), "every later retry answers the same charge");

        const down = ctx.savedCharge(method);
        ctx.faults.unreachable();
        await refusedWith(
          () => ctx.chargeSaved(down),
          "provider_unavailable",
          "an off-session charge that cannot reach the provider",
        );
        const charged = checkReceipt(await ctx.chargeSaved({ ...down }), down, "the retry after no provider");
        const results = await Promise.all([ctx.chargeSaved({ ...down }), ctx.chargeSaved({ ...down })]);
        for (const result of results)
          assert.deepEqual(gist(result), gist(charged), "later retries answer one charge");
        assert.notEqual(charged.reference, retried.reference, "the two keys made two charges");
      }),

    "saveMethod and chargeSaved errors carry no token": run(async (ctx) => {
      const { tokens } = ctx;
      const secret = `tok_contract_secret_${crypto.randomUUID().replaceAll("-", "")}`;
      const unknown = unknownReference("spt");
      const everyToken = [
        tokens.ok,
        tokens.declined,
        tokens.requiresAction,
        tokens.declinesOffSession,
        secret,
        unknown,
      ];
      const used = ctx.saveRequest();
      const method = checkMethod(await ctx.save(used), used, "a save");
      const saves: Array<[string, SaveMethodRequest, Parameters<typeof refusedWith>[1]]> = [
        ["a token that is no shared payment token", ctx.saveRequest({ token: secret }), "invalid_token"],
        ["an unknown token", ctx.saveRequest({ token: unknown }), "invalid_token"],
        ["the provider's unknown token", ctx.saveRequest({ token: tokens.unknown }), "invalid_token"],
        ["a declined card", ctx.saveRequest({ token: tokens.declined }), "payment_declined"],
        [
          "a card that needs 3-D Secure",
          ctx.saveRequest({ token: tokens.requiresAction }),
          "requires_action",
        ],
        [
          "a used key with another token",
          { ...used, token: tokens.declinesOffSession },
          "idempotency_conflict",
        ],
        ["a malformed customer", ctx.saveRequest({ customer: "cus 1" }), "invalid_request"],
      ];
      for (const [what, request, code] of saves) {
        const error = await refusedWith(() => ctx.save(request), code, `save of ${what}`);
        assertSafeError(error, everyToken, `save of ${what}`);
      }
      const declining = await ctx.saved({ token: tokens.declinesOffSession });
      const paid = ctx.savedCharge(method);
      await ctx.chargeSaved(paid);
      const charges: Array<[string, SavedMethodCharge, Parameters<typeof refusedWith>[1]]> = [
        [
          "an unknown method",
          ctx.savedCharge(method, { payment_method: unknownReference("pm") }),
          "invalid_token",
        ],
        ["a card declined off-session", ctx.savedCharge(declining), "payment_declined"],
        [
          "a used key with another amount",
          { ...paid, amount_cents: paid.amount_cents + 1 },
          "idempotency_conflict",
        ],
        ["amount 0", ctx.savedCharge(method, { amount_cents: 0 }), "invalid_request"],
      ];
      for (const [what, request, code] of charges) {
        const error = await refusedWith(
          () => ctx.chargeSaved(request),
          code,
          `off-session charge of ${what}`,
        );
        assertSafeError(error, everyToken, `off-session charge of ${what}`);
      }
      if (ctx.faults) {
        ctx.faults.loseAnswer();
        const lost = await refusedWith(
          () => ctx.chargeSaved(ctx.savedCharge(method)),
          "provider_unavailable",
          "a lost answer",
        );
        assertSafeError(lost, everyToken, "a lost answer of an off-session charge");
        ctx.faults.unreachable();
        const down = await refusedWith(
          () => ctx.chargeSaved(ctx.savedCharge(declining)),
          "provider_unavailable",
          "no provider",
        );
        assertSafeError(down, everyToken, "an unreachable provider for an off-session charge");
      }
    }),
  };

  return {
    name: `CheckoutPayments contract: ${options.name}`,
    tests: kitTests(CHECKOUT_PAYMENTS_CONTRACT_NAMES, tests, CHECKOUT_PAYMENTS_REQUIREMENTS, options.disable),
  };
}
