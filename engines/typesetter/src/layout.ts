import { windowAddressTexts } from "./address-block.ts";
import type { Block, InlineStyle, Run } from "./blocks.ts";
import { emboldened } from "./blocks.ts";
import type { FaceRole, FontFace } from "./fonts.ts";
import type { Box, PlacedImage, PlacedRule, PlacedText } from "./layout-box.ts";
import { baselineIn, lineTexts, spaceBox } from "./layout-box.ts";
import { breakLines } from "./line-break.ts";
import type { Furniture } from "./page-furniture.ts";
import { furnitureTexts } from "./page-furniture.ts";
import { FIRST_PAGE_BODY_TOP, LETTER_PAGE, POINTS_PER_INCH } from "./page-geometry.ts";
import { paginate } from "./paginate.ts";
import { layoutTable } from "./table-layout.ts";

export type { PlacedImage, PlacedRule, PlacedText } from "./layout-box.ts";

/** Body line distance as a multiple of the font size. */
export const BODY_LEADING = 1.2;
/** The title is set in bold this many points above the body size. */
export const TITLE_SIZE_STEP = 2;
/** Headings are set in bold at these multiples of the body size (rounded to half points), by level. */
export const HEADING_SCALE = { 1: 1.5, 2: 1.25, 3: 1.1 } as const;
/** A typed signature is set in the handwriting face at this multiple of the body size. */
export const TYPED_SIGNATURE_SCALE = 2;
/** A drawn signature is scaled to fit this box, keeping its proportions. */
export const DRAWN_SIGNATURE_BOX = { width: 2.5 * POINTS_PER_INCH, height: 0.75 * POINTS_PER_INCH } as const;
/** List items and quotations are indented by this multiple of the body size (more when a list marker needs it). */
export const INDENT_SCALE = 2;
/** Space between a list marker and the item's text, as a multiple of the body size. */
export const MARKER_GAP_SCALE = 0.5;
/** Bullets of unordered lists, by nesting depth (the last one for anything deeper). */
export const BULLETS = ["\u2022", "\u25e6", "\u25aa"] as const;
/** Nested lists and quotations stop indenting where the text would be narrower than this, in points (2 in). */
export const MIN_NESTED_WIDTH = 2 * POINTS_PER_INCH;
/** Thickness of a horizontal rule, in points. */
export const RULE_THICKNESS = 0.75;

/** Where the addresses print: in the windows of page 1 above the body, or on a page of their own before it. */
export type AddressPlacement = "window" | "separate_page";

export interface LayoutInput {
  /** The body, parsed. Trailing blank lines are expected to be removed already. */
  blocks: readonly Block[];
  /** The letter's date as it prints, on a line of its own above the title and the body. */
  date_line?: string;
  title?: string;
  signature?: { kind: "typed"; text: string } | { kind: "drawn"; width: number; height: number };
  /** Printed in the body face under the signature (only with a signature). */
  signer_name?: string;
  /** When given, a letter of two or more body pages gets page numbers and continuation headers (`furnitureTexts`). */
  furniture?: Furniture;
  /** Address lines, already normalized (see `addressLines`). */
  sender?: readonly string[];
  recipient?: readonly string[];
  watermark?: string;
  font_size: number;
  margin_in: number;
  /** Default "window". */
  address_placement?: AddressPlacement;
}

export interface PageLayout {
  texts: PlacedText[];
  images: PlacedImage[];
  rules: PlacedRule[];
}

export interface LetterLayout {
  pages: PageLayout[];
}

/** The four faces of the body family, by inline style. */
type BodyFaces = Readonly<Record<InlineStyle, FontFace>>;

/**
 * Lays out a letter on US letter pages. With `address_placement` "window" (the default), page 1 carries the return
 * and recipient addresses in the envelope windows and starts the body at 3.25 in; with "separate_page", page 1
 * carries only the addresses and the body starts on page 2 at the top margin. Later pages start at the top margin.
 * The date line comes first, then a blank line; then the title, in bold, a blank line and the body; the signature
 * follows after one blank line, the signer's name right under it, and both stay on the same page as the last line of
 * the body. The space for the addresses is kept whether or not addresses are given, so the page count does not
 * depend on them. With `furniture`, the body pages of a letter of two or more of them carry page numbers and
 * continuation headers in their margins (the address page of "separate_page" is not numbered).
 *
 * Plain-text lines and blank lines stack with no space between them. The blocks of a formatted letter (paragraphs,
 * headings, lists, tables, quotations, rules) are set one body line apart, half a line below a heading; a heading
 * stays on the page of the first line after it. A paragraph (or a plain-text line) that wraps never leaves its first
 * or its last line alone on a page. Pure: measurement only, no PDF.
 */
export function layoutLetter(input: LayoutInput, faces: Readonly<Record<FaceRole, FontFace>>): LetterLayout {
  const size = input.font_size;
  const margin = input.margin_in * POINTS_PER_INCH;
  const measure = LETTER_PAGE.width - 2 * margin;
  const bodyLead = size * BODY_LEADING;
  const separatePage = input.address_placement === "separate_page";
  const frameOf = (pageIndex: number) => ({
    top: pageIndex === 0 && !separatePage ? Math.max(FIRST_PAGE_BODY_TOP, margin) : margin,
    bottom: LETTER_PAGE.height - margin,
  });
  const flow = new Flow(faces, size, frameOf(1).bottom - frameOf(1).top);

  if (input.date_line !== undefined && input.date_line.trim() !== "") {
    flow.lines([{ text: input.date_line.trim(), style: "regular" }], margin, measure, size);
    flow.push(spaceBox(bodyLead));
  }
  if (input.title !== undefined && input.title.trim() !== "") {
    flow.lines([{ text: input.title.trim(), style: "bold" }], margin, measure, size + TITLE_SIZE_STEP);
    flow.push(spaceBox(bodyLead));
  }
  flow.blocks(input.blocks, margin, measure, 0);

  const signature = input.signature;
  if (signature?.kind === "typed") {
    const face = faces.signature;
    const signatureSize = size * TYPED_SIGNATURE_SCALE;
    const lead = Math.max(BODY_LEADING, face.ascent + face.descent) * signatureSize;
    const signatureFaces = { regular: face, bold: face, italic: face, "bold-italic": face };
    const lines = breakLines(
      [{ text: signature.text, style: "regular" }],
      signatureFaces,
      signatureSize,
      measure,
    );
    lines.forEach((line, index) => {
      const spaceAbove = index === 0 ? bodyLead : 0;
      const baseline = spaceAbove + baselineIn(face, signatureSize, lead);
      const texts = lineTexts(line, margin, signatureSize, baseline).map((text) => ({
        ...text,
        face: "signature" as const,
      }));
      flow.push({ height: spaceAbove + lead, keepWithPrevious: true, texts, rules: [] });
    });
  } else if (signature?.kind === "drawn") {
    const scale = Math.min(
      DRAWN_SIGNATURE_BOX.width / signature.width,
      DRAWN_SIGNATURE_BOX.height / signature.height,
    );
    const width = signature.width * scale;
    const height = signature.height * scale;
    flow.push({
      height: bodyLead + height,
      keepWithPrevious: true,
      texts: [],
      rules: [],
      image: { x: margin, top: bodyLead, width, height },
    });
  }
  const signerName = input.signer_name?.trim();
  if (signature && signerName) {
    flow.lines([{ text: signerName, style: "regular" }], margin, measure, size, { keepWithPrevious: true });
  }

  const placed = paginate(flow.boxes, frameOf, { headerOf: (box) => box.header });
  const pages: PageLayout[] = placed.map((page) => {
    const texts: PlacedText[] = [];
    const images: PlacedImage[] = [];
    const rules: PlacedRule[] = [];
    for (const { box, top } of page) {
      for (const text of box.texts) texts.push({ ...text, baseline: top + text.baseline });
      for (const rule of box.rules) rules.push({ ...rule, y1: top + rule.y1, y2: top + rule.y2 });
      if (box.image) images.push({ ...box.image, top: top + box.image.top });
    }
    return { texts, images, rules };
  });
  if (input.furniture) {
    const running = furnitureTexts(pages.length, input.furniture, faces.regular, size, margin);
    pages.forEach((page, index) => {
      page.texts.push(...running[index]!);
    });
  }
  if (separatePage) pages.unshift({ texts: [], images: [], rules: [] });

  pages[0]!.texts.unshift(...windowAddressTexts(input.sender, input.recipient, faces.regular));

  const watermark = input.watermark?.trim();
  if (watermark) {
    const mark = watermarkText(watermark, faces.bold);
    for (const page of pages) page.texts.unshift({ ...mark });
  }
  return { pages };
}

/** Builds the boxes of the body, block by block. */
class Flow {
  readonly boxes: Box[] = [];
  private readonly faces: Readonly<Record<FaceRole, FontFace>>;
  private readonly bodyFaces: BodyFaces;
  private readonly size: number;
  private readonly lead: number;
  /** Height of a full page's frame: no table row piece is taller. */
  private readonly frameHeight: number;
  /** Set after a heading: the next box keeps with it. */
  private keepNext = false;

  constructor(faces: Readonly<Record<FaceRole, FontFace>>, size: number, frameHeight: number) {
    this.faces = faces;
    this.bodyFaces = {
      regular: faces.regular,
      bold: faces.bold,
      italic: faces.italic,
      "bold-italic": faces["bold-italic"],
    };
    this.size = size;
    this.lead = size * BODY_LEADING;
    this.frameHeight = frameHeight;
  }

  push(box: Box): void {
    if (this.keepNext) {
      box.keepWithPrevious = true;
      this.keepNext = false;
    }
    this.boxes.push(box);
  }

  /**
   * Sets runs as wrapped lines at `x`, `width` wide, one box per line (each kept with the box before it if asked).
   * Neither the first nor the last line of a wrapped paragraph stands alone on a page: the second line keeps with the
   * first and the last with the one before it, so a page break leaves at least two lines on each side.
   */
  lines(
    runs: readonly Run[],
    x: number,
    width: number,
    size: number,
    options: { keepWithPrevious?: boolean } = {},
  ): void {
    const lead = size * BODY_LEADING;
    const baseline = baselineIn(this.faces.regular, size, lead);
    const lines = breakLines(runs, this.bodyFaces, size, width);
    lines.forEach((line, index) => {
      const keep =
        options.keepWithPrevious === true || index === 1 || (index > 0 && index === lines.length - 1);
      this.push({
        height: lead,
        keepWithPrevious: keep,
        texts: lineTexts(line, x, size, baseline),
        rules: [],
      });
    });
  }

  /**
   * Sets sibling blocks at `x`, `width` wide. `listDepth` counts the lists around them. Inside a list item the blocks
   * follow each other with no space between them.
   */
  blocks(blocks: readonly Block[], x: number, width: number, listDepth: number, tight = false): void {
    let previous: Block | undefined;
    for (const block of blocks) {
      if (previous !== undefined && !tight) {
        const gap = gapBetween(previous, block, this.lead);
        if (gap > 0) {
          const keep = this.keepNext;
          this.push(spaceBox(gap, { collapsible: true }));
          this.keepNext = keep;
        }
      }
      this.block(block, x, width, listDepth);
      previous = block;
    }
  }

  private block(block: Block, x: number, width: number, listDepth: number): void {
    const size = this.size;
    switch (block.kind) {
      case "blank":
        this.push(spaceBox(this.lead));
        return;
      case "line":
      case "paragraph":
        this.lines(block.runs, x, width, size);
        return;
      case "heading": {
        const headingSize = Math.round(size * HEADING_SCALE[block.level] * 2) / 2;
        const runs = block.runs.map((run) => ({ ...run, style: emboldened(run.style) }));
        const start = this.boxes.length;
        this.lines(runs, x, width, headingSize);
        for (const box of this.boxes.slice(start + 1)) box.keepWithPrevious = true;
        this.keepNext = true;
        return;
      }
      case "quote": {
        const indent = nestedIndent(INDENT_SCALE * size, width);
        this.blocks(block.blocks, x + indent, width - indent, listDepth);
        return;
      }
      case "list":
        this.list(block, x, width, listDepth);
        return;
      case "table": {
        const rows = layoutTable({
          rows: block.rows,
          headerRows: block.headerRows,
          faces: this.bodyFaces,
          size,
          lead: this.lead,
          x,
          width,
          maxRowHeight: this.frameHeight,
        });
        for (const row of rows) this.push(row);
        return;
      }
      case "rule": {
        const middle = this.lead / 2;
        const rule = { x1: x, y1: middle, x2: x + width, y2: middle, thickness: RULE_THICKNESS };
        this.push({ height: this.lead, keepWithPrevious: false, texts: [], rules: [rule] });
        return;
      }
    }
  }

  private list(block: Extract<Block, { kind: "list" }>, x: number, width: number, listDepth: number): void {
    const size = this.size;
    const markers = block.items.map((_, index) =>
      block.ordered ? `${block.start + index}.` : BULLETS[Math.min(listDepth, BULLETS.length - 1)]!,
    );
    const gap = MARKER_GAP_SCALE * size;
    const widest = Math.max(0, ...markers.map((marker) => this.faces.regular.widthOf(marker, size)));
    const indent = nestedIndent(Math.max(INDENT_SCALE * size, widest + gap), width);
    block.items.forEach((item, index) => {
      const marker = markers[index]!;
      const start = this.boxes.length;
      this.blocks(item, x + indent, width - indent, listDepth + 1, true);
      const markerX = x + indent - gap - this.faces.regular.widthOf(marker, size);
      const carrier = this.boxes.slice(start).find((box) => box.texts.length > 0);
      if (carrier) {
        const baseline = Math.min(...carrier.texts.map((text) => text.baseline));
        carrier.texts.unshift({ face: "regular", size, x: markerX, baseline, text: marker, tone: "ink" });
      } else {
        const baseline = baselineIn(this.faces.regular, size, this.lead);
        const texts: PlacedText[] = [
          { face: "regular", size, x: markerX, baseline, text: marker, tone: "ink" },
        ];
        this.push({ height: this.lead, keepWithPrevious: false, texts, rules: [] });
      }
    });
  }
}

/**
 * The indent of a nested block, less when the text would be left narrower than `MIN_NESTED_WIDTH`: deeper nesting
 * than the page allows stops indenting instead of running off the page.
 */
function nestedIndent(wanted: number, width: number): number {
  return Math.max(0, Math.min(wanted, width - MIN_NESTED_WIDTH));
}

/** Space between two sibling blocks: none around plain-text lines, half a line below a heading, else one line. */
function gapBetween(previous: Block, next: Block, lead: number): number {
  const plain = (block: Block) => block.kind === "line" || block.kind === "blank";
  if (plain(previous) || plain(next)) return 0;
  return previous.kind === "heading" ? lead / 2 : lead;
}

/** The watermark runs diagonally from bottom left to top right, centred on the page, across at most 3/4 of it. */
export function watermarkText(text: string, face: FontFace): PlacedText {
  const { width: pageWidth, height: pageHeight } = LETTER_PAGE;
  const angle = Math.atan2(pageHeight, pageWidth);
  const diagonal = Math.hypot(pageWidth, pageHeight);
  const size = Math.min(96, (0.75 * diagonal) / face.widthOf(text, 1));
  const width = face.widthOf(text, size);
  const capHeight = face.capHeight * size;
  const centreX = pageWidth / 2;
  const centreY = pageHeight / 2;
  const x = centreX - (width / 2) * Math.cos(angle) + (capHeight / 2) * Math.sin(angle);
  const y = centreY - (width / 2) * Math.sin(angle) - (capHeight / 2) * Math.cos(angle);
  return {
    face: "bold",
    size,
    x,
    baseline: pageHeight - y,
    text,
    rotate: (angle * 180) / Math.PI,
    tone: "watermark",
  };
}
