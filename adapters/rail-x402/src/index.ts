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
  decodeBase64Json,
  decodePaymentSignature,
  type Eip3009Authorization,
  type ExactEvmPaymentPayload,
  encodeBase64Json,
} from "./payment-signature.ts";
export {
  authorizationKey,
  memoryUsedNonces,
  SIMULATED_FACILITATOR_ADDRESS,
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
