import { fitAddressBlock } from "./address-block.ts";
import type { Block } from "./blocks.ts";
import type { FaceRole, FontFace } from "./fonts.ts";
import type { Line } from "./line-break.ts";
import { breakLines } from "./line-break.ts";
import {
  FIRST_PAGE_BODY_TOP,
  LETTER_PAGE,
  POINTS_PER_INCH,
  RECIPIENT_WINDOW,
  RETURN_WINDOW,
} from "./page-geometry.ts";
import type { FlowBox } from "./paginate.ts";
import { paginate } from "./paginate.ts";

/** Body line distance as a multiple of the font size. */
export const BODY_LEADING = 1.2;
/** The title is set in bold this many points above the body size. */
export const TITLE_SIZE_STEP = 2;
/** A typed signature is set in the handwriting face at this multiple of the body size. */
export const TYPED_SIGNATURE_SCALE = 2;
/** A drawn signature is scaled to fit this box, keeping its proportions. */
export const DRAWN_SIGNATURE_BOX = { width: 2.5 * POINTS_PER_INCH, height: 0.75 * POINTS_PER_INCH } as const;

export interface LayoutInput {
  /** The body, parsed. Trailing blank lines are expected to be removed already. */
  blocks: readonly Block[];
  title?: string;
  signature?: { kind: "typed"; text: string } | { kind: "drawn"; width: number; height: number };
  /** Address lines, already normalized (see `addressLines`). */
  sender?: readonly string[];
  recipient?: readonly string[];
  watermark?: string;
  font_size: number;
  margin_in: number;
}

/** A line of text at an absolute position. `baseline` is in points down from the top edge of the page. */
export interface PlacedText {
  face: FaceRole;
  size: number;
  x: number;
  baseline: number;
  text: string;
  /** Counter-clockwise rotation in degrees about the start of the baseline. */
  rotate?: number;
  /** `ink` prints black; `watermark` prints a light grey. */
  tone: "ink" | "watermark";
}

export interface PlacedImage {
  x: number;
  top: number;
  width: number;
  height: number;
}

export interface PageLayout {
  texts: PlacedText[];
  images: PlacedImage[];
}

export interface LetterLayout {
  pages: PageLayout[];
}

interface Box extends FlowBox {
  texts: Omit<PlacedText, "baseline">[];
  /** Baseline of every text in the box, down from the box top. */
  baselineOffset: number;
  image?: Omit<PlacedImage, "top"> & { offset: number };
}

/**
 * Lays out a letter on US letter pages. Page 1 carries the return and recipient addresses in the envelope windows
 * and starts the body at 3.25 in; later pages start at the top margin. The title comes first, in bold, then a blank
 * line and the body; the signature follows after one blank line and stays on the same page as the last line of the
 * body. The space for the addresses is kept whether or not addresses are given, so the page count does not depend
 * on them. Pure: measurement only, no PDF.
 */
export function layoutLetter(input: LayoutInput, faces: Readonly<Record<FaceRole, FontFace>>): LetterLayout {
  const size = input.font_size;
  const margin = input.margin_in * POINTS_PER_INCH;
  const measure = LETTER_PAGE.width - 2 * margin;
  const bodyLead = size * BODY_LEADING;
  const boxes: Box[] = [];

  const lineBoxes = (lines: Line[], role: "body" | "title"): void => {
    const lineSize = role === "title" ? size + TITLE_SIZE_STEP : size;
    for (const line of lines) {
      let x = margin;
      const texts: Box["texts"] = [];
      for (const segment of line.segments) {
        const face: FaceRole = role === "title" || segment.style === "bold" ? "bold" : "regular";
        texts.push({ face, size: lineSize, x, text: segment.text, tone: "ink" });
        x += segment.width;
      }
      boxes.push(
        textBox(texts, lineSize, lineSize * BODY_LEADING, faces[role === "title" ? "bold" : "regular"], 0),
      );
    }
  };

  const bodyFaces = { regular: faces.regular, bold: faces.bold };
  if (input.title !== undefined && input.title.trim() !== "") {
    lineBoxes(
      breakLines([{ text: input.title.trim(), style: "bold" }], bodyFaces, size + TITLE_SIZE_STEP, measure),
      "title",
    );
    boxes.push(blankBox(bodyLead));
  }
  for (const block of input.blocks) {
    if (block.kind === "blank") boxes.push(blankBox(bodyLead));
    else lineBoxes(breakLines(block.runs, bodyFaces, size, measure), "body");
  }

  const signature = input.signature;
  if (signature?.kind === "typed") {
    const face = faces.signature;
    const signatureSize = size * TYPED_SIGNATURE_SCALE;
    const lead = Math.max(BODY_LEADING, face.ascent + face.descent) * signatureSize;
    const lines = breakLines(
      [{ text: signature.text, style: "regular" }],
      { regular: face, bold: face },
      signatureSize,
      measure,
    );
    lines.forEach((line, index) => {
      let x = margin;
      const texts: Box["texts"] = [];
      for (const segment of line.segments) {
        texts.push({ face: "signature", size: signatureSize, x, text: segment.text, tone: "ink" });
        x += segment.width;
      }
      const box = textBox(texts, signatureSize, lead, face, index === 0 ? bodyLead : 0);
      boxes.push({ ...box, keepWithPrevious: true });
    });
  } else if (signature?.kind === "drawn") {
    const scale = Math.min(
      DRAWN_SIGNATURE_BOX.width / signature.width,
      DRAWN_SIGNATURE_BOX.height / signature.height,
    );
    const width = signature.width * scale;
    const height = signature.height * scale;
    boxes.push({
      height: bodyLead + height,
      keepWithPrevious: true,
      texts: [],
      baselineOffset: 0,
      image: { x: margin, offset: bodyLead, width, height },
    });
  }

  const placed = paginate(boxes, (pageIndex) => ({
    top: pageIndex === 0 ? Math.max(FIRST_PAGE_BODY_TOP, margin) : margin,
    bottom: LETTER_PAGE.height - margin,
  }));

  const pages: PageLayout[] = placed.map((page) => {
    const texts: PlacedText[] = [];
    const images: PlacedImage[] = [];
    for (const { box, top } of page) {
      for (const text of box.texts) texts.push({ ...text, baseline: top + box.baselineOffset });
      if (box.image) {
        const { offset, ...image } = box.image;
        images.push({ ...image, top: top + offset });
      }
    }
    return { texts, images };
  });

  const first = pages[0]!;
  const addresses: PlacedText[] = [];
  if (input.sender !== undefined) {
    for (const line of fitAddressBlock(input.sender, faces.regular, RETURN_WINDOW, "sender")) {
      addresses.push({ face: "regular", tone: "ink", ...line });
    }
  }
  if (input.recipient !== undefined) {
    for (const line of fitAddressBlock(input.recipient, faces.regular, RECIPIENT_WINDOW, "recipient")) {
      addresses.push({ face: "regular", tone: "ink", ...line });
    }
  }
  first.texts.unshift(...addresses);

  const watermark = input.watermark?.trim();
  if (watermark) {
    const mark = watermarkText(watermark, faces.bold);
    for (const page of pages) page.texts.unshift({ ...mark });
  }
  return { pages };
}

function textBox(texts: Box["texts"], size: number, lead: number, face: FontFace, spaceAbove: number): Box {
  const halfLeading = (lead - (face.ascent + face.descent) * size) / 2;
  return {
    height: spaceAbove + lead,
    keepWithPrevious: false,
    texts,
    baselineOffset: spaceAbove + halfLeading + face.ascent * size,
  };
}

function blankBox(height: number): Box {
  return { height, keepWithPrevious: false, texts: [], baselineOffset: 0 };
}

/** The watermark runs diagonally from bottom left to top right, centred on the page, across at most 3/4 of it. */
function watermarkText(text: string, face: FontFace): PlacedText {
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
