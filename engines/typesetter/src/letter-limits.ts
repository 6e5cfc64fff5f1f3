import type { Block } from "./blocks.ts";
import { TypesetterError } from "./errors.ts";

/**
 * What a letter body may hold beyond its length, so that every letter typesets in bounded time and memory. The
 * markdown parser (micromark) takes time that grows with the square of some structures: nested or many list items
 * and block quotations, lines that continue a paragraph inside them, emphasis markers and link brackets. Bodies
 * beyond a limit are refused with `letter_too_complex` (field "body") before they are parsed. The limits are far above
 * what a letter holds, so a person never meets them.
 */
export const LETTER_LIMITS = {
  /** Block quotations and list items inside each other, in a markdown letter. */
  markdown_nesting_depth: 16,
  /** Lines of a markdown letter, blank lines included. */
  markdown_lines: 2000,
  /** List items of a markdown letter, nested ones included. */
  markdown_list_items: 1000,
  /** `*` and `_` characters that can open or close emphasis (bold or italic), in a markdown letter. */
  markdown_emphasis_markers: 2000,
  /** `[` characters (link and image brackets), in a markdown letter. */
  markdown_link_brackets: 500,
  /** Columns of a table, in any format: more cannot print legibly across a letter page. */
  table_columns: 64,
} as const;

/** The refusal of a body beyond a limit of `LETTER_LIMITS`. */
export function tooComplex(message: string): TypesetterError {
  return new TypesetterError("letter_too_complex", message, { field: "body" });
}

/** A count as people read it: 12,345. */
export function count(value: number): string {
  return String(value).replace(/\B(?=(\d{3})+(?!\d))/g, ",");
}

/** Refuses a letter with a table wider than `LETTER_LIMITS.table_columns` (`letter_too_complex`). */
export function checkTables(blocks: readonly Block[]): void {
  const limit = LETTER_LIMITS.table_columns;
  const stack: (readonly Block[])[] = [blocks];
  while (stack.length > 0) {
    for (const block of stack.pop()!) {
      if (block.kind === "list") stack.push(...block.items);
      else if (block.kind === "quote") stack.push(block.blocks);
      else if (block.kind === "table") {
        const columns = block.rows.reduce((widest, row) => Math.max(widest, row.cells.length), 0);
        if (columns > limit) {
          throw tooComplex(
            `A table has at most ${count(limit)} columns; this letter has one with ${count(columns)}.`,
          );
        }
      }
    }
  }
}
