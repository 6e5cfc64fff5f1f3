import iconv from "iconv-lite";
import { Tokenize } from "rtf-stream-parser";
import type { Block, Run, TableRow } from "./blocks.ts";
import { styleOf } from "./blocks.ts";
import { TypesetterError } from "./errors.ts";
import { normalizeText } from "./normalize-text.ts";
import {
  CHARSET_CODE_PAGES,
  HIDDEN_DESTINATIONS,
  isSymbolFontName,
  MAC_ENCODINGS,
  SYMBOL_CODE_PAGE,
  symbolCharacter,
} from "./rtf-tables.ts";
import { isEmpty, joinLines, mergeRuns, normalizeBlocks } from "./runs.ts";

/**
 * Parses an RTF letter. rtf-stream-parser's tokenizer splits the RTF into groups, control words and text; the rest
 * is read here. Groups scope formatting; a group that opens with a destination other than the document, a field or
 * its result, or a list marker is not printed, nor is any `{\*...}` group. Text is decoded in the code page of its
 * font (`\fcharset`, `\cpg`) or of the document (`\ansicpg`, else `\ansi`, `\mac`, `\pc` or `\pca`) with
 * iconv-lite; `\'hh` bytes are decoded together with the text around them, so a double-byte character may be written
 * either way; `\uN` is a UTF-16 code unit followed by `\ucN` fallback characters (1 unless set), which are skipped.
 * Text in a symbol font (Symbol, Wingdings, Webdings, or any `\fcharset2` font) becomes the Unicode characters it
 * draws; a character with no counterpart becomes one that no face prints, so the letter is refused rather than
 * printed wrongly.
 *
 * Mailpiece reads the formatting a letter needs: `\b` and `\i` (and `\plain`), `\par` paragraphs (an empty one is a
 * blank line, as in a plain-text letter; `\sect` and `\page` end a paragraph too), `\line` breaks, hidden text
 * (`\v`, dropped), lists (paragraphs with a `\listtext` or `\pntext` marker, or in a `\ls` list; nested by `\ilvl`;
 * numbered when the marker is a number), headings (paragraphs with an `\outlinelevel` from 0 to 8, as word processors
 * write their heading styles: level 0 is a first-level heading, 1 a second, deeper ones a third; a list number stays
 * in front) and tables (`\intbl` paragraphs, `\cell`, `\row`; `\trhdr` rows are the header). Only the text of the
 * document body prints: font, colour and style tables, document information, pictures, headers and footers,
 * footnotes, annotations, field instructions and every `\*` destination are dropped. A body that is not RTF
 * (`{\rtf1 ...}`) is refused with `invalid_letter_input`.
 */
export function parseRtf(source: string): Block[] {
  const rtf = escapeNonAscii(normalizeText(source).trim());
  const reader = new RtfReader();
  const tokenizer = new Tokenize();
  const fail = (error?: unknown): void => {
    if (error !== undefined && error !== null) throw error;
  };
  tokenizer.push = (token: unknown): boolean => {
    if (token !== null) reader.read(token as RtfToken);
    return true;
  };
  try {
    checkEscapes(rtf);
    tokenizer._transform(Buffer.from(rtf, "latin1"), undefined, fail);
    tokenizer._flush(fail);
    return normalizeBlocks(reader.finish());
  } catch (error) {
    // A stack overflow is left for the caller, which refuses the body as nested too deeply.
    if (TypesetterError.isInstance(error) || error instanceof RangeError) throw error;
    throw unreadable(error instanceof Error ? error.message : String(error), error);
  }
}

const NOT_RTF = "an RTF letter starts with {\\rtf1";

function unreadable(reason: string, cause?: unknown): TypesetterError {
  return new TypesetterError(
    "invalid_letter_input",
    `The letter body is not readable RTF: ${reason}.`,
    cause === undefined ? { field: "body" } : { field: "body", cause },
  );
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

/**
 * Refuses escapes the tokenizer cannot read: `\'` not followed by two hex digits, and `\binN` announcing more binary
 * data than the body holds (the tokenizer would set aside N bytes for it).
 */
function checkEscapes(rtf: string): void {
  const escapes = /\\\\|\\'(?![0-9a-fA-F]{2})|\\bin(\d+) ?/g;
  for (let match = escapes.exec(rtf); match !== null; match = escapes.exec(rtf)) {
    if (match[0] === "\\\\") continue;
    if (match[1] === undefined) throw unreadable("\\' must be followed by two hex digits");
    const length = Number(match[1]);
    if (length > rtf.length - escapes.lastIndex) throw unreadable(`\\bin${match[1]} runs past the end`);
    escapes.lastIndex += length;
  }
}

/** A token of rtf-stream-parser's tokenizer, as its `Tokenize` stream gives them. */
interface RtfToken {
  type: number;
  /** The control word or symbol, without its backslash. */
  word?: string;
  param?: number;
  /** The bytes of a text token, of a `\'hh` escape, or of `\bin` data. */
  data?: Uint8Array;
}

/** The token types of the tokenizer. */
const GROUP_START = 0;
const GROUP_END = 1;
const CONTROL = 2;
const TEXT = 3;

/** RTF list levels run from 0 to 8. */
const MAX_LIST_LEVEL = 8;
/** Outline levels 0 to 8 are headings (9 is body text). */
const MAX_OUTLINE_LEVEL = 8;

/** Destinations whose text is part of the letter: the visible result of a field, and the text of `\upr`. */
const VISIBLE = new Set(["rtf", "field", "fldrslt", "upr"]);
/** Destinations that hold the text of a list marker. */
const MARKERS = new Set(["listtext", "pntext"]);

/** Characters written as control words. */
const CHARACTERS: Readonly<Record<string, string>> = {
  tab: "\t",
  lquote: "\u2018",
  rquote: "\u2019",
  ldblquote: "\u201C",
  rdblquote: "\u201D",
  bullet: "\u2022",
  endash: "\u2013",
  emdash: "\u2014",
  emspace: " ",
  enspace: " ",
  qmspace: " ",
  "{": "{",
  "}": "}",
  "\\": "\\",
  "~": "\u00A0",
  _: "\u2011",
};

/** The document character sets and their code pages. */
const CHARACTER_SETS: Readonly<Record<string, number>> = { ansi: 1252, mac: 10000, pc: 437, pca: 850 };

/**
 * Where the text of a group goes: into the letter, into a list marker, into the font table (font names), or
 * nowhere.
 */
type Destination = "text" | "marker" | "fonts" | "hidden";

/** What a group sets, and its groups inherit. */
interface GroupState {
  destination: Destination;
  bold: boolean;
  italic: boolean;
  hidden: boolean;
  /** The `\f` font, by its number; none for the document's default font. */
  font: string | undefined;
  /** How many fallback characters follow a `\u` escape. */
  uc: number;
  inTable: boolean;
  list: boolean;
  listLevel: number;
  /** The paragraph's outline level (`\outlinelevel`, 0 for a top heading): the paragraph is a heading. */
  outline: number | undefined;
}

interface FontEntry {
  name: string;
  /** The name is complete (its closing ";" was read). */
  named: boolean;
  charset: number | undefined;
  codePage: number | undefined;
}

interface ListParagraph {
  level: number;
  marker: string | undefined;
  runs: Run[];
}

class RtfReader {
  private readonly blocks: Block[] = [];
  private runs: Run[] = [];
  private marker: string | undefined;
  private cell: Run[][] = [];
  private row: Run[][] = [];
  private rows: TableRow[] = [];
  private headerRows = 0;
  private rowIsHeader = false;
  private listParagraphs: ListParagraph[] = [];

  private state: GroupState = {
    destination: "text",
    bold: false,
    italic: false,
    hidden: false,
    font: undefined,
    uc: 1,
    inTable: false,
    list: false,
    listLevel: 0,
    outline: undefined,
  };
  private readonly outer: GroupState[] = [];
  private tokens = 0;
  /** The closing brace of the document was read: what follows is not part of it. */
  private done = false;
  /** The current group has had no token yet: a control word now names its destination. */
  private groupStart = false;
  /** Fallback characters of a `\u` escape still to skip. */
  private skip = 0;
  /** Bytes of text and `\'hh` escapes not yet decoded, and UTF-16 code units of `\u` escapes. */
  private bytes: number[] = [];
  private units: number[] = [];

  private readonly fonts = new Map<string, FontEntry>();
  private fontEntry: FontEntry | undefined;
  private defaultFont: string | undefined;
  private characterSetCodePage: number | undefined;
  private ansiCodePage: number | undefined;

  read(token: RtfToken): void {
    if (this.done) return;
    this.tokens++;
    if (this.tokens === 1 && token.type !== GROUP_START) throw unreadable(NOT_RTF);
    if (this.tokens === 2 && (token.word !== "rtf" || ![undefined, 0, 1].includes(token.param))) {
      throw unreadable(NOT_RTF);
    }
    if (token.type === GROUP_START || token.type === GROUP_END) this.skip = 0;
    else if (this.skip > 0) {
      if (token.type === CONTROL) {
        this.skip--;
        return;
      }
      const data = token.data ?? new Uint8Array();
      if (this.skip >= data.length) {
        this.skip -= data.length;
        return;
      }
      token = { ...token, data: data.subarray(this.skip) };
      this.skip = 0;
    }
    const groupStart = this.groupStart;
    this.groupStart = false;
    switch (token.type) {
      case GROUP_START:
        this.flush();
        this.outer.push(this.state);
        this.state = { ...this.state };
        this.groupStart = true;
        return;
      case GROUP_END:
        this.flush();
        this.state = this.outer.pop() ?? this.state;
        if (this.outer.length === 0) this.done = true;
        return;
      case TEXT:
        this.addBytes(token.data ?? new Uint8Array());
        return;
      case CONTROL:
        this.control(token.word ?? "", token.param, token.data, groupStart);
    }
  }

  private control(
    word: string,
    param: number | undefined,
    data: Uint8Array | undefined,
    groupStart: boolean,
  ): void {
    if (word === "'") {
      this.addBytes(data ?? new Uint8Array());
      return;
    }
    if (word === "u") {
      if (param === undefined) return;
      if (this.bytes.length > 0) this.flushBytes();
      // A negative number is a code unit from 0x8000 up; a number beyond 0xFFFF, a code point written whole.
      const code = param < 0 ? param + 0x10000 : param;
      if (code >= 0 && code <= 0x10ffff) {
        const character = String.fromCodePoint(code);
        for (let index = 0; index < character.length; index++) this.units.push(character.charCodeAt(index));
      }
      this.skip = this.state.uc;
      return;
    }
    if (word === "uc") {
      this.state.uc = Math.max(0, param ?? 0);
      return;
    }
    this.flush();
    const state = this.state;
    if (groupStart) this.enter(word);
    const character = CHARACTERS[word];
    if (character !== undefined) {
      this.deliver(character);
      return;
    }
    const on = param !== 0;
    switch (word) {
      case "par":
      case "sect":
      case "page":
        if (this.where() === "text") this.endParagraph();
        return;
      case "line":
        if (this.where() === "text") this.runs.push({ text: "\n", style: this.style() });
        return;
      case "cell":
      case "nestcell":
        if (this.where() === "text") this.endCell();
        return;
      case "row":
      case "nestrow":
        if (this.where() === "text") this.endRow();
        return;
      case "trowd":
        this.rowIsHeader = false;
        return;
      case "trhdr":
        this.rowIsHeader = true;
        return;
      case "b":
        state.bold = on;
        return;
      case "i":
        state.italic = on;
        return;
      case "v":
        state.hidden = on;
        return;
      case "plain":
        state.bold = false;
        state.italic = false;
        state.hidden = false;
        state.font = undefined;
        return;
      case "pard":
        state.inTable = false;
        state.list = false;
        state.listLevel = 0;
        state.outline = undefined;
        return;
      case "outlinelevel": {
        const level = param ?? 0;
        state.outline = level >= 0 && level <= MAX_OUTLINE_LEVEL ? level : undefined;
        return;
      }
      case "intbl":
        state.inTable = true;
        return;
      case "ls":
        state.list = true;
        return;
      case "ilvl":
        state.listLevel = Math.min(Math.max(0, param ?? 0), MAX_LIST_LEVEL);
        return;
      case "f":
        if (param === undefined) return;
        if (state.destination === "fonts") {
          this.fontEntry = { name: "", named: false, charset: undefined, codePage: undefined };
          this.fonts.set(String(param), this.fontEntry);
        } else state.font = String(param);
        return;
      case "fcharset":
        if (state.destination === "fonts" && this.fontEntry !== undefined) this.fontEntry.charset = param;
        return;
      case "cpg":
        if (state.destination === "fonts" && this.fontEntry !== undefined) this.fontEntry.codePage = param;
        return;
      case "deff":
        this.defaultFont ??= param === undefined ? undefined : String(param);
        return;
      case "ansicpg":
        if (param !== undefined && param > 0) this.ansiCodePage ??= param;
        return;
      case "ansi":
      case "mac":
      case "pc":
      case "pca":
        this.characterSetCodePage = CHARACTER_SETS[word];
        return;
    }
  }

  /** The group's first control word: `\*` or a destination sets where its text goes. */
  private enter(word: string): void {
    const state = this.state;
    if (state.destination === "hidden" || VISIBLE.has(word)) return;
    if (word === "*" || HIDDEN_DESTINATIONS.has(word)) state.destination = "hidden";
    else if (word === "fonttbl") state.destination = "fonts";
    else if (MARKERS.has(word)) state.destination = state.destination === "fonts" ? "hidden" : "marker";
  }

  private addBytes(data: Uint8Array): void {
    if (this.units.length > 0) this.flushUnits();
    for (const byte of data) this.bytes.push(byte);
  }

  private flush(): void {
    if (this.bytes.length > 0) this.flushBytes();
    if (this.units.length > 0) this.flushUnits();
  }

  /** Decodes the pending bytes in the code page of the current font, or names the font being defined. */
  private flushBytes(): void {
    const bytes = Uint8Array.from(this.bytes);
    this.bytes = [];
    if (this.state.destination === "fonts") {
      const entry = this.fontEntry;
      if (entry === undefined || entry.named) return;
      const text = Buffer.from(bytes).toString("latin1");
      const end = text.indexOf(";");
      entry.name += end < 0 ? text : text.slice(0, end);
      if (end >= 0) entry.named = true;
      return;
    }
    const font = this.currentFont();
    if (font !== undefined && isSymbolFont(font)) {
      this.deliver(Array.from(bytes, (byte) => symbolCharacter(font.name, byte)).join(""));
      return;
    }
    this.deliver(
      decode(bytes, font?.codePage ?? CHARSET_CODE_PAGES.get(font?.charset ?? 1) ?? this.codePage()),
    );
  }

  /** The pending `\u` code units as text; in a symbol font, codes 0 to 255 and U+F000 to U+F0FF are its codes. */
  private flushUnits(): void {
    const units = this.units;
    this.units = [];
    const font = this.currentFont();
    if (font !== undefined && isSymbolFont(font)) {
      this.deliver(
        units
          .map((unit) =>
            unit <= 0xff || (unit >= 0xf000 && unit <= 0xf0ff)
              ? symbolCharacter(font.name, unit & 0xff)
              : String.fromCharCode(unit),
          )
          .join(""),
      );
      return;
    }
    let text = "";
    for (let start = 0; start < units.length; start += 4096) {
      text += String.fromCharCode(...units.slice(start, start + 4096));
    }
    this.deliver(text);
  }

  private currentFont(): FontEntry | undefined {
    const key = this.state.font ?? this.defaultFont;
    return key === undefined ? undefined : this.fonts.get(key);
  }

  private codePage(): number {
    return this.ansiCodePage ?? this.characterSetCodePage ?? 1252;
  }

  /** Text into the letter, into the list marker being read, or nowhere. */
  private deliver(text: string): void {
    const where = this.where();
    if (where === "text") this.runs.push({ text, style: this.style() });
    else if (where === "marker") this.marker = (this.marker ?? "") + text;
  }

  /** The blocks of the document, once every token is read. */
  finish(): Block[] {
    if (this.tokens < 2) throw unreadable(NOT_RTF);
    this.flush();
    if (!isEmpty(this.runs) || this.marker !== undefined) this.endParagraph();
    this.closeTable();
    this.closeList();
    return this.blocks;
  }

  private style() {
    return styleOf(this.state.bold, this.state.italic);
  }

  /** Where text in the current group goes. */
  private where(): Destination {
    return this.state.hidden ? "hidden" : this.state.destination;
  }

  private endParagraph(): void {
    const runs = mergeRuns(this.runs);
    const marker = this.marker;
    this.runs = [];
    this.marker = undefined;
    const state = this.state;
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
    if (marker !== undefined || state.list) {
      this.listParagraphs.push({ level: state.listLevel, marker, runs });
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

/** A font of the symbol character set, or known by name to be a symbol font. */
function isSymbolFont(font: FontEntry): boolean {
  return (
    font.codePage === SYMBOL_CODE_PAGE ||
    CHARSET_CODE_PAGES.get(font.charset ?? 1) === SYMBOL_CODE_PAGE ||
    isSymbolFontName(font.name)
  );
}

/** Text in a code page: Unicode ones directly, the others with iconv-lite. */
function decode(bytes: Uint8Array, codePage: number): string {
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (codePage === 65001 || codePage === 20127) return buffer.toString("utf8");
  if (codePage === 1200) return buffer.toString("utf16le");
  const encoding = MAC_ENCODINGS.get(codePage) ?? `cp${codePage}`;
  if (!iconv.encodingExists(encoding)) throw unreadable(`code page ${codePage} is not supported`);
  return iconv.decode(buffer, encoding);
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
