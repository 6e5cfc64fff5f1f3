import { strict as assert } from "node:assert";
import {
  type Charge,
  manualClock,
  type PaymentChallenge,
  PaymentError,
  type PaymentErrorCode,
} from "@mailpiece/ports";
import { x402Client, x402HTTPClient } from "@x402/core/client";
import {
  decodePaymentRequiredHeader,
  decodePaymentResponseHeader,
  encodePaymentSignatureHeader,
} from "@x402/core/http";
import type { FacilitatorClient } from "@x402/core/server";
import type { PaymentPayload } from "@x402/core/types";
import { authorizationTypes } from "@x402/evm";
import { registerExactEvmScheme } from "@x402/evm/exact/client";
import { encodeAbiParameters, keccak256, parseAbiParameters, toHex } from "viem";
import { generatePrivateKey, type PrivateKeyAccount, privateKeyToAccount } from "viem/accounts";
import { describe, it } from "vitest";
import { createLocalFacilitator } from "./local-facilitator.ts";
import { decodePaymentSignature, type ExactEvmPaymentPayload } from "./payment-signature.ts";
import { BASE, BASE_SEPOLIA } from "./usdc.ts";
import { createX402Rail, type X402RailOptions } from "./x402-rail.ts";

const PAY_TO = "0x209693Bc6afc0C5328bA36FaF03C514EF312287C";
const BASE_SEPOLIA_USDC = "0x036CbD53842c5426634e7929541eC2318f3dCF7e";
const BASE_USDC = "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913";

const charge: Charge = {
  amount_cents: 340,
  currency: "usd",
  resource_url: "https://mailpiece.example/api/machine/orders",
  description: "One letter, printed and posted by US First-Class Mail",
  order_ref: "7d1f0c2e-5b1a-4c57-9b52-1f7f4f6f6a01",
};

function setup(overrides: Partial<X402RailOptions> = {}) {
  const clock = manualClock(Date.now());
  const facilitator = createLocalFacilitator({ network: BASE_SEPOLIA, clock });
  const rail = createX402Rail({ network: BASE_SEPOLIA, payTo: PAY_TO, facilitator, clock, ...overrides });
  const account = privateKeyToAccount(generatePrivateKey());
  const client = x402Client.fromConfig({ schemes: [], spendControls: { maxAmountPerPayment: "$250" } });
  registerExactEvmScheme(client, { signer: account });
  return { clock, facilitator, rail, account, client };
}

function paymentRequiredOf(challenge: PaymentChallenge) {
  const header = challenge.headers["PAYMENT-REQUIRED"];
  assert.equal(typeof header, "string");
  return decodePaymentRequiredHeader(header as string);
}

/** The reference client answers the challenge: the PAYMENT-SIGNATURE it would send. */
async function pay(client: x402Client, challenge: PaymentChallenge): Promise<Headers> {
  const payload = await client.createPaymentPayload(paymentRequiredOf(challenge));
  return new Headers(new x402HTTPClient(client).encodePaymentSignatureHeader(payload));
}

/** A PAYMENT-SIGNATURE value for any JSON, well-formed or not, with the x402 codec. */
function encodeSignature(value: unknown): string {
  return encodePaymentSignatureHeader(value as PaymentPayload);
}

function payloadOf(headers: Headers): ExactEvmPaymentPayload {
  return decodePaymentSignature(headers.get("payment-signature") ?? "");
}

function headersFor(payload: unknown): Headers {
  return new Headers({ "payment-signature": encodeSignature(payload) });
}

/** Signs an EIP-3009 authorization directly, for windows the reference client never produces. */
async function signedPayload(
  account: PrivateKeyAccount,
  challenge: PaymentChallenge,
  window: { validAfter: bigint; validBefore: bigint },
): Promise<ExactEvmPaymentPayload> {
  const required = paymentRequiredOf(challenge);
  const accepted = required.accepts[0];
  assert.ok(accepted);
  const authorization = {
    from: account.address,
    to: PAY_TO as `0x${string}`,
    value: accepted.amount,
    validAfter: window.validAfter.toString(),
    validBefore: window.validBefore.toString(),
    nonce: keccak256(toHex(`nonce-${window.validBefore}`)),
  };
  const signature = await account.signTypedData({
    domain: { name: "USDC", version: "2", chainId: 84532, verifyingContract: BASE_SEPOLIA_USDC },
    types: authorizationTypes,
    primaryType: "TransferWithAuthorization",
    message: {
      ...authorization,
      value: BigInt(authorization.value),
      validAfter: window.validAfter,
      validBefore: window.validBefore,
    },
  });
  return {
    x402Version: 2,
    resource: required.resource,
    accepted,
    payload: { signature, authorization },
  };
}

async function refused(action: () => unknown, code: PaymentErrorCode, message?: RegExp): Promise<void> {
  await assert.rejects(
    async () => action(),
    (error: unknown) => {
      assert.ok(PaymentError.isInstance(error), `expected a PaymentError, got ${String(error)}`);
      assert.equal(error.code, code, error.message);
      if (message) assert.match(error.message, message);
      return true;
    },
  );
}

describe("createX402Rail: challenge", () => {
  it("answers 402 with the x402 v2 requirements in PAYMENT-REQUIRED, no-store, and the same object as JSON body", async () => {
    const { rail } = setup();
    const challenge = await rail.challenge(charge);
    assert.equal(challenge.status, 402);
    assert.equal(challenge.contentType, "application/json");
    assert.equal(challenge.headers["Cache-Control"], "no-store");
    const expected = {
      x402Version: 2,
      error: "Payment required",
      resource: { url: charge.resource_url, description: charge.description, mimeType: "application/json" },
      accepts: [
        {
          scheme: "exact",
          network: "eip155:84532",
          amount: "3400000",
          asset: BASE_SEPOLIA_USDC,
          payTo: PAY_TO,
          maxTimeoutSeconds: 300,
          extra: { name: "USDC", version: "2", order_id: charge.order_ref },
        },
      ],
      extensions: {},
    };
    assert.deepEqual(paymentRequiredOf(challenge), expected);
    const { message, ...body } = challenge.body as { message: string };
    assert.deepEqual(body, expected);
    assert.match(message, /\$3\.40/);
    assert.match(message, /refuse payments above \$1 by default/);
    assert.match(message, /spendControls: \{ maxAmountPerPayment: "\$250" \}/);
  });

  it("uses the token's own EIP-712 domain on Base mainnet (USD Coin)", async () => {
    const facilitator = createLocalFacilitator({ network: BASE });
    const rail = createX402Rail({ network: BASE, payTo: PAY_TO, facilitator });
    const [requirement] = paymentRequiredOf(
      await rail.challenge({ ...charge, amount_cents: 20_000 }),
    ).accepts;
    assert.deepEqual(requirement, {
      scheme: "exact",
      network: "eip155:8453",
      amount: "200000000",
      asset: BASE_USDC,
      payTo: PAY_TO,
      maxTimeoutSeconds: 300,
      extra: { name: "USD Coin", version: "2", order_id: charge.order_ref },
    });
  });

  it("gives deep-equal challenges for one charge, and honours maxTimeoutSeconds", async () => {
    const { rail } = setup({ maxTimeoutSeconds: 120 });
    const first = await rail.challenge(charge);
    assert.deepEqual(await rail.challenge({ ...charge }), first);
    assert.equal(paymentRequiredOf(first).accepts[0]?.maxTimeoutSeconds, 120);
  });

  it("refuses a configuration it cannot serve", () => {
    const facilitator = createLocalFacilitator({ network: BASE_SEPOLIA });
    assert.throws(() => createX402Rail({ network: "base-sepolia", payTo: PAY_TO, facilitator }), TypeError);
    assert.throws(() => createX402Rail({ network: "eip155:999999", payTo: PAY_TO, facilitator }), /no USDC/);
    assert.throws(() => createX402Rail({ network: BASE_SEPOLIA, payTo: "0x1234", facilitator }), /payTo/);
    assert.throws(
      () => createX402Rail({ network: BASE_SEPOLIA, payTo: PAY_TO, asset: BASE_USDC, facilitator }),
      /not the USDC/,
    );
    assert.throws(
      () => createX402Rail({ network: BASE_SEPOLIA, payTo: PAY_TO, facilitator, maxTimeoutSeconds: 0 }),
      RangeError,
    );
  });

  it("is simulated with the local facilitator only", () => {
    const { rail } = setup();
    assert.equal(rail.simulated, true);
    assert.equal(rail.protocol, "x402");
    const remote: FacilitatorClient = {
      verify: async () => ({ isValid: false }),
      settle: async () => ({ success: false, transaction: "", network: BASE_SEPOLIA }),
      getSupported: async () => ({ kinds: [], extensions: [], signers: {} }),
    };
    assert.equal(
      createX402Rail({ network: BASE_SEPOLIA, payTo: PAY_TO, facilitator: remote }).simulated,
      false,
    );
  });
});

describe("createX402Rail: readCredential", () => {
  it("returns undefined without PAYMENT-SIGNATURE and decodes the reference client's header", async () => {
    const { rail, client } = setup();
    assert.equal(await rail.readCredential(new Headers({ "x-payment": "e30=" })), undefined);
    const headers = await pay(client, await rail.challenge(charge));
    const credential = await rail.readCredential(headers);
    assert.equal(credential?.protocol, "x402");
    assert.equal(credential?.raw, headers.get("payment-signature"));
    assert.deepEqual(credential?.decoded, payloadOf(headers));
  });

  it("refuses a header that is not a v2 exact-EVM payment with malformed_credential", async () => {
    const { rail, client } = setup();
    const good = payloadOf(await pay(client, await rail.challenge(charge)));
    const b64 = (text: string) => Buffer.from(text).toString("base64");
    const variants = [
      "",
      "not base64 at all!",
      b64("{not json"),
      b64("[1,2,3]"),
      encodeSignature({ ...good, x402Version: 1 }),
      encodeSignature({ ...good, accepted: undefined }),
      encodeSignature({ ...good, payload: { signature: good.payload.signature } }),
      encodeSignature({ ...good, payload: { ...good.payload, signature: "0xzz" } }),
      encodeSignature({
        ...good,
        payload: { ...good.payload, authorization: { ...good.payload.authorization, nonce: "0x01" } },
      }),
      encodeSignature({
        ...good,
        payload: { ...good.payload, authorization: { ...good.payload.authorization, value: "-5" } },
      }),
    ];
    for (const value of variants) {
      await refused(
        () => rail.readCredential(new Headers({ "payment-signature": value })),
        "malformed_credential",
      );
    }
  });
});

describe("createX402Rail: verify", () => {
  it("verifies a reference client payment and keys it by network, asset, payer and nonce", async () => {
    const { rail, client, account } = setup();
    const headers = await pay(client, await rail.challenge(charge));
    const payment = await rail.verify((await rail.readCredential(headers))!, charge);
    const { nonce } = payloadOf(headers).payload.authorization;
    assert.equal(
      payment.replayKey,
      `x402:eip155:84532:${BASE_SEPOLIA_USDC}:${account.address}:${nonce}`.toLowerCase(),
    );
    assert.equal(payment.payer, account.address);
    assert.equal(payment.amount_cents, 340);
    const copy = await rail.verify((await rail.readCredential(new Headers(headers)))!, charge);
    assert.equal(copy.replayKey, payment.replayKey, "two requests with one signature share the replay key");
  });

  it("refuses a credential whose accepted amount, payee, asset or network was changed (payment_mismatch)", async () => {
    const { rail, client } = setup();
    const good = payloadOf(await pay(client, await rail.challenge(charge)));
    const changes: Record<string, Partial<ExactEvmPaymentPayload["accepted"]>> = {
      amount: { amount: "1" },
      payTo: { payTo: "0x000000000000000000000000000000000000dEaD" },
      asset: { asset: BASE_USDC },
      network: { network: "eip155:8453" },
      extra: { extra: { name: "USD Coin", version: "2", order_id: charge.order_ref } },
    };
    for (const [field, change] of Object.entries(changes)) {
      const tampered = { ...good, accepted: { ...good.accepted, ...change } };
      await refused(
        async () => rail.verify((await rail.readCredential(headersFor(tampered)))!, charge),
        "payment_mismatch",
        new RegExp(field),
      );
    }
  });

  it("refuses an authorization that moves another amount or pays another address (payment_mismatch)", async () => {
    const { rail, client } = setup();
    const good = payloadOf(await pay(client, await rail.challenge(charge)));
    const auth = good.payload.authorization;
    for (const change of [{ value: "340" }, { to: "0x000000000000000000000000000000000000dEaD" as const }]) {
      const tampered = { ...good, payload: { ...good.payload, authorization: { ...auth, ...change } } };
      await refused(
        async () => rail.verify((await rail.readCredential(headersFor(tampered)))!, charge),
        "payment_mismatch",
      );
    }
  });

  it("refuses a credential for another charge or resource (payment_mismatch)", async () => {
    const { rail, client } = setup();
    const credential = (await rail.readCredential(await pay(client, await rail.challenge(charge))))!;
    await refused(
      () => rail.verify(credential, { ...charge, amount_cents: 341 }),
      "payment_mismatch",
      /amount/,
    );
    await refused(
      () =>
        rail.verify(credential, {
          ...charge,
          resource_url: "https://mailpiece.example/api/machine/flower-letters",
        }),
      "payment_mismatch",
      /flower-letters|orders/,
    );
  });

  it("refuses a payment signed for another order of the same price (payment_mismatch), settling nothing", async () => {
    const local = createLocalFacilitator({ network: BASE_SEPOLIA });
    const settled: string[] = [];
    const { rail, client } = setup({
      facilitator: {
        ...local,
        async settle(payload, requirements) {
          settled.push(String(requirements.extra?.order_id));
          return local.settle(payload, requirements);
        },
      },
    });
    const orderA: Charge = { ...charge, order_ref: "order-a" };
    const orderB: Charge = { ...charge, order_ref: "order-b" };
    const [requirementA] = paymentRequiredOf(await rail.challenge(orderA)).accepts;
    const [requirementB] = paymentRequiredOf(await rail.challenge(orderB)).accepts;
    assert.deepEqual(requirementA?.extra, { name: "USDC", version: "2", order_id: "order-a" });
    assert.deepEqual({ ...requirementB, extra: requirementA?.extra }, requirementA, "only the order differs");

    const signedForA = await pay(client, await rail.challenge(orderA));
    assert.equal(payloadOf(signedForA).accepted.extra?.order_id, "order-a");
    await refused(
      async () => rail.verify((await rail.readCredential(signedForA))!, orderB),
      "payment_mismatch",
      /signed for another order/,
    );
    assert.deepEqual(settled, []);

    // A's own retry still pays A: its nonce was not spent on B.
    const payment = await rail.verify((await rail.readCredential(signedForA))!, orderA);
    await refused(() => rail.settle(payment, orderB), "payment_mismatch");
    assert.deepEqual(settled, []);
    assert.equal((await rail.settle(payment, orderA)).status, "settled");
    assert.deepEqual(settled, ["order-a"]);
  });

  it("refuses a payment whose accepted requirement names no order (payment_mismatch)", async () => {
    const { rail, client } = setup();
    const good = payloadOf(await pay(client, await rail.challenge(charge)));
    const { order_id: _dropped, ...extra } = good.accepted.extra ?? {};
    const unbound = { ...good, accepted: { ...good.accepted, extra } };
    await refused(
      async () => rail.verify((await rail.readCredential(headersFor(unbound)))!, charge),
      "payment_mismatch",
      /another order/,
    );
  });

  it("refuses an expired authorization (payment_expired), by the clock and by its own window", async () => {
    const { rail, client, clock, account } = setup();
    const challenge = await rail.challenge(charge);
    const headers = await pay(client, challenge);
    clock.advance(301_000);
    await refused(async () => rail.verify((await rail.readCredential(headers))!, charge), "payment_expired");

    const live = setup();
    const now = BigInt(Math.floor(live.clock.now() / 1000));
    const stale = await signedPayload(account, challenge, { validAfter: 0n, validBefore: now - 1n });
    await refused(
      async () => live.rail.verify((await live.rail.readCredential(headersFor(stale)))!, charge),
      "payment_expired",
    );
    const early = await signedPayload(account, challenge, { validAfter: now + 60n, validBefore: now + 300n });
    await refused(
      async () => live.rail.verify((await live.rail.readCredential(headersFor(early)))!, charge),
      "verification_failed",
      /not valid yet/,
    );
  });

  it("maps the facilitator's expiry verdict to payment_expired", async () => {
    const { rail, client } = setup({
      facilitator: {
        verify: async () => ({
          isValid: false,
          invalidReason: "invalid_exact_evm_payload_authorization_valid_before",
        }),
        settle: async () => ({ success: false, transaction: "", network: BASE_SEPOLIA }),
        getSupported: async () => ({ kinds: [], extensions: [], signers: {} }),
      },
    });
    const headers = await pay(client, await rail.challenge(charge));
    await refused(async () => rail.verify((await rail.readCredential(headers))!, charge), "payment_expired");
  });

  it("refuses a broken or foreign signature with the facilitator's reason (verification_failed)", async () => {
    const { rail, client } = setup();
    const good = payloadOf(await pay(client, await rail.challenge(charge)));
    const s = good.payload.signature;
    const broken = {
      ...good,
      payload: { ...good.payload, signature: `${s.slice(0, 20)}${s[20] === "a" ? "b" : "a"}${s.slice(21)}` },
    };
    await refused(
      async () => rail.verify((await rail.readCredential(headersFor(broken)))!, charge),
      "verification_failed",
      /invalid_exact_evm_signature/,
    );
    const other = privateKeyToAccount(generatePrivateKey());
    const impostor = {
      ...good,
      payload: { ...good.payload, authorization: { ...good.payload.authorization, from: other.address } },
    };
    await refused(
      async () => rail.verify((await rail.readCredential(headersFor(impostor)))!, charge),
      "verification_failed",
      /invalid_exact_evm_signature/,
    );
  });

  it("says facilitator_unavailable when the facilitator cannot be asked", async () => {
    const { rail, client } = setup({
      facilitator: {
        verify: async () => {
          throw new Error("connect ECONNREFUSED 127.0.0.1:9");
        },
        settle: async () => {
          throw new Error("connect ECONNREFUSED 127.0.0.1:9");
        },
        getSupported: async () => ({ kinds: [], extensions: [], signers: {} }),
      },
    });
    const headers = await pay(client, await rail.challenge(charge));
    await refused(
      async () => rail.verify((await rail.readCredential(headers))!, charge),
      "facilitator_unavailable",
      /ECONNREFUSED/,
    );
  });
});

describe("createX402Rail: settle and receipts", () => {
  it("settles through the facilitator and answers PAYMENT-RESPONSE with the transaction", async () => {
    const { rail, client, clock, account } = setup();
    const headers = await pay(client, await rail.challenge(charge));
    const payment = await rail.verify((await rail.readCredential(headers))!, charge);
    clock.advance(1_000);
    const settlement = await rail.settle(payment, charge);
    const a = payloadOf(headers).payload.authorization;
    const expectedHash = keccak256(
      encodeAbiParameters(
        parseAbiParameters(
          "uint256 chainId, address token, address from, address to, uint256 value, uint256 validAfter, uint256 validBefore, bytes32 nonce",
        ),
        [
          84532n,
          BASE_SEPOLIA_USDC,
          a.from,
          a.to,
          BigInt(a.value),
          BigInt(a.validAfter),
          BigInt(a.validBefore),
          a.nonce,
        ],
      ),
    );
    assert.deepEqual(settlement, {
      protocol: "x402",
      status: "settled",
      reference: expectedHash,
      payer: account.address,
      amount_cents: 340,
      settledAt: clock.now(),
      details: {
        network: "eip155:84532",
        transaction: expectedHash,
        payer: account.address,
        amount: "3400000",
      },
    });
    const receipt = rail.receiptHeaders(settlement);
    assert.equal(receipt["Cache-Control"], "private");
    assert.deepEqual(decodePaymentResponseHeader(receipt["PAYMENT-RESPONSE"] ?? ""), {
      success: true,
      transaction: expectedHash,
      network: "eip155:84532",
      payer: account.address,
      amount: "3400000",
    });
  });

  it("refuses to settle a reused nonce (settlement_failed with the facilitator's reason)", async () => {
    const { rail, client } = setup();
    const headers = await pay(client, await rail.challenge(charge));
    const payment = await rail.verify((await rail.readCredential(headers))!, charge);
    await rail.settle(payment, charge);
    await refused(
      () => rail.settle(payment, charge),
      "settlement_failed",
      /invalid_exact_evm_nonce_already_used/,
    );
    await refused(
      async () => rail.verify((await rail.readCredential(headers))!, charge),
      "verification_failed",
      /invalid_exact_evm_nonce_already_used/,
    );
  });

  it("reports pending with the transaction when the facilitator's answer is not final", async () => {
    const local = createLocalFacilitator({ network: BASE_SEPOLIA });
    const { rail, client } = setup({
      facilitator: {
        ...local,
        async settle(payload, requirements) {
          const result = await local.settle(payload, requirements);
          return {
            ...result,
            success: false,
            errorReason: "settlement_pending",
            errorMessage: "receipt timeout",
          };
        },
      },
    });
    const payment = await rail.verify(
      (await rail.readCredential(await pay(client, await rail.challenge(charge))))!,
      charge,
    );
    const settlement = await rail.settle(payment, charge);
    assert.equal(settlement.status, "pending");
    assert.match(settlement.reference, /^0x[0-9a-f]{64}$/);
    const response = decodePaymentResponseHeader(rail.receiptHeaders(settlement)["PAYMENT-RESPONSE"] ?? "");
    assert.equal(response.success, false);
    assert.equal(response.errorReason, "settlement_pending");
    assert.equal(response.transaction, settlement.reference);
  });

  it("turns a failed settlement into settlement_failed and an unanswered one into facilitator_unavailable", async () => {
    const local = createLocalFacilitator({ network: BASE_SEPOLIA });
    let settle: FacilitatorClient["settle"] = async () => ({
      success: false,
      errorReason: "invalid_exact_evm_insufficient_balance",
      transaction: "",
      network: BASE_SEPOLIA,
    });
    const { rail, client } = setup({ facilitator: { ...local, settle: (p, r) => settle(p, r) } });
    const payment = await rail.verify(
      (await rail.readCredential(await pay(client, await rail.challenge(charge))))!,
      charge,
    );
    await refused(() => rail.settle(payment, charge), "settlement_failed", /insufficient_balance/);
    settle = async () => {
      throw new Error("socket hang up");
    };
    await refused(
      () => rail.settle(payment, charge),
      "facilitator_unavailable",
      /do not settle this payment again/,
    );
  });

  it("settles only the charge it verified", async () => {
    const { rail, client } = setup();
    const payment = await rail.verify(
      (await rail.readCredential(await pay(client, await rail.challenge(charge))))!,
      charge,
    );
    await refused(() => rail.settle(payment, { ...charge, amount_cents: 341 }), "payment_mismatch");
    await refused(() => rail.settle({ ...payment, protocol: "mpp" }, charge), "method_unsupported");
  });
});

describe("createX402Rail: credentials from any transport", () => {
  it("parses the PAYMENT-SIGNATURE value itself, as readCredential does, and names its header", async () => {
    const { rail, client } = setup();
    assert.equal(rail.credentialHeader, "payment-signature");
    const headers = await pay(client, await rail.challenge(charge));
    const value = headers.get("payment-signature") ?? "";
    assert.deepEqual(await rail.parseCredential(value), await rail.readCredential(headers));
    assert.deepEqual((await rail.parseCredential(` ${value} `))?.decoded, payloadOf(headers));
  });

  it("refuses an oversized value before decoding it, and a value that is not base64 JSON, with clear messages", async () => {
    const { rail, client } = setup();
    const good = payloadOf(await pay(client, await rail.challenge(charge)));
    const oversized = encodeSignature({ ...good, extensions: { padding: "x".repeat(20_000) } });
    await refused(() => rail.parseCredential(oversized), "malformed_credential", /longer than 16384/);
    await refused(() => rail.parseCredential("%%%"), "malformed_credential", /not standard base64/);
    await refused(
      () => rail.parseCredential(Buffer.from("{not json").toString("base64")),
      "malformed_credential",
      /not base64 of UTF-8 JSON/,
    );
  });
});

describe("createX402Rail: confirm on the local facilitator", () => {
  async function verified(rail: ReturnType<typeof setup>["rail"], client: x402Client) {
    return rail.verify((await rail.readCredential(await pay(client, await rail.challenge(charge))))!, charge);
  }

  function ask(payment: Awaited<ReturnType<typeof verified>>, startedAt: number) {
    const details = JSON.parse(JSON.stringify(payment.details)) as unknown;
    return { replayKey: payment.replayKey, amount_cents: payment.amount_cents, details, startedAt };
  }

  it("answers the settlement settle made, with its hash, payer and the time settle began", async () => {
    const { rail, client, clock } = setup();
    const payment = await verified(rail, client);
    const startedAt = clock.now();
    const settlement = await rail.settle(payment, charge);
    clock.advance(60_000);
    assert.deepEqual(await rail.confirm!(ask(payment, startedAt)), { ...settlement, settledAt: startedAt });
  });

  it("answers failed for an authorization it never settled, and pending when its spent nonces cannot be read", async () => {
    const { rail, client } = setup();
    const payment = await verified(rail, client);
    const answer = await rail.confirm!(ask(payment, Date.now()));
    assert.equal(answer.status, "failed");
    assert.equal((answer as { code: string }).code, "settlement_failed");

    // Two processes whose shared nonce store can only be claimed: each knows only what it spent itself.
    const seen = new Set<string>();
    const claimOnly = {
      async claim(key: string) {
        if (seen.has(key)) return false;
        seen.add(key);
        return true;
      },
    };
    const here = setup({
      facilitator: createLocalFacilitator({ network: BASE_SEPOLIA, usedNonces: claimOnly }),
    });
    const there = createX402Rail({
      network: BASE_SEPOLIA,
      payTo: PAY_TO,
      facilitator: createLocalFacilitator({ network: BASE_SEPOLIA, usedNonces: claimOnly }),
    });
    const unsettled = await verified(here.rail, here.client);
    assert.deepEqual(await there.confirm!(ask(unsettled, Date.now())), { status: "pending" });
    const paid = await verified(here.rail, here.client);
    const settlement = await here.rail.settle(paid, charge);
    assert.equal((await here.rail.confirm!(ask(paid, Date.now()))).status, "settled");
    assert.deepEqual(await there.confirm!(ask(paid, Date.now())), { status: "pending" });
    assert.equal(settlement.status, "settled");
  });

  it("refuses details of another rail's token", async () => {
    const { rail, client } = setup();
    const payment = await verified(rail, client);
    const onBase = createX402Rail({
      network: BASE,
      payTo: PAY_TO,
      facilitator: createLocalFacilitator({ network: BASE }),
    });
    await refused(() => onBase.confirm!(ask(payment, Date.now())), "method_unsupported", /eip155:8453 USDC/);
  });
});
