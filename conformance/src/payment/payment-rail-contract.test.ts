import { createHmac, randomUUID } from "node:crypto";
import {
  type Charge,
  manualClock,
  type PaymentChallenge,
  type PaymentCredential,
  PaymentError,
  type PaymentRail,
  type Settlement,
} from "@mailpiece/ports";
import { describe, expect, it } from "vitest";
import { runSuite } from "../kit.ts";
import {
  PAYMENT_RAIL_CONFIRM_TESTS,
  PAYMENT_RAIL_CONTRACT_NAMES,
  PAYMENT_RAIL_FAULT_TESTS,
  type PaymentRailContext,
  type PaymentRailContractName,
  paymentRailContract,
} from "./payment-rail-contract.ts";

/** Ways to break the small reference rail below, each of which a fault test must catch. */
type Fault = "forgets a lost settle" | "moves money before failing";

const HEADER = "x-reference-payment";
const SCHEME = "RefPay";
const SECRET = "reference-rail-secret";
const VALIDITY_MS = 5 * 60_000;

/** What a credential pays: the terms of the charge it answers. */
interface Terms {
  amount_cents: number;
  resource_url: string;
  order_ref: string;
}

interface Paid {
  terms: Terms;
  nonce: string;
  expiresAt: number;
  signature: string;
}

/** A settlement as the reference rail's ledger (its "chain") holds it, by credential nonce. */
interface Entry {
  reference: string;
  status: Settlement["status"];
  settledAt: number;
}

const termsOf = (charge: Charge): Terms => ({
  amount_cents: charge.amount_cents,
  resource_url: charge.resource_url,
  order_ref: charge.order_ref,
});
const sameTerms = (a: Terms, b: Terms) =>
  a.amount_cents === b.amount_cents && a.resource_url === b.resource_url && a.order_ref === b.order_ref;
const sign = (terms: Terms, nonce: string, expiresAt: number) =>
  createHmac("sha256", SECRET)
    .update(JSON.stringify([terms, nonce, expiresAt]))
    .digest("hex");
const encode = (paid: Paid) => `${SCHEME} ${Buffer.from(JSON.stringify(paid)).toString("base64url")}`;

function isPaid(value: unknown): value is Paid {
  const paid = value as Paid;
  return (
    typeof paid === "object" &&
    paid !== null &&
    typeof paid.terms === "object" &&
    paid.terms !== null &&
    typeof paid.nonce === "string" &&
    typeof paid.expiresAt === "number" &&
    typeof paid.signature === "string"
  );
}

/**
 * A deliberately plain rail: a credential is the signed terms of its charge with a nonce and an expiry, and settling
 * records the nonce in a ledger that every rail made by one context shares. Correct with no faults, so every
 * contract test passes on it. The context offers `faults` unless `injectable` is false.
 */
function referenceContext(faults: ReadonlySet<Fault>, injectable = true): PaymentRailContext {
  const clock = manualClock();
  const ledger = new Map<string, Entry>();
  let sequence = 0;
  let hold = false;
  let next: "lose answer" | "fail before" | undefined;

  const makeRail = (): PaymentRail => {
    const rail: PaymentRail = {
      protocol: "x402",
      simulated: true,
      credentialHeader: HEADER,
      async challenge(charge) {
        const terms = termsOf(charge);
        return {
          status: 402,
          contentType: "application/json",
          headers: { "x-reference-challenge": Buffer.from(JSON.stringify(terms)).toString("base64url") },
          body: { error: "payment required", ...terms },
        };
      },
      async parseCredential(value) {
        if (!value.startsWith(`${SCHEME} `)) return undefined;
        let decoded: unknown;
        try {
          decoded = JSON.parse(Buffer.from(value.slice(SCHEME.length + 1), "base64url").toString("utf8"));
        } catch {
          decoded = undefined;
        }
        if (!isPaid(decoded))
          throw new PaymentError("malformed_credential", "the credential does not decode");
        return { protocol: "x402", raw: value, decoded } satisfies PaymentCredential;
      },
      async readCredential(headers) {
        const value = headers.get(HEADER);
        return value === null ? undefined : rail.parseCredential(value);
      },
      async verify(credential, charge) {
        const paid = credential.decoded as Paid;
        if (!sameTerms(paid.terms, termsOf(charge))) {
          throw new PaymentError("payment_mismatch", "the credential pays for another charge");
        }
        if (paid.signature !== sign(paid.terms, paid.nonce, paid.expiresAt)) {
          throw new PaymentError("verification_failed", "the signature does not check");
        }
        if (clock.now() > paid.expiresAt)
          throw new PaymentError("payment_expired", "the credential has expired");
        return {
          protocol: "x402",
          replayKey: `reference:${paid.nonce}`,
          amount_cents: paid.terms.amount_cents,
          details: { nonce: paid.nonce },
        };
      },
      async settle(payment) {
        const { nonce } = payment.details as { nonce: string };
        const fault = next;
        next = undefined;
        if (fault === "fail before" && !faults.has("moves money before failing")) {
          throw new Error("connect ECONNREFUSED");
        }
        let entry = ledger.get(nonce);
        if (!entry) {
          sequence += 1;
          entry = {
            reference: `tx_${sequence}`,
            status: hold ? "pending" : "settled",
            settledAt: clock.now(),
          };
          if (!(fault === "lose answer" && faults.has("forgets a lost settle"))) ledger.set(nonce, entry);
        }
        if (fault) throw new Error("socket hang up");
        return { protocol: "x402", ...entry, amount_cents: payment.amount_cents, details: { nonce } };
      },
      receiptHeaders(settlement) {
        return { "x-reference-receipt": `${settlement.status} ${settlement.reference}` };
      },
      async confirm(payment) {
        const { nonce } = payment.details as { nonce: string };
        const entry = ledger.get(nonce);
        if (!entry || entry.status === "pending") return { status: "pending" };
        return { protocol: "x402", ...entry, amount_cents: payment.amount_cents, details: { nonce } };
      },
    };
    return rail;
  };

  /** The paid credential of `headers`, changed and encoded again. */
  const rewrite = (headers: Headers, change: (paid: Paid) => void): Headers => {
    const paid = JSON.parse(
      Buffer.from((headers.get(HEADER) ?? "").slice(SCHEME.length + 1), "base64url").toString("utf8"),
    ) as Paid;
    change(paid);
    return new Headers({ [HEADER]: encode(paid) });
  };

  const context: PaymentRailContext = {
    rail: makeRail(),
    async pay(challenge: PaymentChallenge) {
      const header = challenge.headers["x-reference-challenge"];
      const terms = JSON.parse(Buffer.from(String(header), "base64url").toString("utf8")) as Terms;
      const nonce = randomUUID();
      const expiresAt = clock.now() + VALIDITY_MS;
      return new Headers({
        [HEADER]: encode({ terms, nonce, expiresAt, signature: sign(terms, nonce, expiresAt) }),
      });
    },
    tamper: (headers) =>
      rewrite(headers, (paid) => {
        paid.terms.amount_cents = 1;
      }),
    forge: (headers) =>
      rewrite(headers, (paid) => {
        paid.signature = `${paid.signature.startsWith("0") ? "1" : "0"}${paid.signature.slice(1)}`;
      }),
    expire: () => clock.advance(2 * VALIDITY_MS),
    holdSettlement: () => {
      hold = true;
    },
    another: makeRail,
  };
  if (injectable) {
    context.faults = {
      loseAnswerAfterTransfer: () => {
        next = "lose answer";
      },
      failBeforeTransfer: () => {
        next = "fail before";
      },
    };
  }
  return context;
}

/** The tests of a run on the reference rail with `faults` that did not pass: name, status and reason. */
async function notPassedWith(faults: Fault[], injectable = true): Promise<unknown[][]> {
  const suite = paymentRailContract({
    name: "reference",
    create: async () => referenceContext(new Set(faults), injectable),
  });
  const report = await runSuite(suite);
  return report.outcomes.filter((o) => o.status !== "passed").map((o) => [o.name, o.status, o.reason]);
}

describe("paymentRailContract", () => {
  it("has one test per name, in the order of PAYMENT_RAIL_CONTRACT_NAMES", () => {
    const suite = paymentRailContract({ name: "reference", create: async () => referenceContext(new Set()) });
    expect(suite.tests.map((t) => t.name)).toEqual([...PAYMENT_RAIL_CONTRACT_NAMES]);
    expect(new Set(PAYMENT_RAIL_CONTRACT_NAMES).size).toBe(PAYMENT_RAIL_CONTRACT_NAMES.length);
    expect(suite.name).toBe("PaymentRail contract: reference");
  });

  it("passes a correct rail: every test applies", async () => {
    expect(await notPassedWith([])).toEqual([]);
  });

  it("answers not applicable, saying why, for exactly the fault tests of a context without faults", async () => {
    // A rail that would fail them is not caught without faults: the tests do not apply, and say so.
    const reason =
      "no faults given (context.faults): the rail's settle cannot be made to lose its answer or fail on purpose";
    expect(await notPassedWith(["forgets a lost settle", "moves money before failing"], false)).toEqual(
      PAYMENT_RAIL_FAULT_TESTS.map((name) => [name, "not_applicable", reason]),
    );
    expect(PAYMENT_RAIL_FAULT_TESTS).toEqual([
      "confirm answers settled when settle lost its answer after the money moved",
      "confirm never answers settled when settle failed before the money moved",
    ]);
  });

  it("answers not applicable for the confirm tests of a rail without confirm, and the cross-instance one without another", async () => {
    const run = async (change: (context: PaymentRailContext) => PaymentRailContext) => {
      const suite = paymentRailContract({
        name: "reference",
        create: async () => change(referenceContext(new Set())),
      });
      const report = await runSuite(suite);
      return report.outcomes.filter((o) => o.status !== "passed").map((o) => [o.name, o.status, o.reason]);
    };
    expect(await run(({ another: _, ...context }) => context)).toEqual([
      [
        "confirm answers alike when called concurrently and from another rail instance",
        "not_applicable",
        "no second rail instance given (context.another): confirm cannot be checked across instances",
      ],
    ]);
    expect(await run((context) => ({ ...context, rail: { ...context.rail, confirm: undefined } }))).toEqual(
      PAYMENT_RAIL_CONFIRM_TESTS.map((name) => [
        name,
        "not_applicable",
        "the rail has no confirm: its settle is always final",
      ]),
    );
  });

  const caught: Array<[Fault, PaymentRailContractName]> = [
    ["forgets a lost settle", "confirm answers settled when settle lost its answer after the money moved"],
    ["moves money before failing", "confirm never answers settled when settle failed before the money moved"],
  ];
  for (const [fault, test] of caught) {
    it(`catches a rail with the fault "${fault}" in "${test}", given faults`, async () => {
      const notPassed = await notPassedWith([fault]);
      expect(notPassed.map(([name, status]) => [name, status])).toEqual([[test, "failed"]]);
    });
  }
});
