import type { InlineStyle, Run, TableRow } from "./blocks.ts";
import { emboldened } from "./blocks.ts";
import type { FontFace } from "./fonts.ts";
import type { Box, PlacedText } from "./layout-box.ts";
import { baselineIn, lineTexts } from "./layout-box.ts";
import type { Line } from "./line-break.ts";
import { breakLines } from "./line-break.ts";

/** Space between a cell's border and its text, as multiples of the font size. */
export const CELL_PADDING = { x: 0.4, y: 0.2 } as const;
/** Thickness of the table's borders, in points. */
export const TABLE_BORDER = 0.5;

export interface TableSpec {
  rows: readonly TableRow[];
  headerRows: number;
  faces: Readonly<Record<InlineStyle, FontFace>>;
  size: number;
  /** Distance between baselines inside a cell. */
  lead: number;
  /** Left edge of the table and the width it may take. */
  x: number;
  width: number;
  /** The tallest a row may be; a taller row is set in pieces of whole lines, each within this height. */
  maxRowHeight: number;
}

/**
 * Widths of the columns of a table, padding included, from the widths of their content: `natural` is the width each
 * column takes with no line broken, `minimum` the width of its longest word. When every column fits at its natural
 * width, that is its width (the table may be narrower than the measure). Otherwise every column gets its minimum and
 * the rest of `available` is shared out in proportion to how much more each would take; when even the minimums do
 * not fit, `available` is shared in proportion to them (long words then break between characters).
 */
export function columnWidths(
  natural: readonly number[],
  minimum: readonly number[],
  available: number,
): number[] {
  const sum = (values: readonly number[]): number => values.reduce((total, value) => total + value, 0);
  const naturalSum = sum(natural);
  if (naturalSum <= available) return [...natural];
  const minimumSum = sum(minimum);
  if (minimumSum >= available) {
    return minimumSum === 0
      ? natural.map(() => available / natural.length)
      : minimum.map((value) => (available * value) / minimumSum);
  }
  const extra = available - minimumSum;
  const wanted = naturalSum - minimumSum;
  return minimum.map((value, column) => value + (extra * (natural[column]! - value)) / wanted);
}

/**
 * Lays out a table as one box per row (a row is never split across pages), borders on every cell. Columns are as
 * wide as their content asks (`columnWidths`); rows are as tall as their tallest cell. Header rows are set in bold,
 * kept with the first row under them and repeated on top of every page the table runs onto (unless they take more
 * than half a page). A row taller than
 * `maxRowHeight` (more than a page) is set in pieces of whole lines, the only case where a row continues on the next
 * page.
 */
export function layoutTable(spec: TableSpec): Box[] {
  const { faces, size, lead } = spec;
  const columns = Math.max(0, ...spec.rows.map((row) => row.cells.length));
  if (columns === 0) return [];
  const padX = CELL_PADDING.x * size;
  const padY = CELL_PADDING.y * size;
  const cellsOf = (row: TableRow, rowIndex: number): Run[][] =>
    Array.from({ length: columns }, (_, column) => {
      const runs = row.cells[column] ?? [];
      return rowIndex < spec.headerRows
        ? runs.map((run) => ({ ...run, style: emboldened(run.style) }))
        : runs;
    });
  const rows = spec.rows.map(cellsOf);

  const natural = new Array<number>(columns).fill(0);
  const minimum = new Array<number>(columns).fill(0);
  for (const row of rows) {
    row.forEach((runs, column) => {
      const measured = measureCell(runs, faces, size);
      natural[column] = Math.max(natural[column]!, measured.natural + 2 * padX);
      minimum[column] = Math.max(minimum[column]!, measured.minimum + 2 * padX);
    });
  }
  const widths = columnWidths(natural, minimum, spec.width);
  const edges = [spec.x];
  for (const width of widths) edges.push(edges[edges.length - 1]! + width);

  const baseline = baselineIn(faces.regular, size, lead);
  const headers: Box[] = [];
  const boxes: Box[] = [];
  const headerHeight = (): number => headers.reduce((total, box) => total + box.height, 0);
  rows.forEach((cells, rowIndex) => {
    const isHeader = rowIndex < spec.headerRows;
    const cellLines: Line[][] = cells.map((runs, column) =>
      breakLines(runs, faces, size, Math.max(widths[column]! - 2 * padX, 0)),
    );
    const lineCount = Math.max(1, ...cellLines.map((lines) => lines.length));
    const repeatHeader = !isHeader && headers.length > 0 && headerHeight() <= spec.maxRowHeight / 2;
    const room = spec.maxRowHeight - (repeatHeader ? headerHeight() : 0) - 2 * padY;
    const perPiece = Math.max(1, Math.floor(room / lead + 1e-9));
    for (let first = 0; first < lineCount; first += perPiece) {
      const count = Math.min(perPiece, lineCount - first);
      const height = 2 * padY + count * lead;
      const texts: PlacedText[] = [];
      cellLines.forEach((lines, column) => {
        lines.slice(first, first + count).forEach((line, index) => {
          texts.push(...lineTexts(line, edges[column]! + padX, size, padY + index * lead + baseline));
        });
      });
      const left = edges[0]!;
      const right = edges[edges.length - 1]!;
      const rules = [
        { x1: left, y1: 0, x2: right, y2: 0, thickness: TABLE_BORDER },
        { x1: left, y1: height, x2: right, y2: height, thickness: TABLE_BORDER },
        ...edges.map((x) => ({ x1: x, y1: 0, x2: x, y2: height, thickness: TABLE_BORDER })),
      ];
      const keepWithPrevious = first === 0 && rowIndex > 0 && rowIndex <= spec.headerRows;
      const box: Box = { height, keepWithPrevious, texts, rules };
      if (isHeader) headers.push(box);
      else if (repeatHeader) box.header = headers;
      boxes.push(box);
    }
  });
  return boxes;
}

/** The width of a cell's text with no line broken but at its forced breaks, and the width of its longest word. */
function measureCell(
  runs: readonly Run[],
  faces: Readonly<Record<InlineStyle, FontFace>>,
  size: number,
): { natural: number; minimum: number } {
  let natural = 0;
  let minimum = 0;
  let line = 0;
  let word = 0;
  for (const run of runs) {
    const face = faces[run.style];
    const pieces = run.text.split(/(\n| +)/);
    for (const piece of pieces) {
      if (piece === "") continue;
      if (piece === "\n") {
        natural = Math.max(natural, line);
        line = 0;
        word = 0;
        continue;
      }
      const width = face.widthOf(piece, size);
      line += width;
      word = piece.startsWith(" ") ? 0 : word + width;
      minimum = Math.max(minimum, word);
    }
  }
  return { natural: Math.max(natural, line), minimum };
}
