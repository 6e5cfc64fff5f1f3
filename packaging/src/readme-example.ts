/**
 * The runnable example of a package: the first ```js (or ```javascript, ```mjs) block of its README, run as an ES
 * module with plain node. What it prints is stated in the README in one of two ways:
 *
 * - a `// → text` comment for each line printed, in order (the comment may follow the console.log on its line or
 *   stand on the next line); or
 * - a fenced block right after the example, introduced by a line that says "Output", holding the printed lines.
 */
export interface Example {
  /** The JavaScript to run. */
  code: string;
  /** Every line the example prints, in order. */
  expected: string[];
}

interface Fence {
  info: string;
  lines: string[];
  /** The text between the previous fence (or the start) and this one. */
  before: string;
}

const JS_INFO = new Set(["js", "javascript", "mjs"]);
const ARROW = /\/\/\s*→\s?(.*)$/;

/** The example of a README; throws when it has no ```js block or states nothing the example prints. */
export function readmeExample(markdown: string): Example {
  const fences = fencedBlocks(markdown);
  const index = fences.findIndex((fence) => JS_INFO.has(fence.info.split(/\s+/)[0] ?? ""));
  const block = fences[index];
  if (block === undefined) throw new Error("The README has no ```js example.");
  const code = `${block.lines.join("\n")}\n`;
  const arrows = arrowExpectations(code);
  if (arrows.length > 0) return { code, expected: arrows };
  const next = fences[index + 1];
  if (next !== undefined && /\boutput\b/i.test(next.before)) {
    return { code, expected: trimTrailingBlankLines(next.lines) };
  }
  throw new Error(
    "The README example states nothing it prints: add a `// → …` comment for each printed line, or an Output block.",
  );
}

/** The lines a plain example file states it prints, from its `// → text` comments, in order. */
export function arrowExpectations(code: string): string[] {
  const expected: string[] = [];
  for (const line of code.split("\n")) {
    const match = ARROW.exec(line);
    if (match) expected.push((match[1] ?? "").trimEnd());
  }
  return expected;
}

/** What a program printed, as lines without trailing blanks, the final newline dropped. */
export function printedLines(stdout: string): string[] {
  return trimTrailingBlankLines(stdout.split("\n").map((line) => line.trimEnd()));
}

function trimTrailingBlankLines(lines: string[]): string[] {
  const out = [...lines];
  while (out.length > 0 && out[out.length - 1]?.trim() === "") out.pop();
  return out;
}

function fencedBlocks(markdown: string): Fence[] {
  const fences: Fence[] = [];
  let open: { marker: string; info: string; lines: string[]; before: string } | undefined;
  let between: string[] = [];
  for (const line of markdown.split("\n")) {
    if (open === undefined) {
      const start = /^ {0,3}(`{3,}|~{3,})\s*([^`]*)$/.exec(line);
      if (start) {
        open = {
          marker: start[1] ?? "```",
          info: (start[2] ?? "").trim(),
          lines: [],
          before: between.join("\n"),
        };
        between = [];
      } else between.push(line);
      continue;
    }
    const closing = new RegExp(`^ {0,3}${open.marker[0] === "`" ? "`" : "~"}{${open.marker.length},}\\s*$`);
    if (closing.test(line)) {
      fences.push({ info: open.info, lines: open.lines, before: open.before });
      open = undefined;
    } else open.lines.push(line);
  }
  return fences;
}
