import type { PDFDict } from "pdf-lib";
import { PDFArray } from "pdf-lib";
import { nameOf, type PdfReader } from "./pdf-objects.ts";

/**
 * The colour spaces whose values tell white apart: gray, RGB and CMYK (device, calibrated or ICC-based by their
 * component count) and tints (Separation, DeviceN: all tints 0 lay down no colorant). Anything else (patterns,
 * Lab, indexed) is never taken for white.
 */
export type ColorFamily = "gray" | "rgb" | "cmyk" | "tint" | "other";

export interface PaintColor {
  family: ColorFamily;
  values: readonly number[];
}

/** The initial fill and stroke colour of every page and form. */
export const BLACK: PaintColor = Object.freeze({ family: "gray", values: Object.freeze([0]) });

/** Colour values this close to white count as white: half a step of an 8-bit channel, for rounded writers. */
const WHITE_EPSILON = 0.5 / 255;

/** True for pure white: gray 1, RGB 1 1 1, CMYK 0 0 0 0, or all tints 0. */
export function isWhite(color: PaintColor): boolean {
  const v = color.values;
  switch (color.family) {
    case "gray":
      return v.length === 1 && v[0]! >= 1 - WHITE_EPSILON;
    case "rgb":
      return v.length === 3 && v.every((c) => c >= 1 - WHITE_EPSILON);
    case "cmyk":
    case "tint":
      return v.length > 0 && v.every((c) => c <= WHITE_EPSILON);
    default:
      return false;
  }
}

/** The colour `cs` / `CS` selects: the space named (directly or through /ColorSpace resources), at its initial value. */
export function selectColorSpace(
  reader: PdfReader,
  resources: PDFDict | undefined,
  name: string,
): PaintColor {
  const family = familyOf(reader, resources, name);
  switch (family) {
    case "gray":
      return BLACK;
    case "rgb":
      return { family, values: [0, 0, 0] };
    case "cmyk":
      return { family, values: [0, 0, 0, 1] };
    case "tint":
      // Tints start at 1.0: full colorant.
      return { family, values: [1] };
    default:
      return { family, values: [] };
  }
}

function familyOf(reader: PdfReader, resources: PDFDict | undefined, name: string): ColorFamily {
  switch (name) {
    case "DeviceGray":
    case "G":
      return "gray";
    case "DeviceRGB":
    case "RGB":
      return "rgb";
    case "DeviceCMYK":
    case "CMYK":
      return "cmyk";
    case "Pattern":
      return "other";
  }
  const defined = reader.resource(resources, "ColorSpace", name);
  const alias = nameOf(defined);
  if (alias !== undefined) return alias === name ? "other" : familyOf(reader, undefined, alias);
  if (!(defined instanceof PDFArray)) return "other";
  const items = defined.asArray();
  switch (nameOf(reader.resolve(items[0]))) {
    case "CalGray":
      return "gray";
    case "CalRGB":
      return "rgb";
    case "Separation":
    case "DeviceN":
      return "tint";
    case "ICCBased": {
      const n = reader.number(reader.dict(items[1]), "N");
      return n === 1 ? "gray" : n === 3 ? "rgb" : n === 4 ? "cmyk" : "other";
    }
    default:
      return "other";
  }
}
