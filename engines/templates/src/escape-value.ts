import { escapeHtml, type LetterFormat } from "@mailpiece/orders";

/** Line breaks as a value may write them: CR LF, CR, LF, and the Unicode line and paragraph separators. */
const LINE_BREAK = /\r\n?|[\n\u2028\u2029]/g;

/** ASCII punctuation: every character CommonMark lets a backslash escape. */
const ASCII_PUNCTUATION = /[!-/:-@[-`{-~]/g;

/** The characters escapeHtml writes as character references; CommonMark decodes those references too. */
const HTML_SPECIAL = /[&<>"']/;

/**
 * A variable's value as it is written into a letter of `format`, so that it prints as the text it is and can never
 * add markup: a line break in the value prints as a line break in every format.
 * - text: as it is.
 * - html: `& < > " '` as character references; a line break as `<br>`.
 * - markdown: `& < > " '` as character references (safe in text and in raw HTML blocks alike), every other ASCII
 *   punctuation character escaped with a backslash (no emphasis, link, heading, list, table, code or quotation can
 *   start), spaces and tabs at the start of a line as character references (no indented code block), a line break
 *   as a hard line break (a backslash at the end of the line).
 * - rtf: `\`, `{` and `}` escaped, characters beyond ASCII as `\uN?` escapes, a line break as `\line`, a tab as
 *   `\tab`, other control characters dropped; the whole value in a group of its own (`{\uc1 ...}`), so a control
 *   word just before the placeholder ends where the value begins and the `\uc` of the document is not disturbed.
 */
export function escapeValue(value: string, format: LetterFormat): string {
  switch (format) {
    case "text":
      return value;
    case "html":
      return escapeHtml(value).replace(LINE_BREAK, "<br>");
    case "markdown":
      return escapeMarkdown(value);
    case "rtf":
      return escapeRtf(value);
  }
}

function escapeMarkdown(value: string): string {
  return value
    .split(LINE_BREAK)
    .map((line) =>
      escapeHtml(
        line.replace(ASCII_PUNCTUATION, (char) => (HTML_SPECIAL.test(char) ? char : `\\${char}`)),
      ).replace(/^[ \t]+/, (indent) => indent.replace(/ /g, "&#32;").replace(/\t/g, "&#9;")),
    )
    .join("\\\n");
}

function escapeRtf(value: string): string {
  if (value === "") return "";
  let out = "";
  for (const line of value.split(LINE_BREAK).entries()) {
    const [index, text] = line;
    if (index > 0) out += "\\line ";
    for (let at = 0; at < text.length; at++) {
      const unit = text.charCodeAt(at);
      const char = text[at]!;
      if (char === "\\" || char === "{" || char === "}") out += `\\${char}`;
      else if (char === "\t") out += "\\tab ";
      else if (unit < 0x20 || unit === 0x7f) continue;
      else if (unit < 0x80) out += char;
      // RTF writes \u with a signed 16-bit number, one escape per UTF-16 unit; "?" is the fallback \uc1 skips.
      else out += `\\u${unit > 0x7fff ? unit - 0x10000 : unit}?`;
    }
  }
  return `{\\uc1 ${out}}`;
}
