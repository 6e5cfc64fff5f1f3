import { describe, expect, it } from "vitest";
import type { Block, Run } from "./blocks.ts";
import { checkTables, count, LETTER_LIMITS } from "./letter-limits.ts";

const cell: Run[] = [{ text: "a", style: "regular" }];

function table(columns: number): Block {
  return { kind: "table", rows: [{ cells: Array.from({ length: columns }, () => cell) }], headerRows: 0 };
}

describe("LETTER_LIMITS", () => {
  it("are the documented numbers", () => {
    expect(LETTER_LIMITS).toEqual({
      markdown_nesting_depth: 16,
      markdown_lines: 2000,
      markdown_list_items: 1000,
      markdown_emphasis_markers: 2000,
      markdown_link_brackets: 500,
      table_columns: 64,
    });
  });
});

describe("checkTables", () => {
  it("accepts tables up to the column limit, anywhere in the letter", () => {
    const quoted: Block = { kind: "quote", blocks: [table(64)] };
    const listed: Block = { kind: "list", ordered: false, start: 1, items: [[quoted]] };
    expect(() => checkTables([table(1), listed])).not.toThrow();
  });

  it("refuses a wider table, even inside a list in a quotation", () => {
    const quoted: Block = { kind: "quote", blocks: [table(2000)] };
    const listed: Block = { kind: "list", ordered: false, start: 1, items: [[quoted]] };
    expect(() => checkTables([listed])).toThrow(
      expect.objectContaining({
        code: "letter_too_complex",
        field: "body",
        message: "A table has at most 64 columns; this letter has one with 2,000.",
      }),
    );
  });
});

describe("count", () => {
  it("groups thousands with commas", () => {
    expect([0, 999, 1000, 19_990, 1_234_567].map(count)).toEqual([
      "0",
      "999",
      "1,000",
      "19,990",
      "1,234,567",
    ]);
  });
});
