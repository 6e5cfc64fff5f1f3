/** Size limits of an order request. Spec values where the spec states them; chosen bounds are marked. */

const MB = 1024 * 1024;

/** Letter body, and a letter given as a plain string. */
export const MAX_LETTER_CHARS = 20_000;
export const MAX_LETTER_TITLE_CHARS = 200;
export const MAX_SIGNATURE_TEXT_CHARS = 2_000;
/** Chosen: a drawn signature image of at most 2 MB (as base64 in a data URL). */
export const MAX_SIGNATURE_IMAGE_BYTES = 2 * MB;
/** File size per PDF. */
export const MAX_PDF_BYTES = 100 * MB;
/** Inline form attachments, combined after base64 decoding. */
export const MAX_ATTACHMENT_BYTES = 12 * MB;
/** Chosen: at most 100 inline attachments per form. */
export const MAX_ATTACHMENTS = 100;
/** Chosen: most recipient rows in one bulk campaign. */
export const MAX_CAMPAIGN_ROWS = 100_000;
/** Chosen: largest recipient CSV of one bulk campaign, in UTF-8 bytes. */
export const MAX_CSV_BYTES = 50 * MB;
/** Chosen: longest HTML template of a bulk campaign. */
export const MAX_TEMPLATE_HTML_CHARS = 100_000;

/** Characters of base64 text that decode to `bytes` bytes (with padding). */
export function base64Chars(bytes: number): number {
  return Math.ceil(bytes / 3) * 4;
}
