/**
 * `text` (one line) wrapped at spaces into lines of at most `width` characters, the first starting with `indent`
 * and the others with `hangingIndent`. A word longer than a line (a URL, a hash) stands alone on its line, whole:
 * it is never broken. Widths count UTF-16 units, close enough for the Latin text of these messages.
 */
export function wrapText(text: string, width: number, indent = "", hangingIndent = indent): string[] {
  const lines: string[] = [];
  let line = indent;
  let empty = true;
  for (const word of text.split(" ").filter((part) => part !== "")) {
    if (!empty && line.length + 1 + word.length > width) {
      lines.push(line);
      line = hangingIndent;
      empty = true;
    }
    line += empty ? word : ` ${word}`;
    empty = false;
  }
  lines.push(line);
  return lines;
}
