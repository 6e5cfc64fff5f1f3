export type {
  CheckPostcardOptions,
  PostcardCheck,
  PostcardProblem,
  PostcardProblemCode,
} from "./check-postcard.ts";
export { checkPostcard } from "./check-postcard.ts";
export type { PostcardErrorCode, PostcardErrorOptions } from "./errors.ts";
export { PostcardError } from "./errors.ts";
export type { Extent, PostcardSize, PostcardTemplate, Rect } from "./templates.ts";
export { isPostcardSize, POSTCARD_SIZES, POSTCARD_TEMPLATES } from "./templates.ts";
