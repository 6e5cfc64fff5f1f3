import { type PDFDict, PDFStream } from "pdf-lib";
import {
  type Bounds,
  bezierBounds,
  EMPTY,
  grow,
  intersect,
  isEmpty,
  transformBounds,
  union,
} from "./bounds.ts";
import { type Operand, type Operation, readOperations } from "./content-tokenizer.ts";
import { PostcardError } from "./errors.ts";
import { FALLBACK_FONT, type FontMetrics, fontMetrics } from "./font-metrics.ts";
import { applyX, applyY, IDENTITY, type Matrix, maxScale, multiply, translate } from "./matrix.ts";
import { BLACK, isWhite, type PaintColor, selectColorSpace } from "./paint-color.ts";
import { numberOf, type PdfReader, streamData } from "./pdf-objects.ts";

/** What left a mark: text, an image XObject, an inline image, a filled or stroked path, or a shading (`sh`). */
export type InkKind = "text" | "image" | "inline_image" | "filled_path" | "stroked_path" | "shading";

export interface InkMark {
  kind: InkKind;
  /** Where the mark can have ink, in canvas space, already cut to the clipping path. */
  bounds: Bounds;
  /** Where the mark was drawn from, outermost first: `form XObject /Fm0`, `annotation /Widget`. Empty on the page. */
  within: string[];
}

export interface InkSource {
  reader: PdfReader;
  /** The page dictionary. */
  page: PDFDict;
  /** From the page's default user space to canvas space. */
  toCanvas: Matrix;
  /** The visible canvas in canvas space; nothing outside it prints. */
  canvas: Bounds;
}

/** Form XObjects nest at most this deep (a form that draws itself is skipped, not followed). */
const MAX_FORM_DEPTH = 24;
/** At most this many operators are run per page, counting those of a form each time it is drawn. */
const MAX_OPERATIONS = 1_000_000;
/** At most this many form XObjects are drawn per page. */
const MAX_FORM_DRAWS = 10_000;

const NEWLINE = Uint8Array.of(10);

/** Annotation flags (ISO 32000-1 12.5.3). */
const HIDDEN = 2;
const PRINT = 4;

interface GraphicsState {
  ctm: Matrix;
  clip: Bounds;
  fill: PaintColor;
  stroke: PaintColor;
  lineWidth: number;
  charSpacing: number;
  wordSpacing: number;
  horizontalScale: number;
  leading: number;
  font: FontMetrics;
  fontSize: number;
  renderMode: number;
  rise: number;
}

/**
 * Follows what a page paints, in painting order: its content streams, the form XObjects they draw (under their
 * /Matrix, cut to their /BBox), then the appearances of its printable annotations. Tracks the graphics state (q/Q,
 * cm, clipping paths as boxes, colours, line width, the text state) and reports each mark that lays down ink with
 * the box it can cover. Paths filled or stroked in pure white lay down no ink, nor do `n`, clipping and invisible
 * text (render modes 3 and 7). Returns the first mark for which `stop` is true.
 *
 * Boxes are conservative: a text box spans the font's ascent and descent over the advance of its glyphs; a curve's
 * box is tight; a stroke's box grows by half the line width; clipping paths are reduced to their boxes.
 */
export function findInk(source: InkSource, stop: (mark: InkMark) => boolean): InkMark | undefined {
  return new InkWalker(source, stop).run();
}

class InkWalker {
  private readonly reader: PdfReader;
  private readonly fonts = new Map<PDFDict, FontMetrics>();
  private readonly parsed = new Map<PDFStream, Operation[]>();
  private readonly forms: PDFStream[] = [];
  private operations = 0;
  private formDraws = 0;
  private found: InkMark | undefined;

  constructor(
    private readonly source: InkSource,
    private readonly stop: (mark: InkMark) => boolean,
  ) {
    this.reader = source.reader;
  }

  run(): InkMark | undefined {
    const { reader, page, toCanvas, canvas } = this.source;
    const resources = reader.dict(reader.get(reader.inherited(page, "Resources"), "Resources"));
    const contents = reader.get(page, "Contents");
    const streams = contents instanceof PDFStream ? [contents] : (reader.array(page, "Contents") ?? []);
    // Content split over several streams reads as one: they are joined with white space between them.
    const parts: Uint8Array[] = [];
    for (const stream of streams) {
      if (stream instanceof PDFStream) parts.push(streamData(stream), NEWLINE);
    }
    this.runOperations(readOperations(concatenate(parts)), resources, initialState(toCanvas, canvas), []);
    if (this.found === undefined) this.runAnnotations();
    return this.found;
  }

  private runAnnotations(): void {
    const { reader, page, toCanvas, canvas } = this.source;
    for (const item of reader.array(page, "Annots") ?? []) {
      const annot = reader.dict(item);
      const flags = reader.number(annot, "F") ?? 0;
      if ((flags & PRINT) === 0 || (flags & HIDDEN) !== 0) continue;
      const appearance = reader.get(reader.dict(reader.get(annot, "AP")), "N");
      let stream: PDFStream | undefined;
      if (appearance instanceof PDFStream) stream = appearance;
      else {
        const state = reader.name(annot, "AS");
        const chosen = state === undefined ? undefined : reader.get(reader.dict(appearance), state);
        if (chosen instanceof PDFStream) stream = chosen;
      }
      const rect = reader.numbers(annot, "Rect", 4);
      if (stream === undefined || rect === undefined) continue;
      const matrix = (reader.numbers(stream.dict, "Matrix", 6) as Matrix | undefined) ?? IDENTITY;
      const bbox = reader.numbers(stream.dict, "BBox", 4);
      if (bbox === undefined) continue;
      // ISO 32000-1 12.5.5: the form's box, transformed by its matrix, is fitted onto the annotation rectangle.
      const placed = transformBounds(matrix, bbox[0]!, bbox[1]!, bbox[2]!, bbox[3]!);
      const target = {
        x0: Math.min(rect[0]!, rect[2]!),
        y0: Math.min(rect[1]!, rect[3]!),
        x1: Math.max(rect[0]!, rect[2]!),
        y1: Math.max(rect[1]!, rect[3]!),
      };
      const pw = placed.x1 - placed.x0;
      const ph = placed.y1 - placed.y0;
      if (!(pw > 0 && ph > 0)) continue;
      const sx = (target.x1 - target.x0) / pw;
      const sy = (target.y1 - target.y0) / ph;
      const fit: Matrix = [sx, 0, 0, sy, target.x0 - placed.x0 * sx, target.y0 - placed.y0 * sy];
      const ctm = multiply(multiply(matrix, fit), toCanvas);
      const clip = intersect(canvas, transformBounds(ctm, bbox[0]!, bbox[1]!, bbox[2]!, bbox[3]!));
      const resources = reader.dict(reader.get(stream.dict, "Resources"));
      const label = `annotation /${reader.name(annot, "Subtype") ?? "Annot"}`;
      this.runOperations(this.operationsOf(stream), resources, initialState(ctm, clip), [label]);
      if (this.found !== undefined) return;
    }
  }

  private operationsOf(stream: PDFStream): Operation[] {
    let ops = this.parsed.get(stream);
    if (ops === undefined) {
      ops = [...readOperations(streamData(stream))];
      this.parsed.set(stream, ops);
    }
    return ops;
  }

  private emit(kind: InkKind, box: Bounds, clip: Bounds, within: string[]): void {
    if (this.found !== undefined || isEmpty(box)) return;
    const bounds = intersect(box, clip);
    if (isEmpty(bounds)) return;
    const mark = { kind, bounds, within };
    if (this.stop(mark)) this.found = mark;
  }

  private runOperations(
    operations: Iterable<Operation>,
    resources: PDFDict | undefined,
    initial: GraphicsState,
    within: string[],
  ): void {
    const reader = this.reader;
    const stack: GraphicsState[] = [];
    let gs = initial;
    // Path under construction, in canvas space: its box (empty while x0 > x1), current and start point.
    let x0 = Number.POSITIVE_INFINITY;
    let y0 = Number.POSITIVE_INFINITY;
    let x1 = Number.NEGATIVE_INFINITY;
    let y1 = Number.NEGATIVE_INFINITY;
    let cx = 0;
    let cy = 0;
    let sx = 0;
    let sy = 0;
    let clipPending = false;
    // Text object.
    let tm: Matrix = IDENTITY;
    let tlm: Matrix = IDENTITY;
    let textClip: Bounds | null = null;
    // Operands of the operator being run; `n(i)` reads one as a number (0 when it is not one).
    let operands: Operand[] = [];
    const n = (i: number): number => {
      const v = operands[i];
      return typeof v === "number" ? v : 0;
    };

    const extend = (px0: number, py0: number, px1: number, py1: number) => {
      if (px0 < x0) x0 = px0;
      if (py0 < y0) y0 = py0;
      if (px1 > x1) x1 = px1;
      if (py1 > y1) y1 = py1;
    };
    const addPoint = (x: number, y: number) => {
      cx = applyX(gs.ctm, x, y);
      cy = applyY(gs.ctm, x, y);
      extend(cx, cy, cx, cy);
    };
    /** A cubic curve from the current point, its three points already in canvas space. */
    const addCurve = (p1x: number, p1y: number, p2x: number, p2y: number, p3x: number, p3y: number) => {
      const curve = bezierBounds(cx, cy, p1x, p1y, p2x, p2y, p3x, p3y);
      extend(curve.x0, curve.y0, curve.x1, curve.y1);
      cx = p3x;
      cy = p3y;
    };
    const at = (i: number): [number, number] => {
      const x = n(i);
      const y = n(i + 1);
      return [applyX(gs.ctm, x, y), applyY(gs.ctm, x, y)];
    };
    const paint = (fill: boolean, stroke: boolean) => {
      if (x0 <= x1) {
        const path = { x0, y0, x1, y1 };
        if (fill && !isWhite(gs.fill)) this.emit("filled_path", path, gs.clip, within);
        if (stroke && !isWhite(gs.stroke)) {
          const half = (Math.max(gs.lineWidth, 0) / 2) * maxScale(gs.ctm);
          this.emit("stroked_path", grow(path, half), gs.clip, within);
        }
        if (clipPending) gs = { ...gs, clip: intersect(gs.clip, path) };
      }
      clipPending = false;
      x0 = y0 = Number.POSITIVE_INFINITY;
      x1 = y1 = Number.NEGATIVE_INFINITY;
    };
    const nextLine = (tx: number, ty: number) => {
      tlm = multiply(translate(tx, ty), tlm);
      tm = tlm;
    };
    const show = (items: Operand[]) => {
      let box = EMPTY;
      for (const item of items) {
        if (typeof item === "number") {
          const shift = (-item / 1000) * gs.fontSize;
          tm = multiply(
            gs.font.vertical ? translate(0, shift) : translate(shift * gs.horizontalScale, 0),
            tm,
          );
        } else if (isString(item)) {
          box = union(
            box,
            this.showString(item.bytes, gs, tm, (moved) => (tm = moved)),
          );
        }
      }
      if (isEmpty(box)) return;
      const mode = gs.renderMode;
      if (mode >= 4) textClip = union(textClip ?? EMPTY, box);
      if (mode !== 3 && mode !== 7) this.emit("text", box, gs.clip, within);
    };

    for (const operation of operations) {
      if (this.found !== undefined) return;
      if (++this.operations > MAX_OPERATIONS) {
        throw new PostcardError("content_too_complex", `more than ${MAX_OPERATIONS} operators`);
      }
      const { operator, image } = operation;
      operands = operation.operands;
      switch (operator) {
        case "q":
          stack.push(gs);
          break;
        case "Q":
          gs = stack.pop() ?? gs;
          break;
        case "cm":
          gs = { ...gs, ctm: multiply([n(0), n(1), n(2), n(3), n(4), n(5)], gs.ctm) };
          break;
        case "w":
          gs = { ...gs, lineWidth: n(0) };
          break;
        case "gs":
          gs = this.applyExtGState(gs, resources, nameOperand(operands[0]));
          break;
        // Colour.
        case "g":
          gs = { ...gs, fill: { family: "gray", values: [n(0)] } };
          break;
        case "G":
          gs = { ...gs, stroke: { family: "gray", values: [n(0)] } };
          break;
        case "rg":
          gs = { ...gs, fill: { family: "rgb", values: [n(0), n(1), n(2)] } };
          break;
        case "RG":
          gs = { ...gs, stroke: { family: "rgb", values: [n(0), n(1), n(2)] } };
          break;
        case "k":
          gs = { ...gs, fill: { family: "cmyk", values: [n(0), n(1), n(2), n(3)] } };
          break;
        case "K":
          gs = { ...gs, stroke: { family: "cmyk", values: [n(0), n(1), n(2), n(3)] } };
          break;
        case "cs":
          gs = { ...gs, fill: selectColorSpace(reader, resources, nameOperand(operands[0]) ?? "") };
          break;
        case "CS":
          gs = { ...gs, stroke: selectColorSpace(reader, resources, nameOperand(operands[0]) ?? "") };
          break;
        case "sc":
        case "scn":
          gs = { ...gs, fill: setComponents(gs.fill, operands) };
          break;
        case "SC":
        case "SCN":
          gs = { ...gs, stroke: setComponents(gs.stroke, operands) };
          break;
        // Path construction.
        case "m":
          addPoint(n(0), n(1));
          sx = cx;
          sy = cy;
          break;
        case "l":
          addPoint(n(0), n(1));
          break;
        case "c":
          addCurve(...at(0), ...at(2), ...at(4));
          break;
        case "v":
          addCurve(cx, cy, ...at(0), ...at(2));
          break;
        case "y":
          addCurve(...at(0), ...at(2), ...at(2));
          break;
        case "h":
          cx = sx;
          cy = sy;
          break;
        case "re": {
          const [x, y, w, h] = [n(0), n(1), n(2), n(3)];
          addPoint(x, y);
          addPoint(x + w, y);
          addPoint(x + w, y + h);
          addPoint(x, y + h);
          addPoint(x, y);
          sx = cx;
          sy = cy;
          break;
        }
        // Path painting.
        case "S":
        case "s":
          paint(false, true);
          break;
        case "f":
        case "F":
        case "f*":
          paint(true, false);
          break;
        case "B":
        case "B*":
        case "b":
        case "b*":
          paint(true, true);
          break;
        case "n":
          paint(false, false);
          break;
        case "W":
        case "W*":
          clipPending = true;
          break;
        // Text.
        case "BT":
          tm = IDENTITY;
          tlm = IDENTITY;
          textClip = null;
          break;
        case "ET":
          if (textClip !== null) gs = { ...gs, clip: intersect(gs.clip, textClip) };
          textClip = null;
          break;
        case "Tc":
          gs = { ...gs, charSpacing: n(0) };
          break;
        case "Tw":
          gs = { ...gs, wordSpacing: n(0) };
          break;
        case "Tz":
          gs = { ...gs, horizontalScale: n(0) / 100 };
          break;
        case "TL":
          gs = { ...gs, leading: n(0) };
          break;
        case "Ts":
          gs = { ...gs, rise: n(0) };
          break;
        case "Tr":
          gs = { ...gs, renderMode: n(0) };
          break;
        case "Tf":
          gs = { ...gs, font: this.font(resources, nameOperand(operands[0])), fontSize: n(1) };
          break;
        case "Td":
          nextLine(n(0), n(1));
          break;
        case "TD":
          gs = { ...gs, leading: -n(1) };
          nextLine(n(0), n(1));
          break;
        case "Tm":
          tlm = [n(0), n(1), n(2), n(3), n(4), n(5)];
          tm = tlm;
          break;
        case "T*":
          nextLine(0, -gs.leading);
          break;
        case "Tj":
          show(operands.slice(0, 1));
          break;
        case "TJ": {
          const items = operands[0];
          if (Array.isArray(items)) show(items);
          break;
        }
        case "'":
          nextLine(0, -gs.leading);
          show(operands.slice(0, 1));
          break;
        case '"':
          gs = { ...gs, wordSpacing: n(0), charSpacing: n(1) };
          nextLine(0, -gs.leading);
          show(operands.slice(2, 3));
          break;
        // Images, forms, shadings.
        case "BI":
          if (image !== undefined)
            this.emit("inline_image", transformBounds(gs.ctm, 0, 0, 1, 1), gs.clip, within);
          break;
        case "Do":
          this.drawXObject(gs, resources, nameOperand(operands[0]), within);
          break;
        case "sh":
          this.shade(gs, resources, nameOperand(operands[0]), within);
          break;
      }
    }
  }

  /** Lays out one shown string from `tm`; returns its box in canvas space and hands on the advanced text matrix. */
  private showString(bytes: Uint8Array, gs: GraphicsState, tm: Matrix, moved: (tm: Matrix) => void): Bounds {
    const { font, fontSize: size, charSpacing, wordSpacing, horizontalScale: scale, rise } = gs;
    const trm = multiply(tm, gs.ctm);
    let count = 0;
    if (font.vertical) {
      let y = 0;
      let half = 0;
      let low = 0;
      font.forEachGlyph(bytes, (width, wordSpace) => {
        count++;
        half = Math.max(half, Math.abs((width * size) / 2));
        y += font.verticalAdvance * size + charSpacing + (wordSpace ? wordSpacing : 0);
        low = Math.min(low, y);
      });
      moved(multiply(translate(0, y), tm));
      return count === 0 ? EMPTY : transformBounds(trm, -half, low, half, 0);
    }
    let x = 0;
    let minX = Number.POSITIVE_INFINITY;
    let maxX = Number.NEGATIVE_INFINITY;
    font.forEachGlyph(bytes, (width, wordSpace) => {
      count++;
      const end = x + width * size * scale;
      minX = Math.min(minX, x, end);
      maxX = Math.max(maxX, x, end);
      x += (width * size + charSpacing + (wordSpace ? wordSpacing : 0)) * scale;
    });
    moved(multiply(translate(x, 0), tm));
    if (count === 0) return EMPTY;
    const a = rise + font.ascent * size;
    const d = rise + font.descent * size;
    return transformBounds(trm, minX, Math.min(a, d), maxX, Math.max(a, d));
  }

  private font(resources: PDFDict | undefined, name: string | undefined): FontMetrics {
    if (name === undefined) return FALLBACK_FONT;
    const dict = this.reader.dict(this.reader.resource(resources, "Font", name));
    return dict === undefined ? FALLBACK_FONT : this.fontOf(dict);
  }

  private fontOf(dict: PDFDict): FontMetrics {
    let metrics = this.fonts.get(dict);
    if (metrics === undefined) {
      metrics = fontMetrics(this.reader, dict);
      this.fonts.set(dict, metrics);
    }
    return metrics;
  }

  private applyExtGState(
    gs: GraphicsState,
    resources: PDFDict | undefined,
    name: string | undefined,
  ): GraphicsState {
    if (name === undefined) return gs;
    const reader = this.reader;
    const ext = reader.dict(reader.resource(resources, "ExtGState", name));
    if (ext === undefined) return gs;
    let next = gs;
    const lineWidth = reader.number(ext, "LW");
    if (lineWidth !== undefined) next = { ...next, lineWidth };
    const font = reader.array(ext, "Font");
    const fontDict = reader.dict(font?.[0]);
    if (font !== undefined && fontDict !== undefined) {
      next = { ...next, font: this.fontOf(fontDict), fontSize: numberOf(font[1]) ?? 0 };
    }
    return next;
  }

  private drawXObject(
    gs: GraphicsState,
    resources: PDFDict | undefined,
    name: string | undefined,
    within: string[],
  ) {
    if (name === undefined) return;
    const reader = this.reader;
    const xobject = reader.resource(resources, "XObject", name);
    if (!(xobject instanceof PDFStream)) return;
    const subtype = reader.name(xobject.dict, "Subtype");
    if (subtype === "Image") {
      this.emit("image", transformBounds(gs.ctm, 0, 0, 1, 1), gs.clip, within);
      return;
    }
    if (subtype !== "Form") return;
    if (this.forms.includes(xobject)) return;
    if (this.forms.length >= MAX_FORM_DEPTH) {
      throw new PostcardError("content_too_complex", `form XObjects nest deeper than ${MAX_FORM_DEPTH}`);
    }
    if (++this.formDraws > MAX_FORM_DRAWS) {
      throw new PostcardError("content_too_complex", `more than ${MAX_FORM_DRAWS} form XObjects drawn`);
    }
    const matrix = (reader.numbers(xobject.dict, "Matrix", 6) as Matrix | undefined) ?? IDENTITY;
    const ctm = multiply(matrix, gs.ctm);
    const bbox = reader.numbers(xobject.dict, "BBox", 4);
    const clip =
      bbox === undefined
        ? gs.clip
        : intersect(gs.clip, transformBounds(ctm, bbox[0]!, bbox[1]!, bbox[2]!, bbox[3]!));
    const formResources = reader.dict(reader.get(xobject.dict, "Resources")) ?? resources;
    this.forms.push(xobject);
    try {
      this.runOperations(this.operationsOf(xobject), formResources, { ...gs, ctm, clip }, [
        ...within,
        `form XObject /${name}`,
      ]);
    } finally {
      this.forms.pop();
    }
  }

  private shade(
    gs: GraphicsState,
    resources: PDFDict | undefined,
    name: string | undefined,
    within: string[],
  ) {
    if (name === undefined) return;
    const reader = this.reader;
    const shading = reader.dict(reader.resource(resources, "Shading", name));
    if (shading === undefined) return;
    const bbox = reader.numbers(shading, "BBox", 4);
    const area =
      bbox === undefined ? gs.clip : transformBounds(gs.ctm, bbox[0]!, bbox[1]!, bbox[2]!, bbox[3]!);
    this.emit("shading", area, gs.clip, within);
  }
}

function concatenate(parts: Uint8Array[]): Uint8Array {
  if (parts.length === 1) return parts[0]!;
  const out = new Uint8Array(parts.reduce((sum, p) => sum + p.length, 0));
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}

function initialState(ctm: Matrix, clip: Bounds): GraphicsState {
  return {
    ctm,
    clip,
    fill: BLACK,
    stroke: BLACK,
    lineWidth: 1,
    charSpacing: 0,
    wordSpacing: 0,
    horizontalScale: 1,
    leading: 0,
    font: FALLBACK_FONT,
    fontSize: 0,
    renderMode: 0,
    rise: 0,
  };
}

/** `sc` / `scn`: new components in the current colour space (a pattern space is never white, whatever they are). */
function setComponents(current: PaintColor, operands: Operand[]): PaintColor {
  return { family: current.family, values: operands.filter((o): o is number => typeof o === "number") };
}

function nameOperand(o: Operand | undefined): string | undefined {
  return typeof o === "object" && o !== null && !Array.isArray(o) && o.type === "name" ? o.name : undefined;
}

function isString(o: Operand): o is { type: "string"; bytes: Uint8Array } {
  return typeof o === "object" && o !== null && !Array.isArray(o) && o.type === "string";
}
