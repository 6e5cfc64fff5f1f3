import { PostcardError } from "./errors.ts";

/** A name operand; `name` is the text after the slash as written, `#xx` escapes left in place. */
export interface NameOperand {
  type: "name";
  name: string;
}

/** A literal `( )` or hex `< >` string operand, as bytes after escapes are resolved. */
export interface StringOperand {
  type: "string";
  bytes: Uint8Array;
}

export interface DictOperand {
  type: "dict";
  entries: Map<string, Operand>;
}

export type Operand = number | boolean | null | NameOperand | StringOperand | DictOperand | Operand[];

/** One content-stream operator with the operands before it. */
export interface Operation {
  operator: string;
  operands: Operand[];
  /**
   * For `BI`: the inline image's dictionary (keys without the slash); its data up to `EI` has been skipped and the
   * `ID` and `EI` keywords are not reported.
   */
  image?: Map<string, Operand>;
}

const WHITE = new Uint8Array(256);
for (const c of [0, 9, 10, 12, 13, 32]) WHITE[c] = 1;
const DELIMITER = new Uint8Array(256);
for (const c of "()<>[]{}/%") DELIMITER[c.charCodeAt(0)] = 1;

const LPAREN = 0x28;
const RPAREN = 0x29;
const LT = 0x3c;
const GT = 0x3e;
const LBRACKET = 0x5b;
const RBRACKET = 0x5d;
const SLASH = 0x2f;
const PERCENT = 0x25;
const BACKSLASH = 0x5c;

/**
 * The operators of ISO 32000-1 Annex A, so that each reads as the same (interned) string and compares fast; any
 * other keyword is returned as written.
 */
const OPERATORS: ReadonlyMap<string, string> = new Map(
  (
    "b B b* B* BDC BI BMC BT BX c cm CS cs d d0 d1 Do DP EI EMC ET EX f F f* G g gs h i ID j J K k l m M MP n q Q " +
    "re RG rg ri s S SC sc SCN scn sh T* Tc Td TD Tf Tj TJ TL Tm Tr Ts Tw Tz v w W W* y ' \""
  )
    .split(" ")
    .map((op) => [op, op]),
);

/** A token-level marker for the ends of arrays and dictionaries. */
const ARRAY_END = Symbol("]");
const DICT_END = Symbol(">>");
type Token = Operand | { operator: string } | typeof ARRAY_END | typeof DICT_END | undefined;

/**
 * Reads the operators of a PDF content stream (ISO 32000-1 7.8.2) with their operands. Tolerant as viewers are:
 * stray delimiters and comments are skipped, an unterminated string or array ends at the end of the data.
 * Inline images (`BI` dictionary `ID` data `EI`) come back as one `BI` operation; their binary data is never
 * mistaken for operators.
 */
export function* readOperations(data: Uint8Array): Generator<Operation, void, undefined> {
  const reader = new Reader(data);
  let operands: Operand[] = [];
  for (;;) {
    const token = reader.next();
    if (token === undefined) return;
    if (token === ARRAY_END || token === DICT_END) continue;
    if (isOperator(token)) {
      if (token.operator === "BI") {
        yield { operator: "BI", operands, image: reader.inlineImage() };
      } else {
        yield { operator: token.operator, operands };
      }
      operands = [];
    } else {
      operands.push(token);
    }
  }
}

function isOperator(token: Token): token is { operator: string } {
  return typeof token === "object" && token !== null && !Array.isArray(token) && "operator" in token;
}

/** Arrays and dictionaries nest at most this deep; deeper nesting is refused as malformed. */
const MAX_DEPTH = 64;

class Reader {
  private pos = 0;
  private depth = 0;

  constructor(private readonly data: Uint8Array) {}

  /** The next token, or undefined at the end of the data. */
  next(): Token {
    const data = this.data;
    for (;;) {
      this.skipWhite();
      if (this.pos >= data.length) return undefined;
      const c = data[this.pos]!;
      switch (c) {
        case PERCENT:
          while (this.pos < data.length && data[this.pos] !== 10 && data[this.pos] !== 13) this.pos++;
          continue;
        case LPAREN:
          this.pos++;
          return { type: "string", bytes: this.literalString() };
        case LT:
          if (data[this.pos + 1] === LT) {
            this.pos += 2;
            return this.nested(() => this.dict());
          }
          this.pos++;
          return { type: "string", bytes: this.hexString() };
        case GT:
          if (data[this.pos + 1] === GT) {
            this.pos += 2;
            return DICT_END;
          }
          this.pos++;
          continue;
        case LBRACKET:
          this.pos++;
          return this.nested(() => this.array());
        case RBRACKET:
          this.pos++;
          return ARRAY_END;
        case SLASH:
          this.pos++;
          return { type: "name", name: this.regular() };
        default:
          if (DELIMITER[c]) {
            // `{`, `}` and a stray `)` have no meaning in a content stream.
            this.pos++;
            continue;
          }
          return this.keywordOrNumber(this.regular());
      }
    }
  }

  private nested<T>(read: () => T): T {
    if (++this.depth > MAX_DEPTH)
      throw new PostcardError("content_malformed", `arrays or dictionaries nest deeper than ${MAX_DEPTH}`);
    try {
      return read();
    } finally {
      this.depth--;
    }
  }

  private skipWhite(): void {
    const data = this.data;
    while (this.pos < data.length && WHITE[data[this.pos]!]) this.pos++;
  }

  /** The run of regular characters at the current position. */
  private regular(): string {
    const data = this.data;
    const start = this.pos;
    while (this.pos < data.length && !WHITE[data[this.pos]!] && !DELIMITER[data[this.pos]!]) this.pos++;
    return latin1(data, start, this.pos);
  }

  private keywordOrNumber(text: string): Token {
    const first = text.charCodeAt(0);
    if ((first >= 0x30 && first <= 0x39) || first === 0x2b || first === 0x2d || first === 0x2e) {
      return parseNumber(text);
    }
    if (text === "true") return true;
    if (text === "false") return false;
    if (text === "null") return null;
    return { operator: OPERATORS.get(text) ?? text };
  }

  private array(): Operand[] {
    const items: Operand[] = [];
    for (;;) {
      const token = this.next();
      if (token === undefined || token === ARRAY_END) return items;
      if (token === DICT_END || isOperator(token)) continue;
      items.push(token);
    }
  }

  private dict(): DictOperand {
    const entries = new Map<string, Operand>();
    let key: string | undefined;
    for (;;) {
      const token = this.next();
      if (token === undefined || token === DICT_END) return { type: "dict", entries };
      if (token === ARRAY_END || isOperator(token)) continue;
      if (key === undefined) {
        if (typeof token === "object" && token !== null && !Array.isArray(token) && token.type === "name") {
          key = token.name;
        }
      } else {
        entries.set(key, token);
        key = undefined;
      }
    }
  }

  private literalString(): Uint8Array {
    const data = this.data;
    const out: number[] = [];
    let depth = 1;
    while (this.pos < data.length) {
      const c = data[this.pos++]!;
      if (c === LPAREN) {
        depth++;
        out.push(c);
      } else if (c === RPAREN) {
        if (--depth === 0) break;
        out.push(c);
      } else if (c === BACKSLASH) {
        if (this.pos >= data.length) break;
        const e = data[this.pos++]!;
        switch (e) {
          case 0x6e:
            out.push(10);
            break;
          case 0x72:
            out.push(13);
            break;
          case 0x74:
            out.push(9);
            break;
          case 0x62:
            out.push(8);
            break;
          case 0x66:
            out.push(12);
            break;
          case 13:
            // A backslash at the end of a line continues the string on the next line.
            if (data[this.pos] === 10) this.pos++;
            break;
          case 10:
            break;
          default:
            if (e >= 0x30 && e <= 0x37) {
              let value = e - 0x30;
              for (let i = 0; i < 2 && this.pos < data.length; i++) {
                const d = data[this.pos]!;
                if (d < 0x30 || d > 0x37) break;
                value = value * 8 + (d - 0x30);
                this.pos++;
              }
              out.push(value & 0xff);
            } else {
              out.push(e);
            }
        }
      } else {
        out.push(c);
      }
    }
    return Uint8Array.from(out);
  }

  private hexString(): Uint8Array {
    const data = this.data;
    const out: number[] = [];
    let high = -1;
    while (this.pos < data.length) {
      const c = data[this.pos++]!;
      if (c === GT) break;
      const v = hexValue(c);
      if (v < 0) continue;
      if (high < 0) {
        high = v;
      } else {
        out.push(high * 16 + v);
        high = -1;
      }
    }
    if (high >= 0) out.push(high * 16);
    return Uint8Array.from(out);
  }

  /**
   * After `BI`: reads the image dictionary up to `ID`, then skips the image data and its `EI`. The data length is
   * taken from an `L` / `Length` entry or computed for unfiltered data; otherwise the data ends at the first `EI`
   * that stands between white space and is followed by text rather than binary data.
   */
  inlineImage(): Map<string, Operand> {
    const entries = new Map<string, Operand>();
    let key: string | undefined;
    for (;;) {
      const token = this.next();
      if (token === undefined) return entries;
      if (isOperator(token)) {
        if (token.operator === "ID") break;
        continue;
      }
      if (token === ARRAY_END || token === DICT_END) continue;
      if (key === undefined) {
        if (typeof token === "object" && token !== null && !Array.isArray(token) && token.type === "name") {
          key = token.name;
        }
      } else {
        entries.set(key, token);
        key = undefined;
      }
    }
    // One white-space byte separates ID from the data.
    if (WHITE[this.data[this.pos] ?? 0]) this.pos++;
    const length = inlineDataLength(entries);
    if (length !== undefined && this.endsWithEI(this.pos + length)) return entries;
    this.skipToEI();
    return entries;
  }

  private endsWithEI(at: number): boolean {
    const data = this.data;
    let p = at;
    while (p < data.length && WHITE[data[p]!]) p++;
    if (data[p] === 0x45 && data[p + 1] === 0x49 && (p + 2 >= data.length || isBoundary(data[p + 2]!))) {
      this.pos = p + 2;
      return true;
    }
    return false;
  }

  private skipToEI(): void {
    const data = this.data;
    for (let p = this.pos; p + 1 < data.length; p++) {
      if (data[p] !== 0x45 || data[p + 1] !== 0x49) continue;
      if (p > this.pos && !WHITE[data[p - 1]!]) continue;
      if (p + 2 < data.length && !isBoundary(data[p + 2]!)) continue;
      if (!looksLikeText(data, p + 2)) continue;
      this.pos = p + 2;
      return;
    }
    this.pos = data.length;
  }
}

function isBoundary(c: number): boolean {
  return WHITE[c] === 1 || DELIMITER[c] === 1;
}

/** True when the bytes after a candidate `EI` read as content-stream text, not as more binary image data. */
function looksLikeText(data: Uint8Array, from: number): boolean {
  const end = Math.min(data.length, from + 16);
  for (let p = from; p < end; p++) {
    const c = data[p]!;
    if (!WHITE[c] && (c < 0x20 || c > 0x7e)) return false;
  }
  return true;
}

const COMPONENTS: Record<string, number> = {
  G: 1,
  DeviceGray: 1,
  CalGray: 1,
  RGB: 3,
  DeviceRGB: 3,
  CalRGB: 3,
  CMYK: 4,
  DeviceCMYK: 4,
  I: 1,
  Indexed: 1,
};

/** The byte length of an inline image's data when the dictionary states or implies it, else undefined. */
function inlineDataLength(dict: Map<string, Operand>): number | undefined {
  const stated = dict.get("L") ?? dict.get("Length");
  if (typeof stated === "number" && stated >= 0) return Math.floor(stated);
  const filter = dict.get("F") ?? dict.get("Filter");
  if (filter !== undefined && !(Array.isArray(filter) && filter.length === 0)) return undefined;
  const width = dict.get("W") ?? dict.get("Width");
  const height = dict.get("H") ?? dict.get("Height");
  if (typeof width !== "number" || typeof height !== "number" || width < 0 || height < 0) return undefined;
  const mask = dict.get("IM") ?? dict.get("ImageMask");
  let components: number | undefined;
  let bits: number | undefined;
  if (mask === true) {
    components = 1;
    bits = 1;
  } else {
    const space = dict.get("CS") ?? dict.get("ColorSpace");
    if (typeof space === "object" && space !== null && !Array.isArray(space) && space.type === "name") {
      components = COMPONENTS[space.name];
    } else if (Array.isArray(space)) {
      const family = space[0];
      if (typeof family === "object" && family !== null && !Array.isArray(family) && family.type === "name") {
        if (family.name === "I" || family.name === "Indexed") components = 1;
      }
    }
    const bpc = dict.get("BPC") ?? dict.get("BitsPerComponent");
    if (typeof bpc === "number") bits = bpc;
  }
  if (components === undefined || bits === undefined) return undefined;
  return Math.ceil((width * components * bits) / 8) * height;
}

function hexValue(c: number): number {
  if (c >= 0x30 && c <= 0x39) return c - 0x30;
  if (c >= 0x41 && c <= 0x46) return c - 0x37;
  if (c >= 0x61 && c <= 0x66) return c - 0x57;
  return -1;
}

/** Reads a number as viewers do: sign, digits, one decimal point; anything after that is ignored. */
function parseNumber(text: string): number {
  let i = 0;
  let sign = 1;
  while (text[i] === "+" || text[i] === "-") {
    if (text[i] === "-") sign = -sign;
    i++;
  }
  let value = 0;
  let scale = 0;
  for (; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x2e) {
      if (scale !== 0) break;
      scale = 1;
    } else if (c >= 0x30 && c <= 0x39) {
      value = value * 10 + (c - 0x30);
      if (scale !== 0) scale *= 10;
    } else {
      break;
    }
  }
  return (sign * value) / (scale || 1);
}

function latin1(data: Uint8Array, start: number, end: number): string {
  let s = "";
  for (let i = start; i < end; i++) s += String.fromCharCode(data[i]!);
  return s;
}
