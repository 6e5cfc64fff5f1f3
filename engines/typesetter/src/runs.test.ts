import { describe, expect, it } from "vitest";
import { collapseSpaces, flattenBlocks, joinLines, mergeRuns, normalizeBlocks } from "./runs.ts";

const text = (value: string) => ({ text: value, style: "regular" as const });
const bold = (value: string) => ({ text: value, style: "bold" as const });

describe("runs", () => {
  it("merges neighbouring runs of one style and drops empty ones", () => {
    expect(mergeRuns([text("a"), text(""), text("b"), bold("c"), bold("d"), text("e")])).toEqual([
      text("ab"),
      bold("cd"),
      text("e"),
    ]);
  });

  it("collapses spaces across runs and drops them at the ends and around breaks", () => {
    expect(collapseSpaces([text("  a  "), bold("  b "), text(" \n  c  ")])).toEqual([
      text("a "),
      bold("b"),
      text("\nc"),
    ]);
  });

  it("joins paragraphs with line breaks", () => {
    expect(joinLines([[text("a")], [bold("b")], []])).toEqual([text("a\n"), bold("b"), text("\n")]);
  });

  it("flattens blocks to lines, with list markers and row cells side by side", () => {
    expect(
      flattenBlocks([
        { kind: "paragraph", runs: [text("p")] },
        { kind: "list", ordered: true, start: 2, items: [[{ kind: "line", runs: [text("x")] }]] },
        { kind: "list", ordered: false, start: 1, items: [[{ kind: "line", runs: [text("y")] }]] },
        { kind: "table", headerRows: 0, rows: [{ cells: [[text("c1")], [text("c2")]] }] },
      ]),
    ).toEqual([
      [text("p")],
      [text("2. "), text("x")],
      [text("\u2022 "), text("y")],
      [text("c1"), text(" "), text("c2")],
    ]);
  });

  it("normalizes run text and drops paragraphs, list items and trailing blanks that print nothing", () => {
    expect(
      normalizeBlocks([
        { kind: "paragraph", runs: [text("Zoe\u0308\u200b\ta")] },
        { kind: "paragraph", runs: [text("\u200b ")] },
        { kind: "list", ordered: false, start: 1, items: [[{ kind: "paragraph", runs: [text(" ")] }]] },
        { kind: "blank" },
        { kind: "blank" },
      ]),
    ).toEqual([{ kind: "paragraph", runs: [text("Zoë    a")] }]);
  });
});
