import type { Font } from "fontkit";
import * as fontkit from "fontkit";

/** Parses a TrueType font with fontkit 2, refusing font collections. */
export function createFont(bytes: Uint8Array): Font {
  const font = fontkit.create(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
  if (!("layout" in font)) throw new Error("a font collection is not a single font");
  return font;
}
