import { strict as assert } from "node:assert";
import { type Charge, manualClock } from "@mailpiece/ports";
import { x402Client } from "@x402/core/client";
import type { PaymentRequired } from "@x402/core/types";
import { registerExactEvmScheme } from "@x402/evm/exact/client";
import { isHash } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { describe, it } from "vitest";
import { createLocalFacilitator } from "./local-facilitator.ts";
import { paymentRequiredFor } from "./payment-required.ts";
import { SIMULATED_FACILITATOR_ADDRESS, type UsedNonces } from "./simulated-usdc.ts";
import { BASE_SEPOLIA, resolveUsdc } from "./usdc.ts";

const PAY_TO = "0x209693Bc6afc0C5328bA36FaF03C514EF312287C";
const charge: Charge = {
  amount_cents: 1250,
  currency: "usd",
  resource_url: "https://mailpiece.example/api/machine/orders",
  description: "Certified letter",
  order_ref: "0b4c8d3a-1f2e-4a5b-8c6d-7e8f9a0b1c2d",
};

function required(overrides: { name?: string } = {}): PaymentRequired {
  const token = resolveUsdc(BASE_SEPOLIA);
  return paymentRequiredFor(charge, {
    token: { ...token, ...overrides },
    payTo: PAY_TO,
    maxTimeoutSeconds: 300,
  });
}

async function signedBy(paymentRequired: PaymentRequired) {
  const account = privateKeyToAccount(generatePrivateKey());
  const client = x402Client.fromConfig({ schemes: [], spendControls: { maxAmountPerPayment: "$250" } });
  registerExactEvmScheme(client, { signer: account });
  return { account, payload: await client.createPaymentPayload(paymentRequired) };
}

function recordingNonces(): UsedNonces & { keys: string[] } {
  const keys: string[] = [];
  return {
    keys,
    async claim(key) {
      if (keys.includes(key)) return false;
      keys.push(key);
      return true;
    },
  };
}

describe("createLocalFacilitator", () => {
  it("supports the exact scheme on its network and is marked simulated", async () => {
    const facilitator = createLocalFacilitator({ network: BASE_SEPOLIA });
    assert.equal(facilitator.simulated, true);
    const supported = await facilitator.getSupported();
    assert.deepEqual(supported.kinds, [{ x402Version: 2, scheme: "exact", network: "eip155:84532" }]);
    assert.deepEqual(supported.signers, { "eip155:*": [SIMULATED_FACILITATOR_ADDRESS] });
  });

  it("verifies a reference client payment and settles it with a deterministic transaction hash", async () => {
    const paymentRequired = required();
    const requirements = paymentRequired.accepts[0]!;
    const { account, payload } = await signedBy(paymentRequired);
    const first = createLocalFacilitator({ network: BASE_SEPOLIA });
    assert.deepEqual(await first.verify(payload, requirements), {
      isValid: true,
      invalidReason: undefined,
      payer: account.address,
    });
    const settled = await first.settle(payload, requirements);
    assert.equal(settled.success, true);
    assert.equal(settled.payer, account.address);
    assert.equal(settled.network, "eip155:84532");
    assert.ok(isHash(settled.transaction), "a 32-byte transaction hash");
    const replayed = await createLocalFacilitator({ network: BASE_SEPOLIA }).settle(payload, requirements);
    assert.equal(replayed.transaction, settled.transaction, "the same authorization gives the same hash");
  });

  it("refuses a nonce it has settled, at settle and at verify", async () => {
    const paymentRequired = required();
    const requirements = paymentRequired.accepts[0]!;
    const { payload } = await signedBy(paymentRequired);
    const facilitator = createLocalFacilitator({ network: BASE_SEPOLIA });
    assert.equal((await facilitator.settle(payload, requirements)).success, true);
    const again = await facilitator.settle(payload, requirements);
    assert.equal(again.success, false);
    assert.equal(again.errorReason, "invalid_exact_evm_nonce_already_used");
    const verdict = await facilitator.verify(payload, requirements);
    assert.equal(verdict.isValid, false);
    assert.equal(verdict.invalidReason, "invalid_exact_evm_nonce_already_used");
  });

  it("keeps spent nonces where usedNonces says, so another instance refuses them too", async () => {
    const paymentRequired = required();
    const requirements = paymentRequired.accepts[0]!;
    const { account, payload } = await signedBy(paymentRequired);
    const usedNonces = recordingNonces();
    const before = createLocalFacilitator({ network: BASE_SEPOLIA, usedNonces });
    assert.equal((await before.settle(payload, requirements)).success, true);
    const nonce = (payload.payload.authorization as { nonce: string }).nonce;
    assert.deepEqual(usedNonces.keys, [
      `eip3009:eip155:84532:${requirements.asset}:${account.address}:${nonce}`.toLowerCase(),
    ]);
    const after = createLocalFacilitator({ network: BASE_SEPOLIA, usedNonces });
    const refused = await after.settle(payload, requirements);
    assert.equal(refused.success, false);
    assert.equal(refused.errorReason, "invalid_exact_evm_nonce_already_used");
  });

  it("checks the recipient and amount against the requirements", async () => {
    const paymentRequired = required();
    const requirements = paymentRequired.accepts[0]!;
    const { payload } = await signedBy(paymentRequired);
    const facilitator = createLocalFacilitator({ network: BASE_SEPOLIA });
    const elsewhere = await facilitator.verify(payload, {
      ...requirements,
      payTo: "0x000000000000000000000000000000000000dEaD",
    });
    assert.equal(elsewhere.invalidReason, "invalid_exact_evm_recipient_mismatch");
    const dearer = await facilitator.verify(payload, { ...requirements, amount: "12500001" });
    assert.equal(dearer.invalidReason, "invalid_exact_evm_payload_authorization_value_mismatch");
  });

  it("refuses an authorization signed for another EIP-712 domain than the token's", async () => {
    const wrongDomain = required({ name: "USD Coin" });
    const requirements = wrongDomain.accepts[0]!;
    const { payload } = await signedBy(wrongDomain);
    const verdict = await createLocalFacilitator({ network: BASE_SEPOLIA }).verify(payload, requirements);
    assert.equal(verdict.isValid, false);
    assert.equal(verdict.invalidReason, "invalid_exact_evm_token_name_mismatch");
  });

  it("uses its clock as block time: an authorization past its window does not settle", async () => {
    const clock = manualClock(Date.now());
    const paymentRequired = required();
    const requirements = paymentRequired.accepts[0]!;
    const { payload } = await signedBy(paymentRequired);
    const facilitator = createLocalFacilitator({ network: BASE_SEPOLIA, clock });
    clock.advance(301_000);
    const verdict = await facilitator.verify(payload, requirements);
    assert.equal(verdict.isValid, false);
    assert.match(verdict.invalidMessage ?? "", /authorization is expired/);
    const settled = await facilitator.settle(payload, requirements);
    assert.equal(settled.success, false);
    assert.equal(settled.errorReason, "invalid_exact_evm_payload_authorization_valid_before");
  });

  it("answers a payload it cannot read with isValid false instead of throwing", async () => {
    const requirements = required().accepts[0]!;
    const facilitator = createLocalFacilitator({ network: BASE_SEPOLIA });
    const broken = { x402Version: 2, accepted: requirements, payload: { signature: "0x00" } };
    const verdict = await facilitator.verify(broken, requirements);
    assert.equal(verdict.isValid, false);
    const settled = await facilitator.settle(broken, requirements);
    assert.equal(settled.success, false);
    assert.equal(settled.transaction, "");
  });
});
