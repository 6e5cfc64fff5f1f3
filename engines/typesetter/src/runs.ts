import type { Block, InlineStyle, Run } from "./blocks.ts";
import { normalizeText } from "./normalize-text.ts";

/** Joins neighbouring runs of one style and drops empty ones. */
export function mergeRuns(runs: readonly Run[]): Run[] {
  const merged: Run[] = [];
  for (const run of runs) {
    if (run.text === "") continue;
    const last = merged[merged.length - 1];
    if (last !== undefined && last.style === run.style) last.text += run.text;
    else merged.push({ ...run });
  }
  return merged;
}

/**
 * Collapses spaces the way HTML renders text: a stretch of spaces, across runs too, becomes one space, and spaces at
 * the start or end of the paragraph and next to a line break ("\n") are dropped.
 */
export function collapseSpaces(runs: readonly Run[]): Run[] {
  const out: Run[] = [];
  let lineStart = true;
  let pendingSpace: InlineStyle | undefined;
  for (const run of runs) {
    for (const piece of run.text.split(/( +|\n)/)) {
      if (piece === "") continue;
      if (piece === "\n") {
        pendingSpace = undefined;
        out.push({ text: "\n", style: run.style });
        lineStart = true;
      } else if (piece.startsWith(" ")) {
        if (!lineStart) pendingSpace ??= run.style;
      } else {
        if (pendingSpace !== undefined) out.push({ text: " ", style: pendingSpace });
        pendingSpace = undefined;
        out.push({ text: piece, style: run.style });
        lineStart = false;
      }
    }
  }
  return mergeRuns(out);
}

/** True when runs print nothing at all (no text, or only spaces). */
export function isEmpty(runs: readonly Run[]): boolean {
  return runs.every((run) => run.text.trim() === "");
}

/** The runs of several paragraphs as one, each paragraph on a line of its own. */
export function joinLines(paragraphs: readonly Run[][]): Run[] {
  const runs: Run[] = [];
  paragraphs.forEach((paragraph, index) => {
    if (index > 0) runs.push({ text: "\n", style: "regular" });
    runs.push(...paragraph);
  });
  return mergeRuns(runs);
}

/** The text of blocks as lines of runs (for a table cell or a heading that holds blocks): lists keep their bullets. */
export function flattenBlocks(blocks: readonly Block[]): Run[][] {
  const lines: Run[][] = [];
  for (const block of blocks) {
    switch (block.kind) {
      case "line":
      case "paragraph":
      case "heading":
        lines.push(block.runs);
        break;
      case "blank":
        lines.push([]);
        break;
      case "list":
        block.items.forEach((item, index) => {
          const marker = block.ordered ? `${block.start + index}. ` : "\u2022 ";
          const [first = [], ...rest] = flattenBlocks(item);
          lines.push([{ text: marker, style: "regular" }, ...first], ...rest);
        });
        break;
      case "table":
        for (const row of block.rows) {
          lines.push(
            row.cells.flatMap((cell, index) =>
              index === 0 ? cell : [{ text: " ", style: "regular" }, ...cell],
            ),
          );
        }
        break;
      case "quote":
        lines.push(...flattenBlocks(block.blocks));
        break;
      case "rule":
        break;
    }
  }
  return lines;
}

/**
 * Brings the text of every run to the form the typesetter prints (`normalizeText`), drops runs left empty, and drops
 * paragraphs, headings and list items that print nothing.
 */
export function normalizeBlocks(blocks: readonly Block[]): Block[] {
  const runs = (list: readonly Run[]): Run[] =>
    mergeRuns(list.map((run) => ({ text: normalizeText(run.text), style: run.style })));
  const out: Block[] = [];
  for (const block of blocks) {
    switch (block.kind) {
      case "line":
        out.push({ kind: "line", runs: runs(block.runs) });
        break;
      case "paragraph":
      case "heading": {
        const normalized = runs(block.runs);
        if (!isEmpty(normalized)) out.push({ ...block, runs: normalized });
        break;
      }
      case "list": {
        const items = block.items.map(normalizeBlocks).filter((item) => item.length > 0);
        if (items.length > 0) out.push({ ...block, items });
        break;
      }
      case "table": {
        const rows = block.rows
          .map((row) => ({ cells: row.cells.map(runs) }))
          .filter((row) => row.cells.length > 0);
        if (rows.length > 0)
          out.push({ kind: "table", rows, headerRows: Math.min(block.headerRows, rows.length) });
        break;
      }
      case "quote": {
        const inner = normalizeBlocks(block.blocks);
        if (inner.length > 0) out.push({ kind: "quote", blocks: inner });
        break;
      }
      case "blank":
      case "rule":
        out.push(block);
        break;
    }
  }
  while (out.length > 0 && out[out.length - 1]!.kind === "blank") out.pop();
  return out;
}
