import { paymentRailContract } from "@mailpiece/conformance";
import { registerSuite } from "@mailpiece/conformance/vitest";
import { manualClock, type PaymentChallenge } from "@mailpiece/ports";
import { x402Client, x402HTTPClient } from "@x402/core/client";
import { decodePaymentRequiredHeader, encodePaymentSignatureHeader } from "@x402/core/http";
import type { FacilitatorClient } from "@x402/core/server";
import { registerExactEvmScheme } from "@x402/evm/exact/client";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { createLocalFacilitator } from "./local-facilitator.ts";
import { decodePaymentSignature } from "./payment-signature.ts";
import { memoryUsedNonces } from "./simulated-usdc.ts";
import { BASE_SEPOLIA } from "./usdc.ts";
import { createX402Rail } from "./x402-rail.ts";

const PAY_TO = "0x209693Bc6afc0C5328bA36FaF03C514EF312287C";

function rewrite(
  headers: Headers,
  change: (payload: ReturnType<typeof decodePaymentSignature>) => void,
): Headers {
  const payload = decodePaymentSignature(headers.get("payment-signature") ?? "");
  change(payload);
  return new Headers({ "payment-signature": encodePaymentSignatureHeader(payload) });
}

registerSuite(
  paymentRailContract({
    name: "x402 rail (Base Sepolia USDC, local facilitator, reference x402 client)",
    async create() {
      const clock = manualClock(Date.now());
      // Spent nonces shared by every facilitator of this chain, as a store shared by processes would hold them.
      const usedNonces = memoryUsedNonces();
      const local = createLocalFacilitator({ network: BASE_SEPOLIA, clock, usedNonces });
      let hold = false;
      let fault: "lose_answer" | "fail_before" | undefined;
      const facilitator: FacilitatorClient = {
        ...local,
        async settle(payload, requirements) {
          const injected = fault;
          fault = undefined;
          if (injected === "fail_before") throw new Error("connect ECONNREFUSED 127.0.0.1:9");
          const result = await local.settle(payload, requirements);
          if (injected === "lose_answer") throw new Error("socket hang up after the transfer");
          if (!hold || !result.success) return result;
          return {
            ...result,
            success: false,
            errorReason: "settlement_pending",
            errorMessage: "not yet confirmed",
          };
        },
      };
      const rail = createX402Rail({ network: BASE_SEPOLIA, payTo: PAY_TO, facilitator, clock });
      const client = x402Client.fromConfig({ schemes: [], spendControls: { maxAmountPerPayment: "$250" } });
      registerExactEvmScheme(client, { signer: privateKeyToAccount(generatePrivateKey()) });
      const http = new x402HTTPClient(client);

      return {
        rail,
        async pay(challenge: PaymentChallenge) {
          const header = challenge.headers["PAYMENT-REQUIRED"];
          if (typeof header !== "string") throw new Error("the challenge has no PAYMENT-REQUIRED header");
          const payload = await client.createPaymentPayload(decodePaymentRequiredHeader(header));
          return new Headers(http.encodePaymentSignatureHeader(payload));
        },
        tamper: (headers) =>
          rewrite(headers, (p) => {
            p.accepted.amount = "1";
            p.payload.authorization.value = "1";
          }),
        forge: (headers) =>
          rewrite(headers, (p) => {
            const s = p.payload.signature;
            p.payload.signature =
              `${s.slice(0, 10)}${s[10] === "0" ? "1" : "0"}${s.slice(11)}` as `0x${string}`;
          }),
        expire: () => clock.advance(10 * 60 * 1000),
        holdSettlement: () => {
          hold = true;
        },
        another: () =>
          createX402Rail({
            network: BASE_SEPOLIA,
            payTo: PAY_TO,
            facilitator: createLocalFacilitator({ network: BASE_SEPOLIA, clock, usedNonces }),
            clock,
          }),
        faults: {
          loseAnswerAfterTransfer: () => {
            fault = "lose_answer";
          },
          failBeforeTransfer: () => {
            fault = "fail_before";
          },
        },
      };
    },
  }),
);
