import { describe, expect, it } from "vitest";
import { wrapText } from "./wrap-text.ts";

describe("wrapText", () => {
  it("wraps at spaces within the width, with the first and the hanging indent", () => {
    const lines = wrapText("one two three four five six seven", 14, "- ", "  ");
    expect(lines).toEqual(["- one two", "  three four", "  five six", "  seven"]);
    for (const line of lines) expect(line.length).toBeLessThanOrEqual(14);
  });

  it("keeps a word longer than the line whole, on its own line", () => {
    const url = `https://example.com/${"a".repeat(90)}`;
    expect(wrapText(`See ${url} now`, 78)).toEqual(["See", url, "now"]);
  });

  it("answers the indent alone for empty text", () => {
    expect(wrapText("", 78, "  ")).toEqual(["  "]);
  });
});
