import { describe, expect, it } from "vitest";
import type { Block } from "./blocks.ts";
import { parseMarkdown } from "./parse-markdown.ts";

const text = (value: string) => ({ text: value, style: "regular" as const });

describe("parseMarkdown", () => {
  it("makes headings (levels 4 to 6 as 3), paragraphs and rules", () => {
    expect(parseMarkdown("# One\n\n## Two\n\n### Three\n\n###### Six\n\nBody text.\n\n---")).toEqual([
      { kind: "heading", level: 1, runs: [{ text: "One", style: "bold" }] },
      { kind: "heading", level: 2, runs: [{ text: "Two", style: "bold" }] },
      { kind: "heading", level: 3, runs: [{ text: "Three", style: "bold" }] },
      { kind: "heading", level: 3, runs: [{ text: "Six", style: "bold" }] },
      { kind: "paragraph", runs: [text("Body text.")] },
      { kind: "rule" },
    ]);
  });

  it("reads emphasis as italic, strong as bold, both as bold italic, and keeps link text without the URL", () => {
    expect(parseMarkdown("a *b* **c** ***d*** _e_ __f__ [g](https://x.example) <https://y.example>")).toEqual(
      [
        {
          kind: "paragraph",
          runs: [
            text("a "),
            { text: "b", style: "italic" },
            text(" "),
            { text: "c", style: "bold" },
            text(" "),
            { text: "d", style: "bold-italic" },
            text(" "),
            { text: "e", style: "italic" },
            text(" "),
            { text: "f", style: "bold" },
            text(" g https://y.example"),
          ],
        },
      ],
    );
  });

  it("joins soft line breaks with a space and keeps hard breaks", () => {
    expect(parseMarkdown("one\ntwo  \nthree\\\nfour")).toEqual([
      { kind: "paragraph", runs: [text("one two\nthree\nfour")] },
    ]);
  });

  it("makes ordered and unordered lists, nested, with their start number", () => {
    const blocks = parseMarkdown("3. three\n4. four\n   - inner\n   - inner two\n\n- a\n- b");
    expect(blocks).toEqual<Block[]>([
      {
        kind: "list",
        ordered: true,
        start: 3,
        items: [
          [{ kind: "paragraph", runs: [text("three")] }],
          [
            { kind: "paragraph", runs: [text("four")] },
            {
              kind: "list",
              ordered: false,
              start: 1,
              items: [
                [{ kind: "paragraph", runs: [text("inner")] }],
                [{ kind: "paragraph", runs: [text("inner two")] }],
              ],
            },
          ],
        ],
      },
      {
        kind: "list",
        ordered: false,
        start: 1,
        items: [[{ kind: "paragraph", runs: [text("a")] }], [{ kind: "paragraph", runs: [text("b")] }]],
      },
    ]);
  });

  it("makes GitHub tables with the first row as header (short rows stay short; the layout pads them)", () => {
    expect(parseMarkdown("| A | **B** |\n|---|--:|\n| 1 | 2 |\n| 3 |")).toEqual([
      {
        kind: "table",
        headerRows: 1,
        rows: [
          { cells: [[text("A")], [{ text: "B", style: "bold" }]] },
          { cells: [[text("1")], [text("2")]] },
          { cells: [[text("3")]] },
        ],
      },
    ]);
  });

  it("keeps code as written, quotes as quotations, and drops images and definitions", () => {
    expect(
      parseMarkdown(
        "```\n  indented\n    more\n```\n\n> quoted\n\n![alt](https://x.example/i.png)\n\n[ref]: https://x.example",
      ),
    ).toEqual([
      { kind: "paragraph", runs: [text("  indented\n    more")] },
      { kind: "quote", blocks: [{ kind: "paragraph", runs: [text("quoted")] }] },
    ]);
  });

  it("reads inline HTML breaks and bold and italic tags, and ignores other tags", () => {
    expect(parseMarkdown('a<br>b <b>c</b> <em>d</em> <span class="x">e</span>')).toEqual([
      {
        kind: "paragraph",
        runs: [
          text("a\nb "),
          { text: "c", style: "bold" },
          text(" "),
          { text: "d", style: "italic" },
          text(" e"),
        ],
      },
    ]);
  });

  it("reads raw HTML blocks with the HTML parser, dropping scripts", () => {
    expect(parseMarkdown("<div>\n<script>alert(1)</script><p>Hi <i>there</i></p>\n</div>")).toEqual([
      { kind: "paragraph", runs: [text("Hi "), { text: "there", style: "italic" }] },
    ]);
  });

  it("normalizes the text it prints", () => {
    expect(parseMarkdown("Zoe\u0308\u200b &amp; &#x41;")).toEqual([
      { kind: "paragraph", runs: [text("Zoë & A")] },
    ]);
  });

  it("gives no blocks for an empty body", () => {
    expect(parseMarkdown("")).toEqual([]);
    expect(parseMarkdown("\n\n  \n")).toEqual([]);
  });
});
