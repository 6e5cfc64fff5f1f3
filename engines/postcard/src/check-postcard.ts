import { ParseSpeeds, PDFDocument } from "pdf-lib";
import { type Bounds, fromRect, overlaps, toRect } from "./bounds.ts";
import { PostcardError } from "./errors.ts";
import { findInk, type InkKind, type InkMark } from "./ink-walker.ts";
import { type PageCanvas, pageCanvas } from "./page-canvas.ts";
import { PdfReader } from "./pdf-objects.ts";
import {
  isPostcardSize,
  POSTCARD_SIZES,
  POSTCARD_TEMPLATES,
  type PostcardSize,
  type Rect,
} from "./templates.ts";

/**
 * Stable codes of the problems a postcard check reports.
 * - `pdf_unreadable`: the bytes are not a PDF that can be read (or it has no page tree).
 * - `pdf_encrypted`: the PDF is encrypted or password-protected.
 * - `postcard_page_count`: the PDF does not have exactly 2 pages.
 * - `postcard_canvas_mismatch`: a page's canvas is not the size's bleed canvas, landscape, within the tolerance.
 * - `postcard_address_zone_not_empty`: page 2 has text, an image or a painted path in the ink-free address zone.
 * - `postcard_content_unreadable`: page 2's content cannot be decoded or followed, so the zone cannot be verified.
 */
export type PostcardProblemCode =
  | "pdf_unreadable"
  | "pdf_encrypted"
  | "postcard_page_count"
  | "postcard_canvas_mismatch"
  | "postcard_address_zone_not_empty"
  | "postcard_content_unreadable";

export interface PostcardProblem {
  code: PostcardProblemCode;
  /** 1-based page number, or null for a problem of the whole file. */
  page: number | null;
  /** For the address zone: where the offending object can have ink, in points, PDF coordinates of the canvas. */
  box?: Rect;
  message: string;
}

export interface PostcardCheck {
  /** True when there is no problem. */
  ok: boolean;
  problems: PostcardProblem[];
  /**
   * Each page's canvas as it prints (CropBox within MediaBox, turned by /Rotate); 0 x 0 for a page without a usable
   * MediaBox; empty for an unreadable file.
   */
  pages: { width_pt: number; height_pt: number }[];
}

export interface CheckPostcardOptions {
  /** How far, in points, a page's width and height may be off the bleed canvas. Default 2. */
  tolerancePt?: number;
}

const DEFAULT_TOLERANCE_PT = 2;

/**
 * Checks a composed postcard PDF against the template of a size: exactly 2 pages; every page's canvas the size's
 * bleed canvas, landscape, within the tolerance; and on page 2, the mailing side, nothing that lays down ink in the
 * address zone (text, images, painted paths, shadings, printable annotations; paths painted in pure white are fine).
 * Page 2's content is analysed operator by operator, not rendered. The zone is checked when page 2 has the right
 * canvas. Never changes the bytes; never throws for a bad PDF (that is a problem in the result), only for a bad
 * argument (`PostcardError`).
 */
export async function checkPostcard(
  pdf: Uint8Array,
  size: PostcardSize,
  options: CheckPostcardOptions = {},
): Promise<PostcardCheck> {
  if (!isPostcardSize(size)) {
    const sizes = POSTCARD_SIZES.join(", ");
    throw new PostcardError("invalid_postcard_size", `The postcard size must be one of ${sizes}.`, {
      field: "size",
    });
  }
  if (!(pdf instanceof Uint8Array)) {
    const message = "The PDF must be given as a Uint8Array.";
    throw new PostcardError("invalid_postcard_input", message, { field: "pdf" });
  }
  const tolerance = options.tolerancePt ?? DEFAULT_TOLERANCE_PT;
  if (typeof tolerance !== "number" || !Number.isFinite(tolerance) || tolerance < 0) {
    const message = "tolerancePt must be a finite number of points, 0 or more.";
    throw new PostcardError("invalid_postcard_input", message, { field: "tolerancePt" });
  }
  const fileProblem = (code: PostcardProblemCode, message: string): PostcardCheck => ({
    ok: false,
    problems: [{ code, page: null, message }],
    pages: [],
  });

  if (pdf.byteLength === 0) return fileProblem("pdf_unreadable", "The PDF is empty.");
  let doc: PDFDocument;
  try {
    doc = await PDFDocument.load(pdf, {
      ignoreEncryption: true,
      updateMetadata: false,
      throwOnInvalidObject: false,
      parseSpeed: ParseSpeeds.Fastest,
    });
  } catch {
    return fileProblem("pdf_unreadable", "The file cannot be read as a PDF.");
  }
  if (doc.isEncrypted) {
    return fileProblem(
      "pdf_encrypted",
      "The PDF is encrypted or password-protected; remove the protection and send it again.",
    );
  }
  const reader = new PdfReader(doc.context);
  let pageDicts: ReturnType<PDFDocument["getPages"]>;
  try {
    pageDicts = doc.getPages();
  } catch {
    return fileProblem("pdf_unreadable", "The pages of the PDF cannot be read.");
  }

  const template = POSTCARD_TEMPLATES[size];
  const problems: PostcardProblem[] = [];
  const canvases = pageDicts.map((page) => pageCanvas(reader, page.node));
  const pages = canvases.map((c) => ({ width_pt: round3(c?.width ?? 0), height_pt: round3(c?.height ?? 0) }));

  if (pageDicts.length !== 2) {
    const count = pageDicts.length;
    problems.push({
      code: "postcard_page_count",
      page: null,
      message: `The PDF has ${count} page${count === 1 ? "" : "s"}; a postcard has exactly 2: page 1 is the artwork side, page 2 the mailing side.`,
    });
  }
  canvases.forEach((canvas, i) => {
    const message = canvasMismatch(canvas, i + 1, size, tolerance);
    if (message !== undefined) problems.push({ code: "postcard_canvas_mismatch", page: i + 1, message });
  });

  const back = pageDicts[1];
  const backCanvas = canvases[1];
  if (
    back !== undefined &&
    backCanvas !== undefined &&
    canvasMismatch(backCanvas, 2, size, tolerance) === undefined
  ) {
    const zone = fromRect(template.addressZone);
    try {
      const mark = findInk(
        {
          reader,
          page: back.node,
          toCanvas: backCanvas.toCanvas,
          canvas: { x0: 0, y0: 0, x1: backCanvas.width, y1: backCanvas.height },
        },
        (m) => overlaps(m.bounds, zone),
      );
      if (mark !== undefined) {
        problems.push({
          code: "postcard_address_zone_not_empty",
          page: 2,
          box: toRect(mark.bounds),
          message: zoneMessage(mark, zone),
        });
      }
    } catch {
      problems.push({
        code: "postcard_content_unreadable",
        page: 2,
        message:
          "The content of page 2 cannot be decoded or is too complex to follow, so the address zone cannot be verified; save the PDF again (for example as PDF/X) and send it again.",
      });
    }
  }
  return { ok: problems.length === 0, problems, pages };
}

/** Why a page's canvas is not the size's bleed canvas, or undefined when it is. */
function canvasMismatch(
  canvas: PageCanvas | undefined,
  page: number,
  size: PostcardSize,
  tolerance: number,
): string | undefined {
  const { bleed, trim } = POSTCARD_TEMPLATES[size];
  const wanted = `a ${size} postcard's canvas is ${pt(bleed.w)} x ${pt(bleed.h)} pt (${inch(bleed.w)} x ${inch(bleed.h)} in, landscape): the trim ${pt(trim.w)} x ${pt(trim.h)} pt plus 0.125 in of bleed on every side`;
  if (canvas === undefined) return `Page ${page} has no valid MediaBox; ${wanted}.`;
  const { width: w, height: h } = canvas;
  const near = (a: number, b: number, x: number, y: number) =>
    Math.abs(a - x) <= tolerance && Math.abs(b - y) <= tolerance;
  if (near(w, h, bleed.w, bleed.h)) return undefined;
  const is = `Page ${page} is ${pt(w)} x ${pt(h)} pt`;
  if (near(w, h, bleed.h, bleed.w)) return `${is}, portrait; ${wanted}. Turn the page (or set /Rotate 90).`;
  if (near(w, h, trim.w, trim.h)) return `${is}: the trim size instead of bleed; ${wanted}.`;
  if (near(w, h, trim.h, trim.w)) return `${is}: portrait, and the trim size instead of bleed; ${wanted}.`;
  for (const other of POSTCARD_SIZES) {
    const o = POSTCARD_TEMPLATES[other].bleed;
    if (other !== size && near(w, h, o.w, o.h)) return `${is}, the canvas of a ${other} postcard; ${wanted}.`;
  }
  return `${is}; ${wanted}.`;
}

const KIND: Record<InkKind, string> = {
  text: "Text",
  image: "An image",
  inline_image: "An inline image",
  filled_path: "A filled path",
  stroked_path: "A stroked path",
  shading: "A shading",
};

function zoneMessage(mark: InkMark, zone: Bounds): string {
  const b = mark.bounds;
  const where = mark.within.length === 0 ? "" : ` (in ${mark.within.join(", in ")})`;
  return (
    `${KIND[mark.kind]}${where} at x ${pt(b.x0)}–${pt(b.x1)}, y ${pt(b.y0)}–${pt(b.y1)} pt on page 2 overlaps the ` +
    `address zone (x ${pt(zone.x0)}–${pt(zone.x1)}, y ${pt(zone.y0)}–${pt(zone.y1)} pt), which must hold no ink: ` +
    "the address, postage and barcode are printed there."
  );
}

/** Points for people: at most one decimal. */
function pt(n: number): string {
  return String(Math.round(n * 10) / 10 + 0);
}

function inch(points: number): string {
  return String(Math.round((points / 72) * 1000) / 1000);
}

function round3(n: number): number {
  return Math.round(n * 1000) / 1000 + 0;
}
