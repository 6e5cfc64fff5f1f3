import type { Nodes } from "mdast";
import { fromMarkdown } from "mdast-util-from-markdown";
import { gfmTableFromMarkdown } from "mdast-util-gfm-table";
import { gfmTable } from "micromark-extension-gfm-table";
import { describe, expect, it } from "vitest";
import { TypesetterError } from "./errors.ts";
import { LETTER_LIMITS } from "./letter-limits.ts";
import { checkMarkdownComplexity, measureMarkdown } from "./markdown-complexity.ts";

/** The deepest nesting of block quotations and list items the markdown parser builds. */
function parsedDepth(markdown: string): number {
  const tree = fromMarkdown(markdown, {
    extensions: [gfmTable()],
    mdastExtensions: [gfmTableFromMarkdown()],
  });
  const depth = (node: Nodes): number => {
    const own = node.type === "blockquote" || node.type === "listItem" ? 1 : 0;
    const children = "children" in node ? (node.children as Nodes[]) : [];
    return own + children.reduce((deepest, child) => Math.max(deepest, depth(child)), 0);
  };
  return depth(tree);
}

/** `levels` list items, each indented under the one before. */
function nestedList(levels: number): string {
  return Array.from({ length: levels }, (_, level) => `${"  ".repeat(level)}- level ${level + 1}`).join("\n");
}

function refusal(markdown: string): TypesetterError {
  try {
    checkMarkdownComplexity(markdown);
  } catch (error) {
    if (TypesetterError.isInstance(error)) return error;
    throw error;
  }
  throw new Error("expected a TypesetterError");
}

/** A small deterministic random number generator (mulberry32). */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let value = Math.imul(state ^ (state >>> 15), 1 | state);
    value = (value + Math.imul(value ^ (value >>> 7), 61 | value)) ^ value;
    return ((value ^ (value >>> 14)) >>> 0) / 4294967296;
  };
}

describe("measureMarkdown", () => {
  it("counts lines, blank ones included, and no line after a final line break", () => {
    expect(measureMarkdown("").lines).toBe(1);
    expect(measureMarkdown("a").lines).toBe(1);
    expect(measureMarkdown("a\n").lines).toBe(1);
    expect(measureMarkdown("a\n\nb").lines).toBe(3);
    expect(measureMarkdown("a\n\n\n").lines).toBe(3);
  });

  it("counts block quotations and list items nested on one line", () => {
    expect(measureMarkdown(">>> deep").depth).toBe(3);
    expect(measureMarkdown("> - > 1. text").depth).toBe(4);
    expect(measureMarkdown("- - - - item").depth).toBe(4);
    expect(measureMarkdown("a > b - c").depth).toBe(0);
  });

  it("counts list items nested by indentation, level by level", () => {
    expect(measureMarkdown(nestedList(16))).toMatchObject({ depth: 16, listItems: 16 });
    expect(measureMarkdown(`${nestedList(16)}\n${"  ".repeat(16)}- level 17`).depth).toBe(17);
  });

  it("does not add up sibling items, tight or loose", () => {
    const tight = "- a\n  - b\n- c\n  - d\n".repeat(20);
    expect(measureMarkdown(tight)).toMatchObject({ depth: 2, listItems: 80 });
    const ordered = Array.from({ length: 40 }, (_, index) => `${index + 1}. item`).join("\n");
    expect(measureMarkdown(ordered)).toMatchObject({ depth: 1, listItems: 40 });
    const loose = "- a\n\n  more of a\n\n- b\n\n".repeat(20);
    expect(measureMarkdown(loose).depth).toBe(1);
  });

  it("closes every list at a paragraph that follows a blank line", () => {
    expect(measureMarkdown(`${nestedList(10)}\n\nParagraph.\n\n${nestedList(10)}`).depth).toBe(10);
  });

  it("does not count numbered lines that continue a paragraph as nesting", () => {
    const years = `Our history:\n${Array.from({ length: 40 }, (_, index) => `${1980 + index}. Something`).join("\n")}`;
    expect(measureMarkdown(years).depth).toBeLessThanOrEqual(1);
  });

  it("counts items that start after headings, where a number other than 1 starts a list", () => {
    const steps = Array.from({ length: 20 }, (_, level) => {
      const indent = "   ".repeat(level);
      return `${indent}# Step\n${indent}2. item`;
    }).join("\n");
    expect(parsedDepth(steps)).toBe(20);
    expect(measureMarkdown(steps).depth).toBeGreaterThanOrEqual(20);
  });

  it("never measures less nesting than the parser builds (random documents)", () => {
    const next = random(20_261_124);
    const prefixes = ["", "", "> ", ">", "- ", "* ", "1. ", "2. ", "10) ", "  ", "   ", "    ", " "];
    const contents = [
      "text",
      "",
      "# heading",
      "```",
      "---",
      "- - -",
      "2019. year",
      "| a | b |",
      "<div>",
      "***",
    ];
    const pick = <T>(list: readonly T[]): T => list[Math.floor(next() * list.length)]!;
    for (let documentIndex = 0; documentIndex < 300; documentIndex++) {
      const lines = Array.from({ length: 2 + Math.floor(next() * 30) }, () => {
        let prefix = "";
        for (let count = Math.floor(next() * 6); count > 0; count--) prefix += pick(prefixes);
        return prefix + pick(contents);
      });
      const markdown = lines.join("\n");
      const measured = measureMarkdown(markdown).depth;
      const parsed = parsedDepth(markdown);
      if (measured < parsed) expect.fail(`measured ${measured} < parsed ${parsed} for:\n${markdown}`);
    }
  });

  it("counts list markers, a thematic break written with spaces too", () => {
    expect(measureMarkdown("- a\n- b\n  1. c\n\n---\n\n- - -").listItems).toBe(6);
  });

  it("counts only the * and _ that can open or close emphasis", () => {
    expect(measureMarkdown("**bold** and *italic* and __strong__ and _em_").emphasisMarkers).toBe(12);
    expect(measureMarkdown("snake_case_name and a * b and * item").emphasisMarkers).toBe(0);
    expect(measureMarkdown("Signed: ______________\n\n***").emphasisMarkers).toBe(0);
    expect(measureMarkdown("*a ".repeat(3)).emphasisMarkers).toBe(3);
    expect(measureMarkdown("«*quoted*»").emphasisMarkers).toBe(2);
  });

  it("counts link brackets", () => {
    expect(measureMarkdown("[a](b) and ![c](d) and [e][f]").linkBrackets).toBe(4);
  });
});

describe("checkMarkdownComplexity", () => {
  it("accepts a letter at every limit", () => {
    expect(() => checkMarkdownComplexity(nestedList(LETTER_LIMITS.markdown_nesting_depth))).not.toThrow();
    expect(() => checkMarkdownComplexity("a\n".repeat(LETTER_LIMITS.markdown_lines))).not.toThrow();
    expect(() => checkMarkdownComplexity("- a\n".repeat(LETTER_LIMITS.markdown_list_items))).not.toThrow();
    expect(() =>
      checkMarkdownComplexity("*a* ".repeat(LETTER_LIMITS.markdown_emphasis_markers / 2)),
    ).not.toThrow();
    expect(() => checkMarkdownComplexity("[a] ".repeat(LETTER_LIMITS.markdown_link_brackets))).not.toThrow();
  });

  it.each([
    [
      "nesting",
      nestedList(17),
      "Markdown nests block quotations and lists at most 16 levels deep; this letter nests 17.",
    ],
    ["lines", "a\n".repeat(2001), "A markdown letter has at most 2,000 lines; this one has 2,001."],
    [
      "list items",
      "- a\n".repeat(1001),
      "A markdown letter has at most 1,000 list items; this one has 1,001.",
    ],
    [
      "emphasis markers",
      "*a* ".repeat(1001),
      "A markdown letter has at most 2,000 emphasis markers (the * and _ around bold and italic text); this one has 2,002.",
    ],
    [
      "link brackets",
      "[a] ".repeat(501),
      "A markdown letter has at most 500 link brackets ([); this one has 501.",
    ],
  ])("refuses a letter beyond the limit of %s, saying so", (_limit, markdown, message) => {
    const error = refusal(markdown);
    expect(error.code).toBe("letter_too_complex");
    expect(error.field).toBe("body");
    expect(error.message).toBe(message);
  });
});
