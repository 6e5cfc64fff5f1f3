import { type PDFDict, PDFDocument } from "pdf-lib";
import { describe, expect, it } from "vitest";
import { BLACK, isWhite, selectColorSpace } from "./paint-color.ts";
import { PdfReader } from "./pdf-objects.ts";

describe("isWhite", () => {
  it("is true for pure white in gray, RGB, CMYK and tints only", () => {
    expect(isWhite({ family: "gray", values: [1] })).toBe(true);
    expect(isWhite({ family: "rgb", values: [1, 1, 1] })).toBe(true);
    expect(isWhite({ family: "cmyk", values: [0, 0, 0, 0] })).toBe(true);
    expect(isWhite({ family: "tint", values: [0] })).toBe(true);
    expect(isWhite({ family: "rgb", values: [0.999, 1, 1] })).toBe(true);
    expect(isWhite(BLACK)).toBe(false);
    expect(isWhite({ family: "gray", values: [0.99] })).toBe(false);
    expect(isWhite({ family: "rgb", values: [1, 1, 0.98] })).toBe(false);
    expect(isWhite({ family: "cmyk", values: [0, 0, 0, 0.01] })).toBe(false);
    expect(isWhite({ family: "tint", values: [0, 0.2] })).toBe(false);
    expect(isWhite({ family: "other", values: [1, 1, 1] })).toBe(false);
    expect(isWhite({ family: "rgb", values: [1, 1] })).toBe(false);
  });
});

describe("selectColorSpace", () => {
  it("starts each space at its initial colour, which is never white", async () => {
    const doc = await PDFDocument.create();
    const reader = new PdfReader(doc.context);
    const icc3 = doc.context.register(doc.context.stream("", { N: 3 }));
    const icc4 = doc.context.register(doc.context.stream("", { N: 4 }));
    const resources = doc.context.obj({
      ColorSpace: {
        CS0: ["ICCBased", icc3],
        CS1: ["ICCBased", icc4],
        CS2: ["Separation", "Gold", "DeviceCMYK", { FunctionType: 2, Domain: [0, 1], N: 1 }],
        CS3: ["Lab", { WhitePoint: [0.95, 1, 1.09] }],
        CS4: "DeviceRGB",
        CS5: ["CalGray", { WhitePoint: [0.95, 1, 1.09] }],
      },
    }) as PDFDict;
    const families = [
      "DeviceGray",
      "G",
      "DeviceRGB",
      "CMYK",
      "CS0",
      "CS1",
      "CS2",
      "CS3",
      "CS4",
      "CS5",
      "Pattern",
      "Nope",
    ].map((name) => selectColorSpace(reader, resources, name));
    expect(families.map((c) => c.family)).toEqual([
      "gray",
      "gray",
      "rgb",
      "cmyk",
      "rgb",
      "cmyk",
      "tint",
      "other",
      "rgb",
      "gray",
      "other",
      "other",
    ]);
    expect(families.some(isWhite)).toBe(false);
  });
});
