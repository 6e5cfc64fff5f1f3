import type { Block } from "./blocks.ts";
import { normalizeText } from "./normalize-text.ts";

/**
 * Parses a plain-text letter: every line is a line block of its own (line breaks are kept as written), every empty
 * line is kept as a blank line, leading spaces indent. Trailing empty lines are dropped so the signature follows the
 * last written line.
 */
export function parseText(source: string): Block[] {
  const lines = normalizeText(source).split("\n");
  while (lines.length > 0 && lines[lines.length - 1]!.trim() === "") lines.pop();
  return lines.map((line): Block => {
    const text = line.trimEnd();
    return text === "" ? { kind: "blank" } : { kind: "line", runs: [{ text, style: "regular" }] };
  });
}
