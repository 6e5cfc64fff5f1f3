import type { LetterFormat } from "@mailpiece/orders";
import { TEMPLATE_LIMITS } from "./limits.ts";

/** One piece of a template body: literal text, or the value of a variable. */
export type TemplatePart = { text: string } | { variable: string };

/** A template body taken apart: its pieces, the variables it uses and the `{{` that open no placeholder. */
export interface ScannedBody {
  parts: TemplatePart[];
  /** The distinct variable names the placeholders use, in order of first use. */
  placeholders: string[];
  /** The text at each `{{` that does not open a placeholder (up to 40 characters each), in order. */
  invalid: string[];
}

const NAME = `([A-Za-z_][A-Za-z0-9_]{0,${TEMPLATE_LIMITS.variable_name_chars - 1}})`;

/** `{{`, optional spaces or tabs, a variable name, optional spaces or tabs, `}}`; tried where a `{{` starts. */
const PLACEHOLDER = new RegExp(`\\{\\{[ \\t]*${NAME}[ \\t]*\\}\\}`, "y");
/** In RTF also as a word processor saves typed braces: `\{\{name\}\}`. */
const RTF_PLACEHOLDER = new RegExp(
  `(?:\\{\\{|\\\\\\{\\\\\\{)[ \\t]*${NAME}[ \\t]*(?:\\}\\}|\\\\\\}\\\\\\})`,
  "y",
);
const OPENER = /\{\{/g;
const RTF_OPENER = /\{\{|\\\{\\\{/g;

/**
 * Takes a template body apart. A placeholder is `{{name}}`, spaces or tabs allowed inside the braces
 * (`{{ name }}`), the name a letter or _ followed by up to 63 letters, digits or _; names are case-sensitive. Every
 * other `{{` (`{{first name}}`, `{{{name}}}`, a `{{` never closed) is reported in `invalid`, so that no placeholder
 * is silently printed as written. A `}}` on its own is text. In an RTF body a placeholder may also be written with
 * escaped braces, `\{\{name\}\}` (as word processors save typed braces), and two groups opening at once (`{{\` or
 * `{{{`) are RTF, not a placeholder. Linear in the length of the body.
 */
export function scanBody(body: string, format: LetterFormat = "text"): ScannedBody {
  const rtf = format === "rtf";
  const placeholder = rtf ? RTF_PLACEHOLDER : PLACEHOLDER;
  const opener = rtf ? RTF_OPENER : OPENER;
  const parts: TemplatePart[] = [];
  const used = new Set<string>();
  const invalid: string[] = [];
  let literal = "";
  let at = 0;
  opener.lastIndex = 0;
  for (let open = opener.exec(body); open !== null; open = opener.exec(body)) {
    const start = open.index;
    placeholder.lastIndex = start;
    const match = placeholder.exec(body);
    if (match === null) {
      const after = body[start + open[0].length];
      const rtfGroups = rtf && open[0] === "{{" && (after === "\\" || after === "{");
      if (!rtfGroups) invalid.push(body.slice(start, start + 40));
      opener.lastIndex = start + open[0].length;
      continue;
    }
    literal += body.slice(at, start);
    if (literal !== "") parts.push({ text: literal });
    literal = "";
    const name = match[1]!;
    parts.push({ variable: name });
    used.add(name);
    at = placeholder.lastIndex;
    opener.lastIndex = at;
  }
  literal += body.slice(at);
  if (literal !== "") parts.push({ text: literal });
  return { parts, placeholders: [...used], invalid };
}
