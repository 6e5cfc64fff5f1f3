import type { InlineStyle, Run } from "./blocks.ts";
import type { FontFace } from "./fonts.ts";

/** A piece of a line in one style, with its measured width in points. */
export interface Segment {
  text: string;
  style: InlineStyle;
  width: number;
}

export interface Line {
  segments: Segment[];
  width: number;
}

const EPSILON = 1e-6;

/**
 * Breaks a paragraph into lines no wider than `measure` points. Lines break at spaces; the spaces at a break are
 * dropped; leading spaces of the paragraph (an indent) are kept. A word wider than the measure is broken between
 * grapheme clusters, never inside one, and never fewer than one cluster per line. Widths are the sums of glyph
 * advances, exactly as the PDF draws them. A "\n" in a run is a forced break: the line ends there (two in a row leave an
 * empty line), and leading spaces after it are kept like an indent; a break at the very end adds nothing. An empty
 * paragraph gives one empty line.
 */
export function breakLines(
  runs: readonly Run[],
  faces: Readonly<Record<InlineStyle, FontFace>>,
  size: number,
  measure: number,
): Line[] {
  const lines: Line[] = [];
  let line: Segment[] = [];
  let lineWidth = 0;
  let hasWord = false;
  let started = false;
  let pending: Segment[] = [];
  let pendingWidth = 0;
  let segmenter: Intl.Segmenter | undefined;

  const push = (segment: Segment): void => {
    line.push(segment);
    lineWidth += segment.width;
  };
  const commitPending = (): void => {
    for (const segment of pending) push(segment);
    pending = [];
    pendingWidth = 0;
  };
  const flush = (): void => {
    lines.push({ segments: merge(line), width: lineWidth });
    line = [];
    lineWidth = 0;
    hasWord = false;
    pending = [];
    pendingWidth = 0;
  };

  for (const run of runs) {
    const face = faces[run.style];
    const parts = run.text.split("\n");
    for (let part = 0; part < parts.length; part++) {
      if (part > 0) {
        flush();
        started = false;
      }
      for (const text of parts[part]!.split(/( +)/)) {
        if (text === "") continue;
        const width = face.widthOf(text, size);
        if (text.startsWith(" ")) {
          if (!hasWord && started) continue;
          pending.push({ text, style: run.style, width });
          pendingWidth += width;
          continue;
        }
        if (lineWidth + pendingWidth + width <= measure + EPSILON) {
          commitPending();
          push({ text, style: run.style, width });
          hasWord = started = true;
          continue;
        }
        if (hasWord) flush();
        if (pendingWidth + width <= measure + EPSILON) {
          commitPending();
          push({ text, style: run.style, width });
          hasWord = started = true;
          continue;
        }
        if (pendingWidth * 2 >= measure) {
          pending = [];
          pendingWidth = 0;
        }
        segmenter ??= new Intl.Segmenter("en", { granularity: "grapheme" });
        let chunk = "";
        let chunkWidth = 0;
        for (const { segment } of segmenter.segment(text)) {
          const clusterWidth = face.widthOf(segment, size);
          if (chunk !== "" && lineWidth + pendingWidth + chunkWidth + clusterWidth > measure + EPSILON) {
            commitPending();
            push({ text: chunk, style: run.style, width: chunkWidth });
            flush();
            chunk = "";
            chunkWidth = 0;
          }
          chunk += segment;
          chunkWidth += clusterWidth;
        }
        commitPending();
        push({ text: chunk, style: run.style, width: chunkWidth });
        hasWord = started = true;
      }
    }
  }
  if (line.length > 0 || lines.length === 0) flush();
  return lines;
}

function merge(segments: Segment[]): Segment[] {
  const merged: Segment[] = [];
  for (const segment of segments) {
    const last = merged[merged.length - 1];
    if (last !== undefined && last.style === segment.style) {
      last.text += segment.text;
      last.width += segment.width;
    } else {
      merged.push({ ...segment });
    }
  }
  return merged;
}
