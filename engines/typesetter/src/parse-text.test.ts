import { describe, expect, it } from "vitest";
import { normalizeText } from "./normalize-text.ts";
import { parseText } from "./parse-text.ts";

describe("parseText", () => {
  it("makes every line a line block and keeps blank lines", () => {
    expect(parseText("Dear Ann,\n\nThank you.\nBest,")).toEqual([
      { kind: "line", runs: [{ text: "Dear Ann,", style: "regular" }] },
      { kind: "blank" },
      { kind: "line", runs: [{ text: "Thank you.", style: "regular" }] },
      { kind: "line", runs: [{ text: "Best,", style: "regular" }] },
    ]);
  });

  it("keeps several blank lines in a row and leading blank lines", () => {
    expect(parseText("\nA\n\n\nB").map((block) => block.kind)).toEqual([
      "blank",
      "line",
      "blank",
      "blank",
      "line",
    ]);
  });

  it("drops trailing blank lines and trailing spaces, keeps indentation", () => {
    expect(parseText("  indented   \n\n \n")).toEqual([
      { kind: "line", runs: [{ text: "  indented", style: "regular" }] },
    ]);
  });

  it("treats every line-break convention alike", () => {
    expect(parseText("a\r\nb\rc\u2028d")).toEqual(parseText("a\nb\nc\nd"));
  });

  it("gives no blocks for an empty or blank body", () => {
    expect(parseText("")).toEqual([]);
    expect(parseText(" \n\t\n")).toEqual([]);
  });
});

describe("normalizeText", () => {
  it("composes to NFC", () => {
    expect(normalizeText("Zoe\u0308")).toBe("Zoë");
  });

  it("turns tabs into four spaces and removes control and invisible characters", () => {
    expect(normalizeText("a\tb\u0000c\u0007d\u00ade\u200bf\ufeffg\u009fh")).toBe("a    bcdefgh");
  });

  it("keeps line feeds", () => {
    expect(normalizeText("a\nb")).toBe("a\nb");
  });
});
