export { FlowersError, type FlowersErrorCode } from "./errors.ts";
export { EXAMPLE_FLOWER_LETTER_REQUEST } from "./examples.ts";
export {
  centsToUsd,
  checkFlowerQuote,
  FLOWER_LETTER_BOUNDS,
  type FlowerQuoteBounds,
} from "./flower-letter-bounds.ts";
export {
  COUNTRY_PATTERN,
  FlowerCustomer,
  FlowerLetterRequest,
  type FlowerLetterRequestBody,
  FlowerRecipient,
  MAX_CARD_NOTE_CHARS,
  PHONE_PATTERN,
  PRODUCT_CODE_PATTERN,
} from "./flower-letter-schema.ts";
export { FLOWER_ISSUE_CODES, type FlowerIssueCode, isFlowerIssueCode } from "./issue-codes.ts";
export {
  type FlowerCustomerValue,
  type FlowerLetter,
  type FlowerLetterValidation,
  type FlowerRecipientValue,
  parseFlowerLetterRequest,
  validateFlowerLetterRequest,
} from "./validate-flower-letter-request.ts";
