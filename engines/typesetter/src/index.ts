export type { PdfInfo } from "./inspect-pdf.ts";
export { inspectPdf } from "./inspect-pdf.ts";
export type { AddressPlacement } from "./layout.ts";
export * from "./light.ts";
export type { LetterFormat } from "./parse.ts";
export type { HandwrittenInput, HandwrittenResult } from "./typeset-handwritten.ts";
export { typesetHandwritten } from "./typeset-handwritten.ts";
export type { AddressBlock, LetterInput, RenderOptions } from "./typeset-letter.ts";
export { typesetLetter } from "./typeset-letter.ts";
