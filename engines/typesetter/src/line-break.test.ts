import { beforeAll, describe, expect, it } from "vitest";
import type { InlineStyle } from "./blocks.ts";
import type { FontFace } from "./fonts.ts";
import { loadFace } from "./fonts.ts";
import { breakLines } from "./line-break.ts";

let regular: FontFace;
let bold: FontFace;
let faces: Record<InlineStyle, FontFace>;
const SIZE = 12;

beforeAll(async () => {
  regular = await loadFace("tinos-regular");
  bold = await loadFace("tinos-bold");
  faces = {
    regular,
    bold,
    italic: await loadFace("tinos-italic"),
    "bold-italic": await loadFace("tinos-bold-italic"),
  };
});

function lines(text: string, measure: number): string[] {
  return breakLines([{ text, style: "regular" }], faces, SIZE, measure).map((line) =>
    line.segments.map((segment) => segment.text).join(""),
  );
}

describe("breakLines", () => {
  it("keeps a short paragraph on one line", () => {
    expect(lines("Dear Ms Müller,", 400)).toEqual(["Dear Ms Müller,"]);
  });

  it("wraps at spaces by measured width, dropping the spaces at each break", () => {
    const text = "alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu";
    const measure = regular.widthOf("alpha beta gamma delta", SIZE) + 0.01;
    const result = lines(text, measure);
    expect(result[0]).toBe("alpha beta gamma delta");
    expect(result.join(" ")).toBe(text);
    for (const line of result) {
      expect(line).toBe(line.trim());
      expect(regular.widthOf(line, SIZE)).toBeLessThanOrEqual(measure);
    }
  });

  it("measures by glyph widths: a line of wide letters holds fewer characters than one of narrow letters", () => {
    const measure = 100;
    expect(lines("WWWW WWWW WWWW WWWW WWWW", measure).length).toBeGreaterThan(
      lines("iiii iiii iiii iiii iiii", measure).length,
    );
  });

  it("breaks a word wider than the line, losing nothing", () => {
    const word = "x".repeat(300);
    const measure = 200;
    const result = lines(`start ${word} end`, measure);
    expect(result.length).toBeGreaterThan(3);
    expect(result[0]).toBe("start");
    expect(result.join("").replace(/ /g, "")).toBe(`start${word}end`);
    for (const line of result) expect(regular.widthOf(line, SIZE)).toBeLessThanOrEqual(measure + 1e-6);
  });

  it("never splits a grapheme cluster", () => {
    const cluster = "q\u0303";
    const result = lines(cluster.repeat(80), 60);
    expect(result.length).toBeGreaterThan(1);
    for (const line of result) {
      expect(line.startsWith("\u0303")).toBe(false);
      expect(line.length % 2).toBe(0);
    }
  });

  it("keeps the indent of a paragraph but not spaces at the start of wrapped lines", () => {
    const result = lines("    indented text that wraps onto a second line of its own", 150);
    expect(result[0]?.startsWith("    indented")).toBe(true);
    for (const line of result.slice(1)) expect(line.startsWith(" ")).toBe(false);
  });

  it("returns one empty line for an empty paragraph", () => {
    expect(lines("", 100)).toEqual([""]);
  });

  it("keeps runs in their styles and merges neighbours of one style", () => {
    const result = breakLines(
      [
        { text: "plain ", style: "regular" },
        { text: "strong", style: "bold" },
        { text: " and", style: "regular" },
        { text: " plain", style: "regular" },
      ],
      faces,
      SIZE,
      500,
    );
    expect(result).toHaveLength(1);
    expect(result[0]?.segments.map((segment) => [segment.style, segment.text])).toEqual([
      ["regular", "plain "],
      ["bold", "strong"],
      ["regular", " and plain"],
    ]);
    expect(result[0]?.width).toBeCloseTo(
      regular.widthOf("plain ", SIZE) + bold.widthOf("strong", SIZE) + regular.widthOf(" and plain", SIZE),
      6,
    );
  });

  it("ends a line at a forced break, keeps an empty line for two in a row and adds nothing for a final one", () => {
    expect(lines("one\ntwo\n\nthree\n", 400)).toEqual(["one", "two", "", "three"]);
    expect(lines("\n", 400)).toEqual([""]);
  });

  it("keeps leading spaces after a forced break, like an indent", () => {
    expect(lines("code\n    indented", 400)).toEqual(["code", "    indented"]);
  });

  it("breaks across runs of different styles at forced breaks", () => {
    const result = breakLines(
      [
        { text: "a\nb", style: "italic" },
        { text: "c", style: "bold-italic" },
      ],
      faces,
      SIZE,
      400,
    );
    expect(result.map((line) => line.segments.map((segment) => [segment.style, segment.text]))).toEqual([
      [["italic", "a"]],
      [
        ["italic", "b"],
        ["bold-italic", "c"],
      ],
    ]);
  });
});
