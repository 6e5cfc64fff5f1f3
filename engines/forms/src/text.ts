/**
 * Length of a string in Unicode code points, the unit the field bounds count in (an emoji is one character,
 * not two UTF-16 code units).
 */
export function charCount(text: string): number {
  let count = 0;
  for (const _ of text) count++;
  return count;
}

/** Line breaks as "\n" (CRLF and lone CR become LF), then surrounding white space removed. */
export function normaliseText(text: string): string {
  return text.replace(/\r\n?/g, "\n").trim();
}

/** True when the string has no character other than white space: such a string is not an answer. */
export function isBlank(text: string): boolean {
  return text.trim() === "";
}

/** True for a plain JSON object (not null, not an array). */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
