export {
  createHttpFacilitator,
  type HttpFacilitator,
  type HttpFacilitatorOptions,
} from "./http-facilitator.ts";
export {
  createLocalFacilitator,
  type LocalFacilitator,
  type LocalFacilitatorOptions,
} from "./local-facilitator.ts";
export { formatUsd, paymentRequiredFor, requirementsFor, spendCapMessage } from "./payment-required.ts";
export {
  decodePaymentSignature,
  type Eip3009Authorization,
  type ExactEvmPaymentPayload,
} from "./payment-signature.ts";
export {
  type AuthorizationTerms,
  authorizationKey,
  memoryUsedNonces,
  SIMULATED_FACILITATOR_ADDRESS,
  simulatedTransactionHash,
  type UsedNonces,
} from "./simulated-usdc.ts";
export {
  BASE,
  BASE_SEPOLIA,
  centsToUsdcUnits,
  type EvmNetwork,
  resolveUsdc,
  type UsdcToken,
} from "./usdc.ts";
export {
  createX402Rail,
  PAYMENT_SIGNATURE_HEADER,
  type X402PaymentDetails,
  type X402RailOptions,
  type X402SettlementDetails,
} from "./x402-rail.ts";
