/**
 * `@mailpiece/typesetter/light`: what a caller needs around typesetting without loading the typesetter itself (no
 * PDF, font or markdown library): the error class that typesetting throws, the limits a letter body must keep, the
 * date a letter carries, and the handwriting styles and message limit of a handwritten card. A server that typesets
 * in worker threads imports this on its main thread.
 */
export type { TypesetterErrorCode } from "./errors.ts";
export { TypesetterError } from "./errors.ts";
export type { HandwritingStyle } from "./handwriting-styles.ts";
export {
  DEFAULT_HANDWRITING_STYLE,
  HANDWRITING_STYLE_FACES,
  HANDWRITING_STYLES,
  MAX_HANDWRITTEN_MESSAGE_CHARS,
} from "./handwriting-styles.ts";
export { todayUtc } from "./letter-date.ts";
export { LETTER_LIMITS } from "./letter-limits.ts";
