import iconv from "iconv-lite";
import { Tokenize } from "rtf-stream-parser";
import type { FeatureHandler } from "rtf-stream-parser/dist/src/features/types.js";
import type { ProcessTokensGlobalState } from "rtf-stream-parser/dist/src/ProcessTokens.types.js";
import { ToPlainText } from "rtf-stream-parser/dist/src/ToPlainText.js";
import type { Token } from "rtf-stream-parser/dist/src/tokenize.js";
import type { Block, Run, TableRow } from "./blocks.ts";
import { styleOf } from "./blocks.ts";
import { TypesetterError } from "./errors.ts";
import { normalizeText } from "./normalize-text.ts";
import { isEmpty, joinLines, mergeRuns, normalizeBlocks } from "./runs.ts";

/**
 * Parses an RTF letter. rtf-stream-parser reads the RTF: its tokenizer, and its plain-text processor for groups,
 * destinations, character sets and code pages (decoded with iconv-lite), Unicode escapes with their fallbacks, and
 * symbol fonts. On top of it Mailpiece reads the formatting a letter needs: `\b` and `\i` (and `\plain`), `\par`
 * paragraphs (an empty one is a blank line, as in a plain-text letter), `\line` breaks, hidden text (`\v`, dropped),
 * lists (paragraphs with a `\listtext` or `\pntext` marker, or in a `\ls` list; nested by `\ilvl`; numbered when the
 * marker is a number), headings (paragraphs with an `\outlinelevel` from 0 to 8, as word processors write their
 * heading styles: level 0 is a first-level heading, 1 a second, deeper ones a third; a list number stays in front)
 * and tables (`\intbl` paragraphs, `\cell`, `\row`; `\trhdr` rows are the header). Only the text of the document
 * body prints: font, colour and style tables, document information, pictures, headers and footers, footnotes,
 * annotations, field instructions and every `\*` destination are dropped. A body that is not RTF (`{\rtf1 ...}`) is
 * refused with `invalid_letter_input`.
 */
export function parseRtf(source: string): Block[] {
  const reader = new RtfReader();
  const tokenizer = new Tokenize();
  const fail = (error?: unknown): void => {
    if (error !== undefined && error !== null) throw error;
  };
  tokenizer.push = (token: unknown): boolean => {
    if (token !== null) reader._transform(token as Token, "", fail);
    return true;
  };
  try {
    tokenizer._transform(Buffer.from(escapeNonAscii(normalizeText(source).trim()), "latin1"), "", fail);
    tokenizer._flush(fail);
    reader._flush(fail);
  } catch (error) {
    throw new TypesetterError(
      "invalid_letter_input",
      `The letter body is not readable RTF (${error instanceof Error ? error.message : String(error)}); an RTF letter starts with {\\rtf1.`,
      { field: "body", cause: error },
    );
  }
  return normalizeBlocks(reader.finish());
}

/**
 * RTF is 7-bit text; a character beyond ASCII written as it is (the body arrives as Unicode text) is turned into an
 * RTF Unicode escape with no fallback, in a group of its own so the document's `\uc` setting is untouched.
 */
function escapeNonAscii(source: string): string {
  return source.replace(/[\u0080-\uffff]+/g, (chars) => {
    let escaped = "{\\uc0";
    for (let index = 0; index < chars.length; index++) {
      const unit = chars.charCodeAt(index);
      escaped += `\\u${unit > 0x7fff ? unit - 0x10000 : unit} `;
    }
    return `${escaped}}`;
  });
}

/** RTF list levels run from 0 to 8. */
const MAX_LIST_LEVEL = 8;
/** Outline levels 0 to 8 are headings (9 is body text). */
const MAX_OUTLINE_LEVEL = 8;

/** Destinations whose text is part of the letter: the document itself and the visible result of a field. */
const VISIBLE = new Set(["rtf", "field", "fldrslt", "upr"]);
/** Destinations that hold the text of a list marker. */
const MARKERS = new Set(["listtext", "pntext"]);

interface GroupFormat {
  bold?: boolean;
  italic?: boolean;
  hidden?: boolean;
  inTable?: boolean;
  list?: number;
  listLevel?: number;
  /** The paragraph's outline level (`\outlinelevel`, 0 for a top heading): the paragraph is a heading. */
  outline?: number;
}

type State = ProcessTokensGlobalState["_state"] & GroupFormat;

interface ListParagraph {
  level: number;
  marker: string | undefined;
  runs: Run[];
}

class RtfReader extends ToPlainText {
  private readonly blocks: Block[] = [];
  private runs: Run[] = [];
  private marker: string | undefined;
  private cell: Run[][] = [];
  private row: Run[][] = [];
  private rows: TableRow[] = [];
  private headerRows = 0;
  private rowIsHeader = false;
  private listParagraphs: ListParagraph[] = [];

  constructor() {
    super({
      decode: (bytes: Buffer, encoding: string) => iconv.decode(bytes, encoding),
      replaceSymbolFontChars: true,
      warn: () => {},
    });
    const format =
      (apply: (state: State, on: boolean) => void) => (global: ProcessTokensGlobalState, token: Token) => {
        apply(global._state as State, token.param !== 0);
        return true as const;
      };
    const feature: FeatureHandler<ProcessTokensGlobalState> = {
      outputDataFilter: (_global, data) => {
        const where = this.where();
        if (where === "marker") {
          const [text] = this._getOutputAsString(data, this._getCurrentFont());
          this.marker = (this.marker ?? "") + text;
        }
        return where === "text" ? undefined : true;
      },
      controlHandlers: {
        par: () => this.control(() => this.endParagraph()),
        line: () => this.control(() => this.runs.push({ text: "\n", style: this.style() })),
        cell: () => this.control(() => this.endCell()),
        nestcell: () => this.control(() => this.endCell()),
        row: () => this.control(() => this.endRow()),
        nestrow: () => this.control(() => this.endRow()),
        trowd: () => {
          this.rowIsHeader = false;
          return true;
        },
        trhdr: () => {
          this.rowIsHeader = true;
          return true;
        },
        b: format((state, on) => {
          state.bold = on;
        }),
        i: format((state, on) => {
          state.italic = on;
        }),
        v: format((state, on) => {
          state.hidden = on;
        }),
        plain: format((state) => {
          state.bold = false;
          state.italic = false;
          state.hidden = false;
        }),
        pard: format((state) => {
          state.inTable = false;
          state.list = 0;
          state.listLevel = 0;
          state.outline = undefined;
        }),
        outlinelevel: (global, token) => {
          const level = token.param ?? 0;
          (global._state as State).outline = level >= 0 && level <= MAX_OUTLINE_LEVEL ? level : undefined;
          return true;
        },
        intbl: format((state) => {
          state.inTable = true;
        }),
        ls: format((state) => {
          (state as State).list = 1;
        }),
        ilvl: (global, token) => {
          (global._state as State).listLevel = Math.min(Math.max(0, token.param ?? 0), MAX_LIST_LEVEL);
          return true;
        },
      },
    };
    this._featureHandlers.unshift(feature);
  }

  /** Text the processor decoded and kept: one run in the current style. */
  override _pushOutputData(text: string): void {
    this.runs.push({ text, style: this.style() });
  }

  /** The blocks of the document, once every token is read. */
  finish(): Block[] {
    if (!isEmpty(this.runs) || this.marker !== undefined) this.endParagraph();
    this.closeTable();
    this.closeList();
    return this.blocks;
  }

  private state(): State {
    return this._state as State;
  }

  private style() {
    const state = this.state();
    return styleOf(state.bold === true, state.italic === true);
  }

  /** Where text in the current group goes: into the letter, into a list marker, or nowhere. */
  private where(): "text" | "marker" | "hidden" {
    const state = this.state();
    if (state.destIgnorable || state.hidden) return "hidden";
    let marker = false;
    for (const destination in state.allDestinations ?? {}) {
      if (MARKERS.has(destination)) marker = true;
      else if (!VISIBLE.has(destination)) return "hidden";
    }
    return marker ? "marker" : "text";
  }

  /** Runs a structural control word (paragraph, cell, row, line) when it is part of the letter's text. */
  private control(action: () => void): true {
    if (this.where() === "text") action();
    return true;
  }

  private endParagraph(): void {
    const runs = mergeRuns(this.runs);
    const marker = this.marker;
    this.runs = [];
    this.marker = undefined;
    const state = this.state();
    if (state.inTable) {
      this.cell.push(runs);
      return;
    }
    this.closeTable();
    if (state.outline !== undefined && !isEmpty(runs)) {
      this.closeList();
      const numbered = marker?.trim() ? [{ text: `${marker.trim()} `, style: this.style() }, ...runs] : runs;
      const level = state.outline === 0 ? 1 : state.outline === 1 ? 2 : 3;
      this.blocks.push({ kind: "heading", level, runs: trimEnd(mergeRuns(numbered)) });
      return;
    }
    if (marker !== undefined || (state.list ?? 0) > 0) {
      this.listParagraphs.push({ level: state.listLevel ?? 0, marker, runs });
      return;
    }
    this.closeList();
    this.blocks.push(isEmpty(runs) ? { kind: "blank" } : { kind: "line", runs: trimEnd(runs) });
  }

  private endCell(): void {
    if (!isEmpty(this.runs) || this.cell.length === 0) this.cell.push(mergeRuns(this.runs));
    this.runs = [];
    this.marker = undefined;
    this.row.push(joinLines(this.cell.map(trimEnd)));
    this.cell = [];
  }

  private endRow(): void {
    if (!isEmpty(this.runs) || this.cell.length > 0) this.endCell();
    if (this.row.length > 0) {
      if (this.rowIsHeader && this.headerRows === this.rows.length) this.headerRows++;
      this.rows.push({ cells: this.row });
    }
    this.row = [];
  }

  private closeTable(): void {
    if (this.row.length > 0 || this.cell.length > 0) this.endRow();
    if (this.rows.length > 0) {
      this.closeList();
      this.blocks.push({ kind: "table", rows: this.rows, headerRows: this.headerRows });
    }
    this.rows = [];
    this.headerRows = 0;
  }

  private closeList(): void {
    if (this.listParagraphs.length > 0) this.blocks.push(nestList(this.listParagraphs));
    this.listParagraphs = [];
  }
}

/** Builds a list from list paragraphs: a paragraph at a deeper level than the one before starts a nested list. */
function nestList(paragraphs: readonly ListParagraph[]): Block {
  type ListBlock = Extract<Block, { kind: "list" }>;
  const listFor = (marker: string | undefined): ListBlock => {
    const number = /^\s*\(?(\d+)[.):]?/.exec(marker ?? "");
    return { kind: "list", ordered: number !== null, start: number ? Number(number[1]) : 1, items: [] };
  };
  const root = listFor(paragraphs[0]!.marker);
  const stack: { level: number; list: ListBlock }[] = [{ level: paragraphs[0]!.level, list: root }];
  for (const paragraph of paragraphs) {
    while (stack.length > 1 && stack[stack.length - 1]!.level > paragraph.level) stack.pop();
    const top = stack[stack.length - 1]!;
    const parentItem = top.list.items[top.list.items.length - 1];
    if (paragraph.level > top.level && parentItem !== undefined) {
      const nested = listFor(paragraph.marker);
      parentItem.push(nested);
      stack.push({ level: paragraph.level, list: nested });
    }
    stack[stack.length - 1]!.list.items.push([{ kind: "line", runs: trimEnd(paragraph.runs) }]);
  }
  return root;
}

/** Runs without the spaces at their end. */
function trimEnd(runs: readonly Run[]): Run[] {
  const out = runs.map((run) => ({ ...run }));
  while (out.length > 0) {
    const last = out[out.length - 1]!;
    last.text = last.text.replace(/[ \t]+$/, "");
    if (last.text !== "") break;
    out.pop();
  }
  return out;
}
