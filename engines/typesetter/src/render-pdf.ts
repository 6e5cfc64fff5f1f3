import { deflateSync } from "node:zlib";
import type { PDFImage } from "pdf-lib";
import { PDFDocument, PDFName } from "pdf-lib";
import type { FaceRole, FontFace } from "./fonts.ts";
import type { LetterLayout } from "./layout.ts";
import { LETTER_PAGE } from "./page-geometry.ts";
import { PdfFont } from "./pdf-font.ts";
import type { SignatureImage } from "./signature-image.ts";

export const PRODUCER = "Mailpiece typesetter";
/** Light enough to read through, dark enough to show on every printer. */
const WATERMARK_GREY = 0.82;

export interface PdfOptions {
  title?: string;
  image?: SignatureImage;
}

/**
 * Writes a laid-out letter as PDF. pdf-lib holds the document; the page content streams and the fonts are written
 * here: only the faces that carry text are embedded, each as a subset named with a tag derived from its content.
 * The document has no creation or modification date and a fixed producer, so the same layout always gives the same
 * bytes.
 */
export async function renderPdf(
  layout: LetterLayout,
  faces: Readonly<Record<FaceRole, FontFace>>,
  options: PdfOptions = {},
): Promise<Uint8Array> {
  const doc = await PDFDocument.create({ updateMetadata: false });
  const context = doc.context;

  let image: PDFImage | undefined;
  if (options.image && layout.pages.some((page) => page.images.length > 0)) {
    image =
      options.image.format === "png"
        ? await doc.embedPng(options.image.bytes)
        : await doc.embedJpg(options.image.bytes);
  }

  const fonts = new Map<FontFace, { font: PdfFont; name: string }>();
  const fontOf = (face: FontFace): { font: PdfFont; name: string } => {
    let entry = fonts.get(face);
    if (entry === undefined) {
      entry = { font: new PdfFont(face), name: `F${fonts.size + 1}` };
      fonts.set(face, entry);
    }
    return entry;
  };

  const height = LETTER_PAGE.height;
  const pages = layout.pages.map((laid) => {
    const page = doc.addPage([LETTER_PAGE.width, LETTER_PAGE.height]);
    const used = new Set<{ font: PdfFont; name: string }>();
    const ops: string[] = [];
    for (const text of laid.texts) {
      if (text.text === "") continue;
      const entry = fontOf(faces[text.face]);
      used.add(entry);
      const grey = text.tone === "watermark" ? WATERMARK_GREY : 0;
      const angle = ((text.rotate ?? 0) * Math.PI) / 180;
      const cos = Math.cos(angle);
      const sin = Math.sin(angle);
      const matrix = [cos, sin, -sin, cos, text.x, height - text.baseline].map(num).join(" ");
      ops.push(
        `BT /${entry.name} ${num(text.size)} Tf ${num(grey)} g ${matrix} Tm <${entry.font.encode(text.text)}> Tj ET`,
      );
    }
    for (const rule of laid.rules) {
      const line = [rule.x1, height - rule.y1, "m", rule.x2, height - rule.y2, "l"];
      ops.push(
        `q 0 G ${num(rule.thickness)} w ${line.map((part) => (typeof part === "number" ? num(part) : part)).join(" ")} S Q`,
      );
    }
    if (image) {
      for (const placed of laid.images) {
        const matrix = [placed.width, 0, 0, placed.height, placed.x, height - placed.top - placed.height];
        ops.push(`q ${matrix.map(num).join(" ")} cm /Im1 Do Q`);
      }
      if (laid.images.length > 0) page.node.setXObject(PDFName.of("Im1"), image.ref);
    }
    const content = context.stream(deflateSync(Buffer.from(ops.join("\n"), "latin1")), {
      Filter: "FlateDecode",
    });
    page.node.addContentStream(context.register(content));
    return { page, used };
  });

  for (const { font, name } of fonts.values()) {
    const ref = font.embed(context);
    for (const { page, used } of pages) {
      if ([...used].some((entry) => entry.name === name)) page.node.setFontDictionary(PDFName.of(name), ref);
    }
  }

  doc.setProducer(PRODUCER);
  doc.setCreator("Mailpiece");
  if (options.title) doc.setTitle(options.title);
  return doc.save({ useObjectStreams: false, objectsPerTick: Number.POSITIVE_INFINITY });
}

/** A number as PDF content writes it: at most three decimals, no exponent, no negative zero. */
function num(value: number): string {
  const rounded = Math.round(value * 1000) / 1000;
  return Object.is(rounded, -0) ? "0" : String(rounded);
}
