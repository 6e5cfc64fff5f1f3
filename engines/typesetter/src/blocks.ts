/**
 * The document model between parsers and the layout engine. A parser (plain text today; markdown, HTML and RTF
 * later) turns its source into blocks; the layout engine knows nothing of source formats.
 */
export type InlineStyle = "regular" | "bold";

/** A stretch of text in one style. Text holds no line breaks. */
export interface Run {
  text: string;
  style: InlineStyle;
}

export type Block =
  /** A paragraph: its runs wrap to the measure of the page. */
  | { kind: "paragraph"; runs: Run[] }
  /** An empty line, kept as one line of vertical space. */
  | { kind: "blank" };
