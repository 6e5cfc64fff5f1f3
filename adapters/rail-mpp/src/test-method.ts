import type { Clock } from "@mailpiece/ports";
import { systemClock } from "@mailpiece/ports";
import { Credential, Errors, Method, type Receipt, z } from "mppx";
import type { MppMethodConfig } from "./method-config.ts";

/** A test token: `tok_test_` followed by letters, digits or underscores. */
const TEST_TOKEN = /^tok_test_[A-Za-z0-9_]+$/;

/** The token that always declines, like a declined card. */
export const DECLINED_TEST_TOKEN = "tok_test_declined";

/**
 * The `test` payment method (intent `charge`): no money moves. The request carries the amount in cents, the
 * currency, a recipient label and the order reference; the credential payload is `{ "token": "tok_test_..." }`.
 */
export const testCharge = Method.from({
  name: "test",
  intent: "charge",
  schema: {
    credential: {
      payload: z.object({ token: z.string() }),
    },
    request: z.object({
      amount: z.amount(),
      currency: z.string(),
      recipient: z.string(),
      externalId: z.optional(z.string()),
    }),
  },
});

/**
 * Where the test method records the charges it made, one per challenge, so that `confirm` can read them back.
 * Give every process that shares orders the same ledger (backed by their store); the default is in memory.
 */
export interface TestChargeLedger {
  /** Records the receipt of a challenge's charge unless one is recorded, atomically; resolves the recorded one. */
  record(challengeId: string, receipt: Receipt.Receipt): Promise<Receipt.Receipt>;
  /** The recorded receipt of a challenge's charge, if it was charged. Reads only. */
  read(challengeId: string): Promise<Receipt.Receipt | undefined>;
}

/** A ledger of test charges in this process's memory. */
export function memoryTestLedger(): TestChargeLedger {
  const receipts = new Map<string, Receipt.Receipt>();
  return {
    async record(challengeId, receipt) {
      const recorded = receipts.get(challengeId);
      if (recorded) return recorded;
      receipts.set(challengeId, receipt);
      return receipt;
    },
    async read(challengeId) {
      return receipts.get(challengeId);
    },
  };
}

export interface TestMethodOptions {
  /** The recipient named in challenges. Default "mailpiece-test". */
  recipient?: string;
  /** Time for receipts. Default the system clock. */
  clock?: Clock;
  /** Where charges are recorded; in memory by default. */
  ledger?: TestChargeLedger;
}

/**
 * The test method for development and tests. It accepts any `tok_test_...` token except `tok_test_declined`,
 * which it refuses as a failed verification, and refuses everything else. Settling records one charge per
 * challenge in its ledger, atomically (settling a challenge again answers the recorded receipt); paying one
 * challenge once is enforced by the core, which claims the replay key before settling. `confirm` reads the
 * ledger: a recorded charge is settled; none, once settle is over, means the charge never happened (`failed`).
 */
export function testMethod(options: TestMethodOptions = {}): MppMethodConfig {
  const recipient = options.recipient ?? "mailpiece-test";
  const clock = options.clock ?? systemClock;
  const ledger = options.ledger ?? memoryTestLedger();

  function checkToken(token: string): void {
    if (!TEST_TOKEN.test(token)) {
      throw new Errors.VerificationFailedError({ reason: "the test method accepts only tok_test_ tokens" });
    }
    if (token === DECLINED_TEST_TOKEN) {
      throw new Errors.VerificationFailedError({ reason: "the test token was declined" });
    }
  }

  const server = Method.toServer(testCharge, {
    async validate({ credential }) {
      checkToken(credential.payload.token);
      return {
        challenge: credential.challenge,
        credential,
        details: { token: credential.payload.token },
        intent: "charge",
        method: "test",
        request: credential.challenge.request,
        source: credential.source,
      };
    },
    async broadcast({ credential }) {
      checkToken(credential.payload.token);
      const { externalId } = credential.challenge.request;
      const receipt: Receipt.Receipt = {
        method: "test",
        reference: `test_${credential.challenge.id}`,
        status: "success",
        timestamp: new Date(clock.now()).toISOString(),
        ...(externalId !== undefined ? { externalId } : {}),
      };
      return ledger.record(credential.challenge.id, receipt);
    },
  });

  return {
    server,
    simulated: true,
    async confirm({ credential }) {
      const receipt = await ledger.read(credential.challenge.id);
      if (receipt) return { status: "settled", receipt };
      return {
        status: "failed",
        message:
          "The test method charges atomically when settling, and no charge was recorded for this challenge; nothing was charged.",
      };
    },
    request: (charge) => ({
      amount: String(charge.amount_cents),
      currency: charge.currency,
      recipient,
      externalId: charge.order_ref,
    }),
  };
}

/**
 * The client side of the test method, for agents and tests:
 * `Mppx.create({ methods: [testMethodClient({ token: "tok_test_visa" })], polyfill: false }).fetch(url, init)`.
 */
export function testMethodClient(options: { token: string }) {
  return Method.toClient(testCharge, {
    async createCredential({ challenge }) {
      return Credential.serialize({ challenge, payload: { token: options.token } });
    },
  });
}
