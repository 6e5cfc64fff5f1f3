export type { FlowerQuoteBreakdown, FlowerQuoteView } from "./florist-checks.ts";
export type {
  FlowerContext,
  FlowerLetterStatus,
  FlowerOrderRecord,
  FlowerSubmissionRecord,
} from "./record.ts";
export { flowerPayable } from "./record.ts";
export { FLOWER_SUBMISSIONS_QUEUE, flowerSubmissionWork } from "./submission.ts";
export type { FlowerCreateInput, FlowerCreateOutcome } from "./use-cases.ts";
export {
  createFlowerLetter,
  flowerRequestConflict,
  getFlowerLetter,
  submitFlowerLetter,
  validateFlowerLetter,
} from "./use-cases.ts";
export type { FlowerOrderView } from "./view.ts";
export { flowerOrderView } from "./view.ts";
