import { type Clock, systemClock } from "@mailpiece/ports";
import { x402Facilitator } from "@x402/core/facilitator";
import type { FacilitatorClient } from "@x402/core/server";
import type {
  PaymentPayload,
  PaymentRequirements,
  SettleResponse,
  SupportedResponse,
  VerifyResponse,
} from "@x402/core/types";
import { ExactEvmScheme } from "@x402/evm/exact/facilitator";
import type { Hex } from "viem";
import {
  type AuthorizationTerms,
  createSimulatedUsdc,
  memoryUsedNonces,
  simulatedTransactionHash,
  type UsedNonces,
} from "./simulated-usdc.ts";
import { type EvmNetwork, resolveUsdc } from "./usdc.ts";

export interface LocalFacilitatorOptions {
  /** CAIP-2 network the simulated USDC lives on, e.g. "eip155:84532". */
  network: string;
  /** Block time of the simulated chain; defaults to the system clock. */
  clock?: Clock;
  /** Where spent authorization nonces are remembered; in memory by default. Back it with a Store to persist. */
  usedNonces?: UsedNonces;
  /** The USDC address on `network`; defaults to the one @x402/evm lists. */
  asset?: string;
}

/** A facilitator that verifies real signatures and simulates settlement; for development and tests only. */
export type LocalFacilitator = FacilitatorClient & {
  readonly simulated: true;
  readonly network: EvmNetwork;
  /**
   * The simulated USDC's `authorizationState(authorizer, nonce)`: true when the authorization was used (its funds
   * moved), false when it was not, undefined when it cannot tell (a `usedNonces` without `has`, and a nonce this
   * process did not spend). Reads only.
   */
  authorizationState(authorizer: string, nonce: string): Promise<boolean | undefined>;
  /** The transaction hash its settlement of an authorization has (the same in every process). */
  transactionHash(authorization: AuthorizationTerms): Hex;
};

/**
 * An offline x402 facilitator. Verification is the reference one (@x402/evm's exact-EVM facilitator scheme:
 * scheme, network, EIP-712 domain and signature, recipient, amount, validity window, then a simulated
 * `transferWithAuthorization`), run against an in-memory USDC contract where every payer has unlimited funds.
 * Settlement "broadcasts" to that contract: a spent nonce is refused, and the transaction hash is the keccak of
 * the authorization, so it is the same for the same payment. A settlement is atomic and in this process: once
 * `settle` has returned or thrown, an authorization whose nonce is unused was not settled.
 */
export function createLocalFacilitator(options: LocalFacilitatorOptions): LocalFacilitator {
  const token = resolveUsdc(options.network, options.asset);
  const { signer, authorizationState } = createSimulatedUsdc({
    token,
    clock: options.clock ?? systemClock,
    usedNonces: options.usedNonces ?? memoryUsedNonces(),
  });
  const facilitator = new x402Facilitator().register(token.network, new ExactEvmScheme(signer));

  return {
    simulated: true,
    network: token.network,
    authorizationState,
    transactionHash: (authorization) => simulatedTransactionHash(token, authorization),
    async verify(payload: PaymentPayload, requirements: PaymentRequirements): Promise<VerifyResponse> {
      try {
        return await facilitator.verify(payload, requirements);
      } catch (error) {
        return { isValid: false, invalidReason: "invalid_payload", invalidMessage: messageOf(error) };
      }
    },
    async settle(payload: PaymentPayload, requirements: PaymentRequirements): Promise<SettleResponse> {
      try {
        return await facilitator.settle(payload, requirements);
      } catch (error) {
        return {
          success: false,
          errorReason: "invalid_payload",
          errorMessage: messageOf(error),
          transaction: "",
          network: requirements.network,
        };
      }
    },
    async getSupported(): Promise<SupportedResponse> {
      return facilitator.getSupported() as SupportedResponse;
    },
  };
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
