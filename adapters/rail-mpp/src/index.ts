export type { MppConfirmAnswer, MppConfirmQuestion, MppMethodConfig } from "./method-config.ts";
export { centsToDecimal } from "./method-config.ts";
export type { MppProblem, MppProblemBody } from "./mpp-problem.ts";
export { mppProblem, PROBLEM_CONTENT_TYPE } from "./mpp-problem.ts";
export type { MppRailOptions } from "./mpp-rail.ts";
export { createMppRail } from "./mpp-rail.ts";
export type { StripeMethodOptions } from "./stripe-method.ts";
export { stripeMethod } from "./stripe-method.ts";
export type { TempoMethodOptions } from "./tempo-method.ts";
export { tempoMethod } from "./tempo-method.ts";
export type { TestChargeLedger, TestMethodOptions } from "./test-method.ts";
export {
  DECLINED_TEST_TOKEN,
  memoryTestLedger,
  testCharge,
  testMethod,
  testMethodClient,
} from "./test-method.ts";
