/** Control characters other than the line feed, and invisible formatting characters (soft hyphen included). */
const CONTROL_OR_IGNORABLE = /(?!\n)[\p{Cc}\p{Default_Ignorable_Code_Point}]/gu;

/**
 * Brings text to the form the typesetter prints: Unicode NFC, line breaks as "\n" (CR LF, CR, U+2028 and U+2029
 * included), tabs as four spaces, control characters, soft hyphens and invisible formatting characters removed.
 */
export function normalizeText(text: string): string {
  return text
    .normalize("NFC")
    .replace(/\r\n?|[\u2028\u2029]/g, "\n")
    .replace(/\t/g, "    ")
    .replace(CONTROL_OR_IGNORABLE, "");
}
