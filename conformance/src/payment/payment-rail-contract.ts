import { strict as assert } from "node:assert";
import {
  type Charge,
  type PaymentChallenge,
  type PaymentConfirmation,
  type PaymentCredential,
  PaymentError,
  type PaymentRail,
  type PaymentToConfirm,
  type Settlement,
  type VerifiedPayment,
} from "@mailpiece/ports";
import { kitTests, notApplicable, type Suite, type TestBody } from "../kit.ts";
import { refusalAssertion, show } from "../refused-with.ts";
import { PAYMENT_RAIL_REQUIREMENTS } from "./payment-rail-requirements.ts";

/** One fresh rail with the hooks the suite needs to reach every branch of the contract. */
export interface PaymentRailContext {
  rail: PaymentRail;
  /** Pays a challenge as a client would: the request headers carrying a valid credential for it. */
  pay(challenge: PaymentChallenge, charge: Charge): Promise<Headers>;
  /** Changes what a paid credential pays (amount, payee or network) while keeping it decodable. */
  tamper(headers: Headers): Headers;
  /** Keeps the terms of a paid credential but breaks its signature or binding. */
  forge(headers: Headers): Headers;
  /** Moves time past the validity of every credential paid so far (for example by advancing the rail's clock). */
  expire(): void | Promise<void>;
  /** Makes later settlements not final yet (for example a transaction that is broadcast but not confirmed). */
  holdSettlement(): void | Promise<void>;
  /** Removes what the protocol requires to be fresh in a challenge (an MPP challenge id and expiry). */
  normalizeChallenge?(challenge: PaymentChallenge): unknown;
  /**
   * A second rail with the same configuration and the same backing services (the chain or facilitator ledger, the
   * charge ledger), as another process would build it. `confirm` from it must agree with `rail`'s. Without it, the test
   * of confirm across instances answers not applicable, and the fault tests ask this rail only.
   */
  another?(): PaymentRail | Promise<PaymentRail>;
  /**
   * Fault injection around the rail's facilitator or ledger, for the tests of lost and failed settlements
   * (`PAYMENT_RAIL_FAULT_TESTS`); without it they answer not applicable.
   */
  faults?: PaymentRailFaults;
  dispose?(): void | Promise<void>;
}

/**
 * Faults an adapter's test can inject into the next `settle` of its rail, usually by wrapping the facilitator or
 * ledger it gave the rail. Each affects the next settle only.
 */
export interface PaymentRailFaults {
  /** The next settle moves the money, then its answer is lost: it throws, as after a timeout or a crash. */
  loseAnswerAfterTransfer(): void | Promise<void>;
  /** The next settle fails before any money moves: it throws, as when the provider cannot be reached. */
  failBeforeTransfer(): void | Promise<void>;
}

export interface PaymentRailContractOptions {
  /** Shown in reports, e.g. `x402 (local facilitator)`. */
  name: string;
  /** Makes a fresh, independent rail and its hooks; called once per test, disposed when the test ends. */
  create(): Promise<PaymentRailContext>;
  /** Tests that cannot apply to the adapter, left out of the suite; a name the kit does not have is refused. */
  disable?: readonly PaymentRailContractName[];
}

/** The names of the PaymentRail contract tests, one per MUST sentence of the port. Skip lists are typed by it. */
export const PAYMENT_RAIL_CONTRACT_NAMES = [
  "challenge is deterministic for one charge",
  "readCredential returns undefined when the request carries no credential",
  "readCredential refuses an undecodable credential with malformed_credential",
  "verify refuses a credential for another amount with payment_mismatch",
  "verify refuses a credential for another resource with payment_mismatch",
  "verify refuses a tampered credential with payment_mismatch or invalid_challenge",
  "verify refuses an expired credential with payment_expired",
  "verify refuses a credential whose signature or binding does not check with verification_failed or invalid_challenge",
  "verify moves no money",
  "verify returns one replayKey for every copy of a credential and another for another payment",
  "settle reports a final settlement as settled with a reference",
  "settle reports pending, never success, when the outcome is not final",
  "settle moves the funds of one credential at most once",
  "receipt headers exist for settled and pending settlements",
  "parseCredential reads the credentialHeader value as readCredential reads the request",
  "verified details survive a JSON round trip",
  "confirm answers settled with the settlement's reference after a settle",
  "confirm never answers settled for a payment that was never settled",
  "confirm moves no money",
  "confirm answers alike when called concurrently and from another rail instance",
  "confirm answers settled when settle lost its answer after the money moved",
  "confirm never answers settled when settle failed before the money moved",
] as const;

export type PaymentRailContractName = (typeof PAYMENT_RAIL_CONTRACT_NAMES)[number];

/** The tests of lost and failed settlements: they answer not applicable for a context without `faults`. */
export const PAYMENT_RAIL_FAULT_TESTS: readonly PaymentRailContractName[] = [
  "confirm answers settled when settle lost its answer after the money moved",
  "confirm never answers settled when settle failed before the money moved",
];

const NO_FAULTS =
  "no faults given (context.faults): the rail's settle cannot be made to lose its answer or fail on purpose";

/** The tests of `confirm` and of what only confirm can reconcile: they answer not applicable for a rail without it. */
export const PAYMENT_RAIL_CONFIRM_TESTS: readonly PaymentRailContractName[] =
  PAYMENT_RAIL_CONTRACT_NAMES.filter(
    (name) =>
      name.startsWith("confirm ") ||
      name === "settle reports pending, never success, when the outcome is not final",
  );

const NO_CONFIRM = "the rail has no confirm: its settle is always final";
const NO_ANOTHER =
  "no second rail instance given (context.another): confirm cannot be checked across instances";

let orderSequence = 0;

function chargeFixture(overrides: Partial<Charge> = {}): Charge {
  orderSequence += 1;
  return {
    amount_cents: 340,
    currency: "usd",
    resource_url: "https://mailpiece.example/api/machine/orders",
    description: "One letter, printed and posted by US First-Class Mail",
    order_ref: `contract-order-${orderSequence}`,
    ...overrides,
  };
}

/** Asserts a refusal with a `PaymentError` of the code, or of one of the codes. */
const refusedWith = refusalAssertion(PaymentError);

/** What the core stores and reads back: plain JSON. */
function roundTrip<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}

/** The question the core asks `confirm`, with the details read back from its store. */
function question(payment: VerifiedPayment, startedAt: number, reference?: string): PaymentToConfirm {
  return {
    replayKey: payment.replayKey,
    amount_cents: payment.amount_cents,
    details: roundTrip(payment.details),
    startedAt,
    ...(reference !== undefined ? { reference } : {}),
  };
}

function confirmOf(rail: PaymentRail): NonNullable<PaymentRail["confirm"]> {
  const confirm = rail.confirm;
  assert.ok(
    confirm,
    "the rail implements confirm (skip the confirm tests for a rail whose settle is always final)",
  );
  return confirm.bind(rail);
}

/** Asserts a confirm answer is a full settled Settlement for `payment` whose receipt headers can be made. */
function assertSettled(
  rail: PaymentRail,
  answer: PaymentConfirmation,
  payment: VerifiedPayment,
  what: string,
): Settlement {
  assert.equal(answer.status, "settled", `${what}: confirm answers settled, got ${show(answer)}`);
  const settlement = answer as Settlement;
  assert.equal(settlement.protocol, rail.protocol, `${what}: the settlement names the rail's protocol`);
  assert.equal(typeof settlement.reference, "string");
  assert.ok(settlement.reference.length > 0, `${what}: the settlement names its reference`);
  assert.equal(
    settlement.amount_cents,
    payment.amount_cents,
    `${what}: the settlement is for the payment's amount`,
  );
  assert.ok(Number.isFinite(settlement.settledAt), `${what}: settledAt is a time`);
  const headers = rail.receiptHeaders(settlement);
  assert.ok(Object.keys(headers).length > 0, `${what}: a confirmed settlement has receipt headers`);
  return settlement;
}

/** Asserts a confirm answer is not settled; a failed answer says why with a code and a message. */
function assertNotSettled(answer: PaymentConfirmation, what: string): void {
  assert.ok(
    answer.status === "pending" || answer.status === "failed",
    `${what}: confirm answers pending or failed, got ${show(answer)}`,
  );
  if (answer.status === "failed") {
    const failed = answer as { code: unknown; message: unknown };
    assert.equal(typeof failed.code, "string", `${what}: a failed answer has a code`);
    assert.ok(typeof failed.message === "string" && failed.message.length > 0, `${what}: and a message`);
  }
}

/** The same answer, for comparing answers of several calls (settledAt may be read from different clocks). */
function gist(answer: PaymentConfirmation): unknown {
  if (answer.status === "pending") return { status: "pending" };
  if (answer.status === "failed") return { status: "failed", code: (answer as { code: unknown }).code };
  const s = answer as Settlement;
  return { status: s.status, protocol: s.protocol, reference: s.reference, amount_cents: s.amount_cents };
}

/** Runs a settle that is made to fail and asserts it reports no settlement. */
async function settleFails(rail: PaymentRail, payment: VerifiedPayment, charge: Charge, what: string) {
  let outcome: unknown;
  try {
    outcome = await rail.settle(payment, charge);
  } catch {
    return;
  }
  assert.fail(`${what}: settle was made to fail, but it answered ${show(outcome)}`);
}

async function credentialOf(rail: PaymentRail, headers: Headers): Promise<PaymentCredential> {
  const credential = await rail.readCredential(headers);
  assert.ok(credential, "the rail reads the credential its client sent");
  assert.equal(credential.protocol, rail.protocol, "the credential names the rail's protocol");
  return credential;
}

/**
 * The PaymentRail contract (adapters/ports/src/payment-rail.ts) as a suite: one named test per MUST sentence.
 * `create` is called once per test and must return an independent rail (fresh clock, nonces and settlements). The
 * tests of lost and failed settlements answer not applicable for a context without `faults`.
 */
export function paymentRailContract(factory: PaymentRailContractOptions): Suite<PaymentRailContractName> {
  const run =
    (body: (ctx: PaymentRailContext) => ReturnType<TestBody>): TestBody =>
    async () => {
      const ctx = await factory.create();
      return body(ctx).finally(() => ctx.dispose?.());
    };

  /** Challenges, pays and verifies one charge. */
  async function paidAndVerified(ctx: PaymentRailContext, charge: Charge) {
    const headers = await ctx.pay(await ctx.rail.challenge(charge), charge);
    const payment = await ctx.rail.verify(await credentialOf(ctx.rail, headers), charge);
    return { headers, payment };
  }

  const tests: Record<PaymentRailContractName, TestBody> = {
    "challenge is deterministic for one charge": run(async ({ rail, normalizeChallenge }) => {
      const charge = chargeFixture();
      const normalize = normalizeChallenge ?? ((c: PaymentChallenge) => c);
      const first = await rail.challenge(charge);
      const second = await rail.challenge({ ...charge });
      assert.equal(first.status, 402);
      assert.equal(typeof first.contentType, "string");
      assert.ok(Object.keys(first.headers).length > 0, "a challenge carries headers");
      assert.deepEqual(normalize(second), normalize(first), "two challenges for one charge are the same");
      const other = await rail.challenge({ ...charge, amount_cents: charge.amount_cents + 1 });
      assert.notDeepEqual(normalize(other), normalize(first), "another amount gives another challenge");
    }),

    "readCredential returns undefined when the request carries no credential": run(async ({ rail }) => {
      assert.equal(typeof rail.credentialHeader, "string");
      assert.ok(rail.credentialHeader.length > 0, "the rail names its credential header");
      assert.equal(
        rail.credentialHeader,
        rail.credentialHeader.toLowerCase(),
        "the header name is lower-case",
      );
      assert.equal(await rail.readCredential(new Headers()), undefined);
      const unrelated = new Headers({
        "content-type": "application/json",
        accept: "application/json",
        "idempotency-key": "3f0c6a1e-0000-4000-8000-000000000000",
      });
      assert.equal(await rail.readCredential(unrelated), undefined);
    }),

    "readCredential refuses an undecodable credential with malformed_credential": run(async (ctx) => {
      const charge = chargeFixture();
      const paid = await ctx.pay(await ctx.rail.challenge(charge), charge);
      const truncated = new Headers();
      const garbled = new Headers();
      for (const [name, value] of paid) {
        truncated.set(name, `${value.slice(0, Math.ceil(value.length / 2))}!*`);
        garbled.set(name, `${value.split(" ")[0] ?? ""} %%%not-a-credential%%%`);
      }
      await refusedWith(
        () => ctx.rail.readCredential(truncated),
        "malformed_credential",
        "a truncated credential",
      );
      await refusedWith(
        () => ctx.rail.readCredential(garbled),
        "malformed_credential",
        "a garbled credential",
      );
      for (const [what, headers] of [
        ["a truncated credential value", truncated],
        ["a garbled credential value", garbled],
      ] as const) {
        const value = headers.get(ctx.rail.credentialHeader);
        assert.ok(value !== null, `the paid request carries the ${ctx.rail.credentialHeader} header`);
        await refusedWith(() => ctx.rail.parseCredential(value), "malformed_credential", what);
      }
    }),

    "verify refuses a credential for another amount with payment_mismatch": run(async (ctx) => {
      const charge = chargeFixture();
      const headers = await ctx.pay(await ctx.rail.challenge(charge), charge);
      const dearer = { ...charge, amount_cents: charge.amount_cents + 100 };
      const cheaper = { ...charge, amount_cents: charge.amount_cents - 1 };
      for (const other of [dearer, cheaper]) {
        await refusedWith(
          async () => ctx.rail.verify(await credentialOf(ctx.rail, headers), other),
          "payment_mismatch",
          `a ${charge.amount_cents}-cent credential for a ${other.amount_cents}-cent charge`,
        );
      }
    }),

    "verify refuses a credential for another resource with payment_mismatch": run(async (ctx) => {
      const charge = chargeFixture();
      const headers = await ctx.pay(await ctx.rail.challenge(charge), charge);
      const elsewhere = { ...charge, resource_url: "https://mailpiece.example/api/machine/flower-letters" };
      await refusedWith(
        async () => ctx.rail.verify(await credentialOf(ctx.rail, headers), elsewhere),
        "payment_mismatch",
        "a credential for another resource",
      );
    }),

    "verify refuses a tampered credential with payment_mismatch or invalid_challenge": run(async (ctx) => {
      const charge = chargeFixture();
      const headers = await ctx.pay(await ctx.rail.challenge(charge), charge);
      const tampered = ctx.tamper(headers);
      await refusedWith(
        async () => ctx.rail.verify(await credentialOf(ctx.rail, tampered), charge),
        // A protocol that binds the terms into the challenge (MPP's HMAC id) sees a broken binding instead.
        ["payment_mismatch", "invalid_challenge"],
        "a tampered credential",
      );
    }),

    "verify refuses an expired credential with payment_expired": run(async (ctx) => {
      const charge = chargeFixture();
      const headers = await ctx.pay(await ctx.rail.challenge(charge), charge);
      await ctx.expire();
      await refusedWith(
        async () => ctx.rail.verify(await credentialOf(ctx.rail, headers), charge),
        "payment_expired",
        "an expired credential",
      );
    }),

    "verify refuses a credential whose signature or binding does not check with verification_failed or invalid_challenge":
      run(async (ctx) => {
        const charge = chargeFixture();
        const headers = await ctx.pay(await ctx.rail.challenge(charge), charge);
        await refusedWith(
          async () => ctx.rail.verify(await credentialOf(ctx.rail, ctx.forge(headers)), charge),
          ["verification_failed", "invalid_challenge"],
          "a forged credential",
        );
      }),

    "verify moves no money": run(async (ctx) => {
      const charge = chargeFixture();
      const { headers, payment } = await paidAndVerified(ctx, charge);
      await refusedWith(
        async () => ctx.rail.verify(await credentialOf(ctx.rail, ctx.tamper(headers)), charge),
        ["payment_mismatch", "invalid_challenge"],
        "a tampered copy",
      );
      await refusedWith(
        async () => ctx.rail.verify(await credentialOf(ctx.rail, ctx.forge(headers)), charge),
        ["verification_failed", "invalid_challenge"],
        "a forged copy",
      );
      const again = await ctx.rail.verify(await credentialOf(ctx.rail, headers), charge);
      assert.equal(again.replayKey, payment.replayKey, "verifying twice spends nothing");
      const settlement = await ctx.rail.settle(again, charge);
      assert.equal(
        settlement.status,
        "settled",
        "the funds were still there to settle after three verifications",
      );
    }),

    "verify returns one replayKey for every copy of a credential and another for another payment": run(
      async (ctx) => {
        const charge = chargeFixture();
        const challenge = await ctx.rail.challenge(charge);
        const headers = await ctx.pay(challenge, charge);
        const copy = new Headers(headers);
        const first = await ctx.rail.verify(await credentialOf(ctx.rail, headers), charge);
        const second = await ctx.rail.verify(await credentialOf(ctx.rail, copy), charge);
        assert.equal(typeof first.replayKey, "string");
        assert.ok(first.replayKey.length > 0, "the replay key is not empty");
        assert.equal(second.replayKey, first.replayKey, "copies of one credential share a replay key");
        // Another payment: another order's challenge (a challenge id is single-use, so it cannot pay twice).
        const otherCharge = chargeFixture();
        const another = await ctx.rail.verify(
          await credentialOf(ctx.rail, await ctx.pay(await ctx.rail.challenge(otherCharge), otherCharge)),
          otherCharge,
        );
        assert.notEqual(another.replayKey, first.replayKey, "a second payment has its own replay key");
        assert.equal(first.protocol, ctx.rail.protocol);
        assert.equal(first.amount_cents, charge.amount_cents);
      },
    ),

    "settle reports a final settlement as settled with a reference": run(async (ctx) => {
      const charge = chargeFixture();
      const { payment } = await paidAndVerified(ctx, charge);
      const settlement = await ctx.rail.settle(payment, charge);
      assert.equal(settlement.status, "settled");
      assert.equal(settlement.protocol, ctx.rail.protocol);
      assert.equal(typeof settlement.reference, "string");
      assert.ok(settlement.reference.length > 0, "a settlement names its transaction or provider reference");
      assert.equal(settlement.amount_cents, charge.amount_cents);
      assert.ok(Number.isFinite(settlement.settledAt), "settledAt is a time");
    }),

    "settle reports pending, never success, when the outcome is not final": run(async (ctx) => {
      if (!ctx.rail.confirm) return notApplicable(NO_CONFIRM);
      const charge = chargeFixture();
      const { payment } = await paidAndVerified(ctx, charge);
      await ctx.holdSettlement();
      const startedAt = Date.now();
      const settlement = await ctx.rail.settle(payment, charge);
      assert.equal(settlement.status, "pending");
      assert.ok(settlement.reference.length > 0, "a pending settlement keeps a reference to reconcile");
      assert.equal(settlement.amount_cents, charge.amount_cents);
      // Reconciling it: confirm answers settled under the same reference, or pending; never failed.
      const answer = await confirmOf(ctx.rail)(question(payment, startedAt, settlement.reference));
      if (answer.status === "pending") return;
      const confirmed = assertSettled(ctx.rail, answer, payment, "a pending settlement");
      assert.equal(
        confirmed.reference,
        settlement.reference,
        "confirm names the pending settlement's reference",
      );
    }),

    "settle moves the funds of one credential at most once": run(async (ctx) => {
      const charge = chargeFixture();
      const { payment } = await paidAndVerified(ctx, charge);
      const first = await ctx.rail.settle(payment, charge);
      assert.equal(first.status, "settled");
      let second: Awaited<ReturnType<PaymentRail["settle"]>> | undefined;
      try {
        second = await ctx.rail.settle(payment, charge);
      } catch (error) {
        assert.ok(
          PaymentError.isInstance(error),
          `a refused second settle is a PaymentError, got ${String(error)}`,
        );
      }
      if (second) {
        assert.equal(
          second.reference,
          first.reference,
          "a repeated settle may only report the same settlement",
        );
      }
    }),

    "receipt headers exist for settled and pending settlements": run(async (ctx) => {
      const settledCharge = chargeFixture();
      const { payment } = await paidAndVerified(ctx, settledCharge);
      const settled = await ctx.rail.settle(payment, settledCharge);
      const pendingCharge = chargeFixture();
      const held = await paidAndVerified(ctx, pendingCharge);
      await ctx.holdSettlement();
      const pending = await ctx.rail.settle(held.payment, pendingCharge);
      for (const settlement of [settled, pending]) {
        const headers = ctx.rail.receiptHeaders(settlement);
        const entries = Object.entries(headers);
        assert.ok(entries.length > 0, `a ${settlement.status} settlement has receipt headers`);
        for (const [name, value] of entries) {
          assert.equal(typeof value, "string", `receipt header ${name} is a string`);
          assert.ok(value.length > 0, `receipt header ${name} is not empty`);
        }
      }
    }),

    "parseCredential reads the credentialHeader value as readCredential reads the request": run(
      async (ctx) => {
        const charge = chargeFixture();
        const headers = await ctx.pay(await ctx.rail.challenge(charge), charge);
        const value = headers.get(ctx.rail.credentialHeader);
        assert.ok(value !== null, `the client sends its credential in ${ctx.rail.credentialHeader}`);
        const parsed = await ctx.rail.parseCredential(value);
        assert.ok(parsed, "the rail parses its own credential's value");
        assert.deepEqual(parsed, await ctx.rail.readCredential(headers), "both readings give one credential");
        const fromValue = await ctx.rail.verify(parsed, charge);
        const fromHeaders = await ctx.rail.verify(await credentialOf(ctx.rail, headers), charge);
        assert.equal(fromValue.replayKey, fromHeaders.replayKey, "both readings verify as one payment");
      },
    ),

    "verified details survive a JSON round trip": run(async (ctx) => {
      const charge = chargeFixture();
      const { payment } = await paidAndVerified(ctx, charge);
      const stored = roundTrip(payment);
      assert.deepEqual(stored, payment, "the verified payment is plain JSON");
      const settlement = await ctx.rail.settle(stored, charge);
      assert.equal(settlement.status, "settled", "the payment read back from a store settles");
      // A rail with confirm reconciles from the stored details too.
      if (!ctx.rail.confirm) return;
      const answer = await confirmOf(ctx.rail)(question(stored, Date.now()));
      assert.equal(
        assertSettled(ctx.rail, answer, payment, "details read back").reference,
        settlement.reference,
      );
    }),

    "confirm answers settled with the settlement's reference after a settle": run(async (ctx) => {
      if (!ctx.rail.confirm) return notApplicable(NO_CONFIRM);
      const charge = chargeFixture();
      const { payment } = await paidAndVerified(ctx, charge);
      const startedAt = Date.now();
      const settlement = await ctx.rail.settle(payment, charge);
      assert.equal(settlement.status, "settled");
      const confirm = confirmOf(ctx.rail);
      for (const reference of [undefined, settlement.reference]) {
        const answer = await confirm(question(payment, startedAt, reference));
        const confirmed = assertSettled(ctx.rail, answer, payment, "a settled payment");
        assert.equal(confirmed.reference, settlement.reference, "confirm names the settlement's reference");
      }
    }),

    "confirm never answers settled for a payment that was never settled": run(async (ctx) => {
      if (!ctx.rail.confirm) return notApplicable(NO_CONFIRM);
      const charge = chargeFixture();
      const { payment } = await paidAndVerified(ctx, charge);
      const answer = await confirmOf(ctx.rail)(question(payment, Date.now()));
      assertNotSettled(answer, "a verified payment that was never settled");
    }),

    "confirm moves no money": run(async (ctx) => {
      if (!ctx.rail.confirm) return notApplicable(NO_CONFIRM);
      const charge = chargeFixture();
      const { payment } = await paidAndVerified(ctx, charge);
      const confirm = confirmOf(ctx.rail);
      // Asked before any settle (which the core never does), confirm must still leave the funds where they are.
      for (let i = 0; i < 3; i++) {
        assertNotSettled(await confirm(question(payment, Date.now())), `confirm #${i + 1} before settle`);
      }
      const settlement = await ctx.rail.settle(payment, charge);
      assert.equal(settlement.status, "settled", "the funds were still there to settle after three confirms");
      const answer = await confirm(question(payment, Date.now()));
      assert.equal(assertSettled(ctx.rail, answer, payment, "after settle").reference, settlement.reference);
    }),

    "confirm answers alike when called concurrently and from another rail instance": run(async (ctx) => {
      if (!ctx.rail.confirm) return notApplicable(NO_CONFIRM);
      if (!ctx.another) return notApplicable(NO_ANOTHER);
      const other = await ctx.another();
      const settledCharge = chargeFixture();
      const settled = await paidAndVerified(ctx, settledCharge);
      const startedAt = Date.now();
      const settlement = await ctx.rail.settle(settled.payment, settledCharge);
      const unsettledCharge = chargeFixture();
      const unsettled = await paidAndVerified(ctx, unsettledCharge);
      const cases: [VerifiedPayment, string][] = [
        [settled.payment, "a settled payment"],
        [unsettled.payment, "a payment never settled"],
      ];
      for (const [payment, what] of cases) {
        const answers: PaymentConfirmation[] = await Promise.all(
          [ctx.rail, other, ctx.rail, other, ctx.rail, other].map((rail) =>
            confirmOf(rail)(question(payment, startedAt)),
          ),
        );
        const first = answers[0];
        assert.ok(first);
        for (const answer of answers) {
          assert.deepEqual(gist(answer), gist(first), `${what}: every confirm gives the same answer`);
        }
        if (payment === settled.payment) {
          assert.equal(assertSettled(ctx.rail, first, payment, what).reference, settlement.reference);
        } else {
          assertNotSettled(first, what);
        }
      }
    }),

    "confirm answers settled when settle lost its answer after the money moved": run(async (ctx) => {
      if (!ctx.rail.confirm) return notApplicable(NO_CONFIRM);
      if (!ctx.faults) return notApplicable(NO_FAULTS);
      const charge = chargeFixture();
      const { payment } = await paidAndVerified(ctx, charge);
      await ctx.faults.loseAnswerAfterTransfer();
      const startedAt = Date.now();
      await settleFails(ctx.rail, payment, charge, "a settle whose answer is lost");
      const rails = [ctx.rail, ...(ctx.another ? [await ctx.another()] : [])];
      const answers = await Promise.all(rails.map((rail) => confirmOf(rail)(question(payment, startedAt))));
      for (const answer of answers) {
        assertSettled(ctx.rail, answer, payment, "funds that moved while the answer was lost");
        assert.deepEqual(gist(answer), gist(answers[0] as PaymentConfirmation), "every rail instance agrees");
      }
    }),

    "confirm never answers settled when settle failed before the money moved": run(async (ctx) => {
      if (!ctx.rail.confirm) return notApplicable(NO_CONFIRM);
      if (!ctx.faults) return notApplicable(NO_FAULTS);
      const charge = chargeFixture();
      const { payment } = await paidAndVerified(ctx, charge);
      await ctx.faults.failBeforeTransfer();
      const startedAt = Date.now();
      await settleFails(ctx.rail, payment, charge, "a settle that fails before the transfer");
      const rails = [ctx.rail, ...(ctx.another ? [await ctx.another()] : [])];
      for (const rail of rails) {
        assertNotSettled(await confirmOf(rail)(question(payment, startedAt)), "funds that never moved");
      }
    }),
  };

  return {
    name: `PaymentRail contract: ${factory.name}`,
    tests: kitTests(PAYMENT_RAIL_CONTRACT_NAMES, tests, PAYMENT_RAIL_REQUIREMENTS, factory.disable),
  };
}
