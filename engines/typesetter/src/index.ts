export type { TypesetterErrorCode } from "./errors.ts";
export { TypesetterError } from "./errors.ts";
export type { PdfInfo } from "./inspect-pdf.ts";
export { inspectPdf } from "./inspect-pdf.ts";
export type { AddressPlacement } from "./layout.ts";
export { LETTER_LIMITS } from "./letter-limits.ts";
export type { LetterFormat } from "./parse.ts";
export type { AddressBlock, LetterInput, RenderOptions } from "./typeset-letter.ts";
export { typesetLetter } from "./typeset-letter.ts";
