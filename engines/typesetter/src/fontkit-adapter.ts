import type { Font, Subset } from "fontkit";
import * as fontkit from "fontkit";
import type { PDFDocument } from "pdf-lib";

/**
 * Font parsing and subsetting come from fontkit 2, whose TrueType subsets are correct (the older fork bundled for
 * pdf-lib writes a short `loca` table without padding, which blanks glyphs at random). pdf-lib reads a subset as a
 * stream; fontkit 2 encodes it at once, so the subset is wrapped in a one-shot stream.
 */
export function createFont(bytes: Uint8Array): Font {
  const font = fontkit.create(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
  if (!("layout" in font)) throw new Error("a font collection is not a single font");
  return font;
}

type Fontkit = Parameters<PDFDocument["registerFontkit"]>[0];

/** The fontkit that `PDFDocument.registerFontkit` takes, backed by fontkit 2. */
export const PDF_FONTKIT: Fontkit = {
  create(bytes: Uint8Array) {
    const font = createFont(bytes);
    const createSubset = font.createSubset.bind(font);
    font.createSubset = () => withEncodeStream(createSubset());
    return font;
  },
} as unknown as Fontkit;

type Handler = (value?: unknown) => void;

function withEncodeStream(subset: Subset): Subset {
  const streaming = subset as Subset & { encodeStream: () => unknown };
  streaming.encodeStream = () => {
    const handlers: Record<string, Handler> = {};
    const stream = {
      on(event: string, handler: Handler) {
        handlers[event] = handler;
        return stream;
      },
    };
    queueMicrotask(() => {
      let bytes: Uint8Array;
      try {
        bytes = subset.encode();
      } catch (error) {
        handlers.error?.(error);
        return;
      }
      handlers.data?.(bytes);
      handlers.end?.();
    });
    return stream;
  };
  return streaming;
}
