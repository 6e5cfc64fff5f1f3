import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  PDFDict,
  PDFDocument,
  type PDFFont,
  type PDFImage,
  PDFName,
  type PDFPage,
  rgb,
  StandardFonts,
} from "pdf-lib";
import { gradientPng } from "./png.fixture.ts";
import { POSTCARD_TEMPLATES, type PostcardSize } from "./templates.ts";

export interface Side {
  doc: PDFDocument;
  page: PDFPage;
  size: PostcardSize;
  font: PDFFont;
  image: PDFImage;
}

export interface PostcardOptions {
  /** Page count; 2 unless told. Pages beyond 2 repeat the mailing side. */
  pages?: number;
  /** Page size as created (MediaBox); the size's bleed canvas unless told. */
  canvas?: [number, number];
  /** Extra drawing on the mailing side, after its usual message and divider. */
  back?: (side: Side) => void | Promise<void>;
}

/**
 * A well-made postcard of `size`: page 1 a full-bleed photo with a title and shapes; page 2 a handwritten-style
 * message on the left, a divider left of the address zone and a small picture above the zone. Options add to it.
 */
export async function postcardPdf(size: PostcardSize, options: PostcardOptions = {}): Promise<Uint8Array> {
  const { bleed, addressZone: zone } = POSTCARD_TEMPLATES[size];
  const [w, h] = options.canvas ?? [bleed.w, bleed.h];
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  const image = await doc.embedPng(gradientPng(90, 60));

  const front = doc.addPage([w, h]);
  front.drawImage(image, { x: 0, y: 0, width: w, height: h });
  front.drawCircle({ x: w * 0.8, y: h * 0.75, size: 30, color: rgb(1, 0.85, 0.2) });
  front.drawSvgPath("M 0 0 C 60 -40 120 40 180 0 S 300 -40 360 0", {
    x: 20,
    y: h * 0.3,
    borderColor: rgb(1, 1, 1),
    borderWidth: 3,
  });
  front.drawText("Greetings from Lake Tahoe", { x: 24, y: h - 60, size: 28, font, color: rgb(1, 1, 1) });

  const pages = options.pages ?? 2;
  for (let i = 1; i < pages; i++) {
    const page = doc.addPage([w, h]);
    const lines = [
      "Dear Sam,",
      "the lake is as blue as",
      "the brochure promised.",
      "See you in June!",
      "- Alex",
    ];
    lines.forEach((line, n) => {
      page.drawText(line, { x: 24, y: h - 50 - n * 16, size: 11, font });
    });
    page.drawLine({
      start: { x: zone.x - 10, y: 24 },
      end: { x: zone.x - 10, y: h - 24 },
      thickness: 0.75,
      color: rgb(0.5, 0.5, 0.5),
    });
    page.drawImage(image, {
      x: zone.x + zone.width - 80,
      y: zone.y + zone.height + 20,
      width: 60,
      height: 40,
    });
    if (i === 1 && options.back) await options.back({ doc, page, size, font, image });
  }
  return doc.save();
}

/** pdf-lib's plain-object form of a dictionary: strings become names, arrays arrays, objects dictionaries. */
export type DictLiteral = NonNullable<Parameters<PDFDocument["context"]["stream"]>[1]>;

/** A pdf-lib dictionary made from a plain object. */
export function pdfDict(doc: PDFDocument, entries: Record<string, unknown>): PDFDict {
  return doc.context.obj(entries as DictLiteral);
}

/** Appends a raw content stream to a page. */
export function addContent(side: Pick<Side, "doc" | "page">, content: string): void {
  side.page.node.addContentStream(side.doc.context.register(side.doc.context.flateStream(content)));
}

/** Puts an XObject (a form made from `content` with the given dictionary entries) in the page's resources. */
export function addForm(
  side: Pick<Side, "doc" | "page">,
  name: string,
  content: string,
  dict: Record<string, unknown> = {},
): void {
  const form = side.doc.context.stream(content, {
    Type: "XObject",
    Subtype: "Form",
    BBox: [0, 0, 1000, 1000],
    ...dict,
  } as DictLiteral);
  side.page.node.setXObject(PDFName.of(name), side.doc.context.register(form));
}

/** Puts a resource of any category (`Shading`, `ColorSpace`, `ExtGState`, `Font`) in the page's resources. */
export function addResource(
  side: Pick<Side, "doc" | "page">,
  category: string,
  name: string,
  value: unknown,
): void {
  const resources = side.page.node.normalizedEntries().Resources;
  let group = resources.lookupMaybe(PDFName.of(category), PDFDict);
  if (group === undefined) {
    group = side.doc.context.obj({}) as PDFDict;
    resources.set(PDFName.of(category), group);
  }
  group.set(PDFName.of(name), side.doc.context.obj(value as DictLiteral));
}

let scratchDir: string | undefined;
let counter = 0;

/** A temporary folder for files handed to qpdf and pdftoppm, made on first use. */
function scratch(): string {
  scratchDir ??= mkdtempSync(join(tmpdir(), "mailpiece-postcard-"));
  return scratchDir;
}

export function removeScratch(): void {
  if (scratchDir !== undefined) rmSync(scratchDir, { recursive: true, force: true });
  scratchDir = undefined;
}

/** The same PDF encrypted by qpdf (AES-256, empty user password: opens without a password, still encrypted). */
export function encrypt(bytes: Uint8Array): Uint8Array {
  const plain = join(scratch(), `plain-${++counter}.pdf`);
  const locked = join(scratch(), `locked-${counter}.pdf`);
  writeFileSync(plain, bytes);
  execFileSync("qpdf", ["--encrypt", "", "owner-secret", "256", "--", plain, locked], { stdio: "ignore" });
  return new Uint8Array(readFileSync(locked));
}

export interface GrayImage {
  width: number;
  height: number;
  /** One byte per pixel, rows from the top. */
  pixels: Uint8Array;
}

/** Page `page` rendered by poppler's pdftoppm at 72 dpi (one pixel per point), in gray. */
export function render(bytes: Uint8Array, page: number): GrayImage {
  const file = join(scratch(), `render-${++counter}.pdf`);
  writeFileSync(file, bytes);
  const out = execFileSync(
    "pdftoppm",
    ["-gray", "-cropbox", "-r", "72", "-f", String(page), "-l", String(page), file],
    {
      maxBuffer: 64 * 1024 * 1024,
      stdio: ["ignore", "pipe", "ignore"],
    },
  );
  // PGM: "P5\n<width> <height>\n<max>\n" then the pixels.
  let fields = 0;
  let at = 0;
  const numbers: number[] = [];
  while (fields < 4) {
    while (/\s/.test(String.fromCharCode(out[at]!))) at++;
    let token = "";
    while (!/\s/.test(String.fromCharCode(out[at]!))) token += String.fromCharCode(out[at++]!);
    if (fields > 0) numbers.push(Number(token));
    fields++;
  }
  at++;
  const [width, height] = numbers as [number, number];
  return { width, height, pixels: new Uint8Array(out.subarray(at, at + width * height)) };
}

/** True when any pixel of the rendered page inside `rect` (points, PDF coordinates) is darker than white. */
export function inkInside(
  image: GrayImage,
  rect: { x: number; y: number; width: number; height: number },
): boolean {
  const left = Math.ceil(rect.x);
  const right = Math.floor(rect.x + rect.width);
  const top = Math.ceil(image.height - (rect.y + rect.height));
  const bottom = Math.floor(image.height - rect.y);
  for (let row = top; row < bottom; row++) {
    for (let col = left; col < right; col++) {
      if (image.pixels[row * image.width + col]! < 255) return true;
    }
  }
  return false;
}

/** The box (points, PDF coordinates) of the non-white pixels inside `rect`, or undefined when all are white. */
export function inkBounds(
  image: GrayImage,
  rect: { x: number; y: number; width: number; height: number },
): { x0: number; y0: number; x1: number; y1: number } | undefined {
  const left = Math.ceil(rect.x);
  const right = Math.floor(rect.x + rect.width);
  const top = Math.ceil(image.height - (rect.y + rect.height));
  const bottom = Math.floor(image.height - rect.y);
  let found: { x0: number; y0: number; x1: number; y1: number } | undefined;
  for (let row = top; row < bottom; row++) {
    for (let col = left; col < right; col++) {
      if (image.pixels[row * image.width + col]! === 255) continue;
      const y0 = image.height - row - 1;
      found = found
        ? {
            x0: Math.min(found.x0, col),
            y0: Math.min(found.y0, y0),
            x1: Math.max(found.x1, col + 1),
            y1: Math.max(found.y1, y0 + 1),
          }
        : { x0: col, y0, x1: col + 1, y1: y0 + 1 };
    }
  }
  return found;
}
