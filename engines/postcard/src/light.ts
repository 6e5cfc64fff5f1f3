/**
 * `@mailpiece/postcard/light`: the postcard error class and the size templates, without the PDF library that the
 * checker loads. A server that checks postcards in worker threads imports this on its main thread.
 */
export type { PostcardErrorCode, PostcardErrorOptions } from "./errors.ts";
export { PostcardError } from "./errors.ts";
export type { Extent, PostcardSize, PostcardTemplate, Rect } from "./templates.ts";
export { isPostcardSize, POSTCARD_SIZES, POSTCARD_TEMPLATES } from "./templates.ts";
