import { PDFDocument } from "pdf-lib";
import { describe, expect, it } from "vitest";
import { applyX, applyY } from "./matrix.ts";
import { pageCanvas } from "./page-canvas.ts";
import { PdfReader } from "./pdf-objects.ts";
import { pdfDict } from "./postcards.fixture.ts";

async function setup() {
  const doc = await PDFDocument.create();
  const reader = new PdfReader(doc.context);
  const dict = (entries: Record<string, unknown>) => pdfDict(doc, entries);
  return { doc, reader, dict };
}

/** Where the user-space point lands on the canvas. */
function land(m: readonly number[], x: number, y: number): [number, number] {
  const t = m as [number, number, number, number, number, number];
  return [applyX(t, x, y), applyY(t, x, y)];
}

describe("pageCanvas", () => {
  it("is the MediaBox moved to the origin for an unrotated page", async () => {
    const { reader, dict } = await setup();
    const canvas = pageCanvas(reader, dict({ MediaBox: [10, 20, 460, 326] }))!;
    expect([canvas.width, canvas.height, canvas.rotate]).toEqual([450, 306, 0]);
    expect(land(canvas.toCanvas, 10, 20)).toEqual([0, 0]);
    expect(land(canvas.toCanvas, 460, 326)).toEqual([450, 306]);
  });

  it("accepts a MediaBox written with its corners swapped", async () => {
    const { reader, dict } = await setup();
    expect(pageCanvas(reader, dict({ MediaBox: [450, 306, 0, 0] }))).toMatchObject({
      width: 450,
      height: 306,
    });
  });

  it("turns the page by /Rotate, clockwise as it is shown", async () => {
    const { reader, dict } = await setup();
    // A portrait page; its top-left corner (0, 450) and bottom-left corner (0, 0) land as a viewer shows them.
    const expectations: [number, [number, number], [number, number]][] = [
      [90, [450, 306], [0, 306]],
      [180, [306, 0], [306, 450]],
      [270, [0, 0], [450, 0]],
      [-90, [0, 0], [450, 0]],
      [450, [450, 306], [0, 306]],
    ];
    for (const [rotate, topLeft, bottomLeft] of expectations) {
      const canvas = pageCanvas(reader, dict({ MediaBox: [0, 0, 306, 450], Rotate: rotate }))!;
      const turned = Math.abs(rotate) % 180 === 90;
      expect([canvas.width, canvas.height]).toEqual(turned ? [450, 306] : [306, 450]);
      expect({ rotate, at: land(canvas.toCanvas, 0, 450) }).toEqual({ rotate, at: topLeft });
      expect({ rotate, at: land(canvas.toCanvas, 0, 0) }).toEqual({ rotate, at: bottomLeft });
    }
  });

  it("ignores a rotation that is not a multiple of 90, as viewers do", async () => {
    const { reader, dict } = await setup();
    expect(pageCanvas(reader, dict({ MediaBox: [0, 0, 306, 450], Rotate: 45 }))).toMatchObject({ rotate: 0 });
  });

  it("cuts the MediaBox to the CropBox, and ignores a CropBox outside it", async () => {
    const { reader, dict } = await setup();
    const cropped = pageCanvas(reader, dict({ MediaBox: [0, 0, 500, 356], CropBox: [25, 25, 475, 331] }))!;
    expect([cropped.width, cropped.height]).toEqual([450, 306]);
    expect(land(cropped.toCanvas, 25, 25)).toEqual([0, 0]);
    const overhanging = pageCanvas(
      reader,
      dict({ MediaBox: [0, 0, 450, 306], CropBox: [-20, -20, 600, 400] }),
    )!;
    expect([overhanging.width, overhanging.height]).toEqual([450, 306]);
    const outside = pageCanvas(
      reader,
      dict({ MediaBox: [0, 0, 450, 306], CropBox: [900, 900, 1000, 1000] }),
    )!;
    expect([outside.width, outside.height]).toEqual([450, 306]);
  });

  it("inherits MediaBox, CropBox and Rotate from the page tree", async () => {
    const { doc, reader, dict } = await setup();
    const parent = doc.context.register(dict({ Type: "Pages", MediaBox: [0, 0, 306, 450], Rotate: 90 }));
    const canvas = pageCanvas(reader, dict({ Type: "Page", Parent: parent }))!;
    expect([canvas.width, canvas.height, canvas.rotate]).toEqual([450, 306, 90]);
  });

  it("is undefined without a usable MediaBox", async () => {
    const { reader, dict } = await setup();
    expect(pageCanvas(reader, dict({}))).toBeUndefined();
    expect(pageCanvas(reader, dict({ MediaBox: [0, 0, 0, 306] }))).toBeUndefined();
    expect(pageCanvas(reader, dict({ MediaBox: [0, 0, 450] }))).toBeUndefined();
  });
});
