import type { PDFFont, PDFImage } from "pdf-lib";
import { degrees, grayscale, PDFDocument } from "pdf-lib";
import { PDF_FONTKIT } from "./fontkit-adapter.ts";
import type { FaceRole, FontFace } from "./fonts.ts";
import type { LetterLayout } from "./layout.ts";
import { LETTER_PAGE } from "./page-geometry.ts";
import type { SignatureImage } from "./signature-image.ts";
import { subsetTag } from "./subset-tag.ts";

export const PRODUCER = "Mailpiece typesetter";
/** Light enough to read through, dark enough to show on every printer. */
const WATERMARK_GREY = 0.82;

export interface RenderOptions {
  title?: string;
  image?: SignatureImage;
}

/**
 * Writes a laid-out letter as PDF. Only the faces that carry text are embedded, each as a subset named with a tag
 * derived from its content. The document has no creation or modification date and a fixed producer, so the same
 * layout always gives the same bytes.
 */
export async function renderPdf(
  layout: LetterLayout,
  faces: Readonly<Record<FaceRole, FontFace>>,
  options: RenderOptions = {},
): Promise<Uint8Array> {
  const doc = await PDFDocument.create({ updateMetadata: false });
  doc.registerFontkit(PDF_FONTKIT);

  const textByFace = new Map<FontFace, string[]>();
  for (const page of layout.pages) {
    for (const text of page.texts) {
      const face = faces[text.face];
      const texts = textByFace.get(face) ?? [];
      texts.push(text.text);
      textByFace.set(face, texts);
    }
  }
  const fonts = new Map<FontFace, PDFFont>();
  for (const [face, texts] of textByFace) {
    const customName = `${subsetTag(face.name, texts.join(""))}+${face.name}`;
    fonts.set(face, await doc.embedFont(face.bytes, { subset: true, customName }));
  }

  let image: PDFImage | undefined;
  if (options.image && layout.pages.some((page) => page.images.length > 0)) {
    image =
      options.image.format === "png"
        ? await doc.embedPng(options.image.bytes)
        : await doc.embedJpg(options.image.bytes);
  }

  const height = LETTER_PAGE.height;
  for (const laid of layout.pages) {
    const page = doc.addPage([LETTER_PAGE.width, LETTER_PAGE.height]);
    for (const text of laid.texts) {
      page.drawText(text.text, {
        x: text.x,
        y: height - text.baseline,
        size: text.size,
        font: fonts.get(faces[text.face])!,
        color: grayscale(text.tone === "watermark" ? WATERMARK_GREY : 0),
        ...(text.rotate === undefined ? {} : { rotate: degrees(text.rotate) }),
      });
    }
    for (const placed of laid.images) {
      if (image)
        page.drawImage(image, {
          x: placed.x,
          y: height - placed.top - placed.height,
          width: placed.width,
          height: placed.height,
        });
    }
  }

  doc.setProducer(PRODUCER);
  doc.setCreator("Mailpiece");
  if (options.title) doc.setTitle(options.title);
  return doc.save({ useObjectStreams: false });
}
