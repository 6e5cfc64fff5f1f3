import {
  assertSavedMethodCharge,
  assertSaveMethodRequest,
  CheckoutPaymentError,
  type CheckoutPaymentErrorCode,
  type CheckoutPayments,
  type SavedMethod,
} from "@mailpiece/ports";
import { describe, expect, it } from "vitest";
import { runSuite, type SuiteReport } from "../kit.ts";
import {
  CHECKOUT_PAYMENTS_CONTRACT_NAMES,
  CHECKOUT_PAYMENTS_FAULT_TESTS,
  type CheckoutPaymentsContractContext,
  type CheckoutPaymentsContractName,
  checkoutPaymentsContract,
} from "./checkout-payments-contract.ts";

/** Ways to break the small reference provider below, each of which one contract test must catch. */
type Fault =
  | "receipt in dollars"
  | "charges again on a repeat"
  | "racy charge"
  | "one charge per terms"
  | "ignores other terms"
  | "pays any token"
  | "declines as invalid_token"
  | "pays without authentication"
  | "takes fractions of a cent"
  | "forgets a lost answer"
  | "keeps a failed attempt"
  | "token in messages"
  | "saves under a new customer"
  | "saves again on a repeat"
  | "saves a declined card"
  | "racy saved charge"
  | "ignores other terms of a saved charge"
  | "charges another customer's method"
  | "pays off-session anyway"
  | "takes a saved charge in fractions of a cent"
  | "forgets a lost saved charge"
  | "token in saved-method messages";

const TOKENS = {
  ok: "spt_ref_ok",
  declined: "spt_ref_declined",
  requiresAction: "spt_ref_3ds",
  unknown: "spt_ref_unknown",
  declinesOffSession: "spt_ref_declines_off_session",
};

interface Outcome {
  terms: string;
  receipt?: { reference: string; amount_cents: number; currency: "usd"; paidAt: number };
  method?: SavedMethod;
  refusal?: CheckoutPaymentErrorCode;
}

/** A deliberately plain provider: correct with no faults, so every contract test passes on it. */
function referenceProvider(faults: ReadonlySet<Fault>): CheckoutPaymentsContractContext {
  const byKey = new Map<string, Outcome>();
  /** Saved methods by reference: their customer and the token they were saved from (which a provider may keep). */
  const methods = new Map<string, { customer: string; token: string }>();
  let sequence = 0;
  let next: "lose" | "unreachable" | undefined;
  const fail = (code: CheckoutPaymentErrorCode, message: string, token: string) =>
    new CheckoutPaymentError(code, faults.has("token in messages") ? `${message} (${token})` : message);
  const failSaved = (code: CheckoutPaymentErrorCode, message: string, token: string) =>
    new CheckoutPaymentError(
      code,
      faults.has("token in saved-method messages") ? `${message} (${token})` : message,
    );
  const answer = (outcome: Outcome, terms: string, token: string) => {
    if (outcome.terms !== terms) throw failSaved("idempotency_conflict", "key used with other terms", token);
    if (outcome.refusal) throw failSaved(outcome.refusal, "refused", token);
    return outcome;
  };
  const receiptOf = (amount: number): NonNullable<Outcome["receipt"]> => {
    sequence += 1;
    return {
      reference: `ref_${sequence}`,
      amount_cents: amount,
      currency: "usd",
      paidAt: 1_767_225_600_000 + sequence,
    };
  };

  const payments: CheckoutPayments = {
    name: "reference",
    simulated: true,
    async charge(request) {
      const { token, amount_cents: amount, currency } = request;
      const fault = next;
      next = undefined;
      const spt = typeof token === "string" && token.startsWith("spt_");
      if (!spt && !faults.has("pays any token"))
        throw fail("invalid_token", "not a shared payment token", token);
      const whole = faults.has("takes fractions of a cent")
        ? amount > 0
        : Number.isSafeInteger(amount) && amount > 0;
      if (!whole || currency !== "usd") throw fail("invalid_request", "amount or currency", token);
      if (fault === "unreachable") {
        if (faults.has("keeps a failed attempt")) byKey.set(request.idempotency_key, { terms: "pending" });
        throw fail("provider_unavailable", "unreachable", token);
      }
      const terms = faults.has("ignores other terms") ? "" : `${amount}|${token}`;
      let existing = byKey.get(request.idempotency_key);
      if (faults.has("one charge per terms")) existing ??= [...byKey.values()].find((o) => o.terms === terms);
      if (existing && !faults.has("charges again on a repeat")) {
        if (existing.terms !== terms) throw fail("idempotency_conflict", "key used with other terms", token);
        if (existing.refusal) throw fail(existing.refusal, "refused before", token);
        return { ...(existing.receipt as NonNullable<Outcome["receipt"]>) };
      }
      // Between reading the key and recording it: another caller may pass the same check.
      if (faults.has("racy charge")) await new Promise<void>((resolve) => setImmediate(resolve));
      const paid = (): Outcome => {
        sequence += 1;
        const cents = faults.has("receipt in dollars") ? amount / 100 : amount;
        const paidAt = 1_767_225_600_000 + sequence;
        return {
          terms,
          receipt: { reference: `ref_${sequence}`, amount_cents: cents, currency: "usd", paidAt },
        };
      };
      let outcome: Outcome;
      if (token === TOKENS.ok || (faults.has("pays any token") && !spt)) {
        outcome = paid();
      } else if (token === TOKENS.declined) {
        outcome = {
          terms,
          refusal: faults.has("declines as invalid_token") ? "invalid_token" : "payment_declined",
        };
      } else if (token === TOKENS.requiresAction) {
        outcome = faults.has("pays without authentication") ? paid() : { terms, refusal: "requires_action" };
      } else {
        throw fail("invalid_token", "unknown shared payment token", token);
      }
      if (!(fault === "lose" && faults.has("forgets a lost answer")))
        byKey.set(request.idempotency_key, outcome);
      if (fault === "lose") throw fail("provider_unavailable", "the answer was lost", token);
      if (outcome.refusal) throw fail(outcome.refusal, "refused", token);
      return { ...(outcome.receipt as NonNullable<Outcome["receipt"]>) };
    },

    async saveMethod(request) {
      const { token, customer, idempotency_key: key } = request;
      const spt = typeof token === "string" && token.startsWith("spt_");
      if (!spt) throw failSaved("invalid_token", "not a shared payment token", token);
      assertSaveMethodRequest(request);
      const terms = `${token}|${customer ?? ""}`;
      const existing = byKey.get(key);
      if (existing && !faults.has("saves again on a repeat")) {
        return { ...(answer(existing, terms, token).method as SavedMethod) };
      }
      let outcome: Outcome;
      const saves = token === TOKENS.ok || token === TOKENS.declinesOffSession;
      if (saves || (token === TOKENS.declined && faults.has("saves a declined card"))) {
        sequence += 1;
        const owner =
          customer === undefined || faults.has("saves under a new customer") ? `cus_${sequence}` : customer;
        const method: SavedMethod = {
          customer: owner,
          reference: `pm_${sequence}`,
          brand: "visa",
          last4: "4242",
          exp_month: 12,
          exp_year: 2034,
        };
        methods.set(method.reference, { customer: owner, token });
        outcome = { terms, method };
      } else if (token === TOKENS.declined) {
        outcome = { terms, refusal: "payment_declined" };
      } else if (token === TOKENS.requiresAction) {
        outcome = { terms, refusal: "requires_action" };
      } else {
        throw failSaved("invalid_token", "unknown shared payment token", token);
      }
      byKey.set(key, outcome);
      return { ...(answer(outcome, terms, token).method as SavedMethod) };
    },

    async chargeSaved(request) {
      const fault = next;
      next = undefined;
      // Rounds a fraction of a cent up instead of refusing it.
      const fractions = faults.has("takes a saved charge in fractions of a cent");
      assertSavedMethodCharge(
        fractions ? { ...request, amount_cents: Math.ceil(request.amount_cents) } : request,
      );
      const { customer, payment_method: reference, amount_cents: amount, idempotency_key: key } = request;
      const saved = methods.get(reference);
      const token = saved?.token ?? "";
      if (fault === "unreachable") throw failSaved("provider_unavailable", "unreachable", token);
      const terms = faults.has("ignores other terms of a saved charge")
        ? ""
        : `${amount}|${customer}|${reference}`;
      const existing = byKey.get(key);
      if (existing) return { ...(answer(existing, terms, token).receipt as NonNullable<Outcome["receipt"]>) };
      if (!saved || (saved.customer !== customer && !faults.has("charges another customer's method"))) {
        throw failSaved("invalid_token", "no such method for this customer", token);
      }
      // Between reading the key and recording it: another caller may pass the same check.
      if (faults.has("racy saved charge")) await new Promise<void>((resolve) => setImmediate(resolve));
      const declines = saved.token === TOKENS.declinesOffSession && !faults.has("pays off-session anyway");
      const outcome: Outcome = declines
        ? { terms, refusal: "payment_declined" }
        : { terms, receipt: receiptOf(amount) };
      if (!(fault === "lose" && faults.has("forgets a lost saved charge"))) byKey.set(key, outcome);
      if (fault === "lose") throw failSaved("provider_unavailable", "the answer was lost", token);
      return { ...(answer(outcome, terms, token).receipt as NonNullable<Outcome["receipt"]>) };
    },
  };
  return {
    payments,
    tokens: TOKENS,
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

/** Runs the suite on the reference provider with `faults`, offering the context's `faults` when `withFaults`. */
function reportWith(faults: Fault[], withFaults = true): Promise<SuiteReport> {
  const set = new Set(faults);
  return runSuite(
    checkoutPaymentsContract({
      name: "reference",
      async create() {
        const context = referenceProvider(set);
        if (!withFaults) delete context.faults;
        return context;
      },
    }),
  );
}

async function failuresWith(faults: Fault[], withFaults = true): Promise<Map<string, string>> {
  const report = await reportWith(faults, withFaults);
  return new Map(report.outcomes.filter((o) => o.status === "failed").map((o) => [o.name, o.reason ?? ""]));
}

/** The tests that answered not applicable, with their reasons. */
const notApplicableIn = (report: SuiteReport) =>
  report.outcomes.filter((o) => o.status === "not_applicable").map((o) => [o.name, o.reason]);

describe("checkoutPaymentsContract", () => {
  it("has one test per name, in the order of CHECKOUT_PAYMENTS_CONTRACT_NAMES", () => {
    const suite = checkoutPaymentsContract({
      name: "reference",
      create: async () => referenceProvider(new Set()),
    });
    expect(suite.tests.map((t) => t.name)).toEqual([...CHECKOUT_PAYMENTS_CONTRACT_NAMES]);
    expect(new Set(CHECKOUT_PAYMENTS_CONTRACT_NAMES).size).toBe(CHECKOUT_PAYMENTS_CONTRACT_NAMES.length);
    expect(suite.name).toBe("CheckoutPayments contract: reference");
  });

  it("passes a correct provider, with faults and without", async () => {
    expect(await failuresWith([])).toEqual(new Map());
    expect(await failuresWith([], false)).toEqual(new Map());
  });

  it("answers not applicable, saying why, for exactly the fault tests of a context without faults, and runs them with faults", async () => {
    const withFaults = await reportWith([]);
    expect(notApplicableIn(withFaults)).toEqual([]);
    expect(withFaults.passed).toBe(CHECKOUT_PAYMENTS_CONTRACT_NAMES.length);
    // Without faults, a provider that would fail them is not caught: the tests do not apply, and say so.
    const without = await reportWith(
      ["forgets a lost answer", "keeps a failed attempt", "forgets a lost saved charge"],
      false,
    );
    expect(without.failed).toBe(0);
    const reason =
      "no faults given (context.faults): the provider cannot be made to lose an answer or be unreachable on purpose";
    expect(notApplicableIn(without)).toEqual(CHECKOUT_PAYMENTS_FAULT_TESTS.map((name) => [name, reason]));
    expect(CHECKOUT_PAYMENTS_FAULT_TESTS).toEqual([
      "after a lost answer a retry under the same key answers the charge that happened",
      "after an unreachable provider a retry under the same key charges once",
      "after a lost answer or an unreachable provider a chargeSaved retry under the same key answers one charge",
    ]);
  });

  const caught: Array<[Fault, CheckoutPaymentsContractName]> = [
    ["receipt in dollars", "charge answers a well-formed receipt for the amount charged"],
    ["charges again on a repeat", "a repeat under the same key and terms answers the first receipt"],
    ["racy charge", "concurrent calls under one key charge once and answer one reference"],
    ["one charge per terms", "different keys make different charges"],
    [
      "ignores other terms",
      "the same key with other terms is refused with idempotency_conflict, changing nothing",
    ],
    [
      "pays any token",
      "a token that is not a shared payment token, or one the provider does not know, is refused with invalid_token",
    ],
    ["declines as invalid_token", "a declined payment is refused with payment_declined, also on a repeat"],
    [
      "pays without authentication",
      "a payment that needs authentication is refused with requires_action, also on a repeat",
    ],
    [
      "takes fractions of a cent",
      "an amount that is not a positive integer or a currency other than usd is refused with invalid_request",
    ],
    [
      "forgets a lost answer",
      "after a lost answer a retry under the same key answers the charge that happened",
    ],
    ["keeps a failed attempt", "after an unreachable provider a retry under the same key charges once"],
    ["token in messages", "errors are CheckoutPaymentErrors that carry no token"],
    [
      "saves under a new customer",
      "saveMethod answers a saved method under the given customer, or under a new one, that chargeSaved can charge",
    ],
    [
      "saves again on a repeat",
      "a repeat of saveMethod under one key, also concurrent, answers the same method; other terms are idempotency_conflict",
    ],
    ["saves a declined card", "saveMethod refuses tokens as charge does, and the refusal holds its key"],
    [
      "racy saved charge",
      "chargeSaved charges once per key, also for five concurrent calls, and a repeat answers the first receipt",
    ],
    [
      "ignores other terms of a saved charge",
      "chargeSaved with other terms under a used key is refused with idempotency_conflict, changing nothing",
    ],
    [
      "charges another customer's method",
      "chargeSaved of a method or customer the provider does not know, or of another customer's method, is refused with invalid_token",
    ],
    [
      "pays off-session anyway",
      "a saved card declined off-session is refused with payment_declined, also on a repeat",
    ],
    [
      "takes a saved charge in fractions of a cent",
      "saveMethod and chargeSaved refuse malformed requests with invalid_request",
    ],
    [
      "forgets a lost saved charge",
      "after a lost answer or an unreachable provider a chargeSaved retry under the same key answers one charge",
    ],
    ["token in saved-method messages", "saveMethod and chargeSaved errors carry no token"],
  ];
  for (const [fault, test] of caught) {
    it(`catches a provider with the fault "${fault}" in "${test}"`, async () => {
      const failures = await failuresWith([fault]);
      expect([...failures.keys()]).toContain(test);
    });
  }

  it("covers every contract test with a fault", () => {
    expect(new Set(caught.map(([, test]) => test))).toEqual(new Set(CHECKOUT_PAYMENTS_CONTRACT_NAMES));
  });
});
