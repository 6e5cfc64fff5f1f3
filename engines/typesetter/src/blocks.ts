/**
 * The document model between parsers and the layout engine. Each parser (plain text, markdown, HTML, RTF) turns its
 * source into blocks; the layout engine knows nothing of source formats.
 */
export type InlineStyle = "regular" | "bold" | "italic" | "bold-italic";

/** A stretch of text in one style. A "\n" in the text is a forced line break. */
export interface Run {
  text: string;
  style: InlineStyle;
}

/** One row of a table: its cells, each a list of runs. */
export interface TableRow {
  cells: Run[][];
}

export type Block =
  /** A line of a plain-text letter, kept as written: it wraps, but stands with no space around it. */
  | { kind: "line"; runs: Run[] }
  /** An empty line of a plain-text letter, kept as one line of vertical space. */
  | { kind: "blank" }
  /** A paragraph of a formatted letter: its runs wrap to the measure; paragraphs are set apart by a line's space. */
  | { kind: "paragraph"; runs: Run[] }
  /** A heading, level 1 (largest) to 3, set in bold and kept on the page of what follows it. */
  | { kind: "heading"; level: 1 | 2 | 3; runs: Run[] }
  /** A list; each item is a list of blocks (a nested list is a block of its item). */
  | { kind: "list"; ordered: boolean; start: number; items: Block[][] }
  /** A table: rows of cells; the first `headerRows` rows are set in bold and repeated on every page it runs onto. */
  | { kind: "table"; rows: TableRow[]; headerRows: number }
  /** A quotation: its blocks set indented. */
  | { kind: "quote"; blocks: Block[] }
  /** A horizontal rule across the measure. */
  | { kind: "rule" };

/** The bold counterpart of a style. */
export function emboldened(style: InlineStyle): InlineStyle {
  return style === "italic" || style === "bold-italic" ? "bold-italic" : "bold";
}

/** The italic counterpart of a style. */
export function italicized(style: InlineStyle): InlineStyle {
  return style === "bold" || style === "bold-italic" ? "bold-italic" : "italic";
}

/** The style of text that is bold and/or italic. */
export function styleOf(bold: boolean, italic: boolean): InlineStyle {
  if (bold) return italic ? "bold-italic" : "bold";
  return italic ? "italic" : "regular";
}
