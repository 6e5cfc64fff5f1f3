/**
 * Length of a string in Unicode code points, the unit JSON Schema's minLength and maxLength count in
 * (an emoji is one character, not two UTF-16 code units).
 */
export function charCount(text: string): number {
  let count = 0;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    if (unit >= 0xd800 && unit <= 0xdbff && i + 1 < text.length) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) i++;
    }
    count++;
  }
  return count;
}

/** True when the string has no character other than white space. */
export function isBlank(text: string): boolean {
  return text.trim() === "";
}
