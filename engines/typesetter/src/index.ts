export type { TypesetterErrorCode } from "./errors.ts";
export { TypesetterError } from "./errors.ts";
export type { PdfInfo } from "./inspect-pdf.ts";
export { inspectPdf } from "./inspect-pdf.ts";
export type { AddressBlock, LetterInput } from "./typeset-letter.ts";
export { typesetLetter } from "./typeset-letter.ts";
