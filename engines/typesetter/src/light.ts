/**
 * `@mailpiece/typesetter/light`: what a caller needs around typesetting without loading the typesetter itself (no
 * PDF, font or markdown library): the error class that typesetting throws, the limits a letter body must keep, and
 * the date a letter carries. A server that typesets in worker threads imports this on its main thread.
 */
export type { TypesetterErrorCode } from "./errors.ts";
export { TypesetterError } from "./errors.ts";
export { todayUtc } from "./letter-date.ts";
export { LETTER_LIMITS } from "./letter-limits.ts";
