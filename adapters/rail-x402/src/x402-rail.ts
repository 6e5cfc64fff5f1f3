import { isDeepStrictEqual } from "node:util";
import {
  type Charge,
  type Clock,
  type PaymentConfirmation,
  PaymentError,
  type PaymentErrorCode,
  type PaymentRail,
  type Settlement,
  systemClock,
  type VerifiedPayment,
} from "@mailpiece/ports";
import { encodePaymentRequiredHeader, encodePaymentResponseHeader } from "@x402/core/http";
import type { FacilitatorClient } from "@x402/core/server";
import {
  type Network,
  type PaymentRequirements,
  SettleError,
  type SettleResponse,
  VerifyError,
  type VerifyResponse,
} from "@x402/core/types";
import { getAddress, isAddressEqual, type PublicClient } from "viem";
import {
  type AuthorizationOutcome,
  chainReader,
  confirmOnChain,
  confirmOnLocalLedger,
  isLocalLedger,
} from "./confirm-settlement.ts";
import {
  paymentRequiredFor,
  type RequirementTerms,
  requirementsFor,
  spendCapMessage,
} from "./payment-required.ts";
import {
  decodePaymentSignature,
  type ExactEvmPaymentPayload,
  parsePaymentPayload,
} from "./payment-signature.ts";
import { resolveUsdc, type UsdcToken } from "./usdc.ts";

export interface X402RailOptions {
  /** CAIP-2 network: "eip155:84532" (Base Sepolia) or "eip155:8453" (Base), or another with a known USDC. */
  network: "eip155:84532" | "eip155:8453" | (string & {});
  /** The address that receives the USDC. */
  payTo: string;
  /** USDC address on `network`; defaults to the USDC @x402/evm lists for it (Circle's USDC on Base). */
  asset?: string;
  /** Verifies and settles payments: `createHttpFacilitator(...)`, or `createLocalFacilitator(...)` offline. */
  facilitator: FacilitatorClient;
  /** How long a signed authorization stays valid, in seconds (default 300). */
  maxTimeoutSeconds?: number;
  clock?: Clock;
  /**
   * Where `confirm` reads the chain when the facilitator is not the local one: a JSON-RPC URL of `network`. Without
   * it (or `publicClient`), `confirm` answers `pending` for a remote facilitator's settlements, since an x402
   * facilitator has no way to ask about one.
   */
  rpcUrl?: string;
  /** A viem public client on `network`, instead of `rpcUrl`. */
  publicClient?: PublicClient;
}

/** What `verify` hands to `settle`. Plain JSON, so it may be stored between the two. */
export interface X402PaymentDetails {
  payload: ExactEvmPaymentPayload;
  requirements: PaymentRequirements;
}

/** What `settle` hands to `receiptHeaders`: the x402 settle response for PAYMENT-RESPONSE. */
export interface X402SettlementDetails {
  network: string;
  transaction: string;
  payer: string;
  amount: string;
}

/** The header that carries an x402 credential, lower-cased. */
export const PAYMENT_SIGNATURE_HEADER = "payment-signature";
/** Seconds an authorization must still be valid for settlement to land (the reference facilitator's margin). */
const SETTLEMENT_MARGIN_SECONDS = 6;
const SETTLEMENT_PENDING = "settlement_pending";

const EXPIRED_REASONS = new Set(["invalid_exact_evm_payload_authorization_valid_before"]);
const MISMATCH_REASONS = new Set([
  "invalid_exact_evm_scheme",
  "invalid_exact_evm_network_mismatch",
  "invalid_exact_evm_recipient_mismatch",
  "invalid_exact_evm_payload_authorization_value_mismatch",
]);

/**
 * The x402 v2 PaymentRail: USDC on an EVM network, `exact` scheme, EIP-3009 authorizations, checked and settled by
 * a facilitator. Requirements are a pure function of the Charge, so a paid retry must carry exactly the
 * requirement its 402 offered, including the order it names (`extra.order_id`) and, when the payload states one,
 * the resource URL: a payment made for one order does not pay another of the same price.
 */
export function createX402Rail(options: X402RailOptions): PaymentRail {
  const token = resolveUsdc(options.network, options.asset);
  if (typeof options.payTo !== "string" || !/^0x[0-9a-fA-F]{40}$/.test(options.payTo)) {
    throw new TypeError(`payTo must be a 0x-prefixed 20-byte address, got ${JSON.stringify(options.payTo)}`);
  }
  const maxTimeoutSeconds = options.maxTimeoutSeconds ?? 300;
  if (!Number.isSafeInteger(maxTimeoutSeconds) || maxTimeoutSeconds < 30) {
    throw new RangeError(`maxTimeoutSeconds must be an integer of at least 30, got ${maxTimeoutSeconds}`);
  }
  const terms: RequirementTerms = { token, payTo: getAddress(options.payTo), maxTimeoutSeconds };
  const facilitator = options.facilitator;
  const clock = options.clock ?? systemClock;
  const chain = chainReader(options);
  const local = isLocalLedger(facilitator) ? facilitator : undefined;

  function refuseForeign(protocol: string): void {
    if (protocol !== "x402") {
      throw new PaymentError("method_unsupported", `the x402 rail cannot handle a ${protocol} payment`);
    }
  }

  async function parseCredential(value: string) {
    return { protocol: "x402" as const, raw: value, decoded: decodePaymentSignature(value.trim()) };
  }

  /** Where the authorization stands where the facilitator settles it. */
  async function outcomeOf(
    authorization: ExactEvmPaymentPayload["payload"]["authorization"],
    reference: string | undefined,
    startedAt: number,
  ): Promise<AuthorizationOutcome> {
    if (local) return confirmOnLocalLedger(local, authorization, startedAt);
    if (chain) return confirmOnChain(chain, token, authorization, reference, startedAt);
    return { status: "pending" };
  }

  return {
    protocol: "x402",
    simulated: (facilitator as { simulated?: unknown }).simulated === true,
    credentialHeader: PAYMENT_SIGNATURE_HEADER,

    async challenge(charge, failure) {
      const paymentRequired = paymentRequiredFor(charge, terms);
      if (failure) paymentRequired.error = failure.message;
      return {
        status: failure?.code === "facilitator_unavailable" ? 503 : 402,
        headers: {
          "PAYMENT-REQUIRED": encodePaymentRequiredHeader(paymentRequired),
          "Cache-Control": "no-store",
        },
        body: {
          ...paymentRequired,
          message: spendCapMessage(charge, token),
          ...(failure ? { code: failure.code } : {}),
        },
        contentType: "application/json",
      };
    },

    // Every PAYMENT-SIGNATURE value is meant for x402, so a value that does not decode is malformed, never foreign.
    parseCredential,

    async readCredential(headers) {
      const raw = headers.get(PAYMENT_SIGNATURE_HEADER);
      return raw === null ? undefined : parseCredential(raw);
    },

    async verify(credential, charge) {
      refuseForeign(credential.protocol);
      const payload = parsePaymentPayload(credential.decoded);
      const requirements = requirementsFor(charge, terms);
      const authorization = payload.payload.authorization;

      if (payload.accepted.extra?.order_id !== charge.order_ref) {
        throw new PaymentError(
          "payment_mismatch",
          "the payment was signed for another order; sign this order's own PAYMENT-REQUIRED challenge",
        );
      }
      if (payload.resource?.url !== undefined && payload.resource.url !== charge.resource_url) {
        throw new PaymentError(
          "payment_mismatch",
          `the credential pays for ${payload.resource.url}, not this resource`,
        );
      }
      const differing = differingFields(payload.accepted, requirements);
      if (differing.length > 0) {
        throw new PaymentError(
          "payment_mismatch",
          `the credential accepted different terms than this order asks (${differing.join(", ")})`,
        );
      }
      if (!isAddressEqual(authorization.to, terms.payTo)) {
        throw new PaymentError("payment_mismatch", "the authorization pays another address");
      }
      if (authorization.value !== requirements.amount) {
        throw new PaymentError(
          "payment_mismatch",
          `the authorization moves ${authorization.value}, not ${requirements.amount}`,
        );
      }
      const now = Math.floor(clock.now() / 1000);
      if (BigInt(authorization.validBefore) < BigInt(now + SETTLEMENT_MARGIN_SECONDS)) {
        throw new PaymentError(
          "payment_expired",
          "the payment authorization has expired; pay the new challenge",
        );
      }
      if (BigInt(authorization.validAfter) > BigInt(now)) {
        throw new PaymentError("verification_failed", "the payment authorization is not valid yet");
      }

      let result: VerifyResponse;
      try {
        result = await facilitator.verify(payload, requirements);
      } catch (error) {
        if (error instanceof VerifyError) {
          result = {
            isValid: false,
            invalidReason: error.invalidReason,
            invalidMessage: error.invalidMessage,
          };
        } else {
          throw new PaymentError(
            "facilitator_unavailable",
            `the x402 facilitator did not answer verify: ${messageOf(error)}`,
            {
              cause: error,
            },
          );
        }
      }
      if (!result.isValid) {
        const reason = result.invalidReason ?? "invalid_payment";
        throw new PaymentError(
          verifyFailureCode(reason),
          `the x402 facilitator refused the payment: ${reason}${result.invalidMessage ? ` (${result.invalidMessage})` : ""}`,
          { cause: result },
        );
      }

      const details: X402PaymentDetails = { payload, requirements };
      return {
        protocol: "x402",
        replayKey: replayKeyOf(requirements, authorization),
        payer: getAddress(authorization.from),
        amount_cents: charge.amount_cents,
        details,
      };
    },

    async settle(payment, charge) {
      refuseForeign(payment.protocol);
      const { payload, requirements } = verifiedDetails(payment, charge, terms);

      let response: SettleResponse;
      try {
        response = await facilitator.settle(payload, requirements);
      } catch (error) {
        if (error instanceof SettleError) {
          response = {
            success: false,
            errorReason: error.errorReason,
            errorMessage: error.errorMessage,
            transaction: error.transaction,
            network: error.network,
            payer: error.payer,
          };
        } else {
          throw new PaymentError(
            "facilitator_unavailable",
            `the x402 facilitator did not answer settle, so the outcome is unknown; do not settle this payment again, ` +
              `reconcile it on chain: ${messageOf(error)}`,
            { cause: error },
          );
        }
      }

      const payer = getAddress(response.payer ?? payload.payload.authorization.from);
      const pending =
        !response.success && response.errorReason === SETTLEMENT_PENDING && !!response.transaction;
      if (!response.success && !pending) {
        const reason = response.errorReason ?? "settlement_failed";
        throw new PaymentError(
          "settlement_failed",
          `the x402 facilitator could not settle the payment: ${reason}${response.errorMessage ? ` (${response.errorMessage})` : ""}`,
          { cause: response },
        );
      }
      if (!response.transaction) {
        throw new PaymentError(
          "facilitator_unavailable",
          "the x402 facilitator reported a settlement without a transaction hash; do not settle this payment again",
          { cause: response },
        );
      }
      const details: X402SettlementDetails = {
        network: requirements.network,
        transaction: response.transaction,
        payer,
        amount: response.amount ?? requirements.amount,
      };
      return {
        protocol: "x402",
        status: pending ? "pending" : "settled",
        reference: response.transaction,
        payer,
        amount_cents: charge.amount_cents,
        settledAt: clock.now(),
        details,
      };
    },

    receiptHeaders(settlement) {
      refuseForeign(settlement.protocol);
      const details = settlementDetails(settlement);
      const body: SettleResponse =
        settlement.status === "settled"
          ? { success: true, ...details, network: details.network as Network }
          : {
              success: false,
              errorReason: SETTLEMENT_PENDING,
              errorMessage: "the transaction is broadcast but not yet final; do not pay again",
              ...details,
              network: details.network as Network,
            };
      return { "PAYMENT-RESPONSE": encodePaymentResponseHeader(body), "Cache-Control": "private" };
    },

    async confirm(payment): Promise<PaymentConfirmation> {
      // A question without the verified details cannot name the authorization.
      const { payload, requirements } = confirmableDetails(payment.details, token);
      const authorization = payload.payload.authorization;
      if (payment.replayKey !== replayKeyOf(requirements, authorization)) {
        throw new PaymentError(
          "payment_mismatch",
          "the replay key does not belong to this payment's authorization",
        );
      }
      const outcome = await outcomeOf(authorization, payment.reference, payment.startedAt);
      if (outcome.status !== "settled") return outcome;
      const payer = getAddress(authorization.from);
      const details: X402SettlementDetails = {
        network: requirements.network,
        transaction: outcome.transaction,
        payer,
        amount: requirements.amount,
      };
      return {
        protocol: "x402",
        status: "settled",
        reference: outcome.transaction,
        payer,
        amount_cents: payment.amount_cents,
        settledAt: outcome.settledAt,
        details,
      };
    },
  };
}

/** The replay key of an authorization: network, asset, payer and nonce, lower-cased. */
function replayKeyOf(
  requirements: PaymentRequirements,
  authorization: ExactEvmPaymentPayload["payload"]["authorization"],
): string {
  return `x402:${requirements.network}:${requirements.asset}:${authorization.from}:${authorization.nonce}`.toLowerCase();
}

/** The details `verify` returned, read back from the store, for a payment on this rail's token. */
function confirmableDetails(value: unknown, token: UsdcToken): X402PaymentDetails {
  const details = value as Partial<X402PaymentDetails> | null | undefined;
  if (typeof details !== "object" || details === null || typeof details.requirements !== "object") {
    throw new PaymentError("method_unsupported", "this payment was not verified by the x402 rail");
  }
  const payload = parsePaymentPayload(details.payload);
  const requirements = details.requirements as PaymentRequirements;
  if (
    requirements === null ||
    requirements.network !== token.network ||
    typeof requirements.asset !== "string" ||
    !/^0x[0-9a-fA-F]{40}$/.test(requirements.asset) ||
    !isAddressEqual(requirements.asset as `0x${string}`, token.address) ||
    typeof requirements.amount !== "string"
  ) {
    throw new PaymentError("method_unsupported", `this payment was not made in ${token.network} USDC`);
  }
  return { payload, requirements };
}

function differingFields(accepted: PaymentRequirements, expected: PaymentRequirements): string[] {
  const keys = new Set([...Object.keys(accepted), ...Object.keys(expected)]);
  return [...keys].filter(
    (key) =>
      !isDeepStrictEqual(
        (accepted as unknown as Record<string, unknown>)[key],
        (expected as unknown as Record<string, unknown>)[key],
      ),
  );
}

function verifyFailureCode(reason: string): PaymentErrorCode {
  if (EXPIRED_REASONS.has(reason)) return "payment_expired";
  if (MISMATCH_REASONS.has(reason)) return "payment_mismatch";
  return "verification_failed";
}

/** The details of a payment `verify` produced, checked again against the charge being settled. */
function verifiedDetails(
  payment: VerifiedPayment,
  charge: Charge,
  terms: RequirementTerms,
): X402PaymentDetails {
  const details = payment.details as Partial<X402PaymentDetails> | null | undefined;
  if (typeof details !== "object" || details === null) {
    throw new PaymentError("method_unsupported", "this payment was not verified by the x402 rail");
  }
  const payload = parsePaymentPayload(details.payload);
  const requirements = requirementsFor(charge, terms);
  if (
    !isDeepStrictEqual(details.requirements, requirements) ||
    payment.amount_cents !== charge.amount_cents
  ) {
    throw new PaymentError(
      "payment_mismatch",
      "the verified payment was for different terms than this charge",
    );
  }
  return { payload, requirements };
}

function settlementDetails(settlement: Settlement): X402SettlementDetails {
  const d = settlement.details as Partial<X402SettlementDetails> | null | undefined;
  if (
    typeof d !== "object" ||
    d === null ||
    typeof d.network !== "string" ||
    typeof d.transaction !== "string" ||
    typeof d.payer !== "string" ||
    typeof d.amount !== "string"
  ) {
    throw new PaymentError("method_unsupported", "this settlement was not made by the x402 rail");
  }
  return { transaction: d.transaction, network: d.network, payer: d.payer, amount: d.amount };
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
