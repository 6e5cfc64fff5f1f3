import { Font } from "@pdf-lib/standard-fonts";
import { degrees, PDFDocument, PDFName, rgb } from "pdf-lib";
import { afterAll, describe, expect, it } from "vitest";
import { checkPostcard, type PostcardCheck } from "./check-postcard.ts";
import { PostcardError } from "./errors.ts";
import {
  addContent,
  addForm,
  addResource,
  encrypt,
  inkBounds,
  inkInside,
  postcardPdf,
  removeScratch,
  render,
  type Side,
} from "./postcards.fixture.ts";
import { POSTCARD_TEMPLATES, type PostcardSize } from "./templates.ts";

afterAll(removeScratch);

const ZONE_4X6 = POSTCARD_TEMPLATES["4x6"].addressZone;

/** A 4x6 postcard whose mailing side gets `draw` on top of its usual message, divider and picture. */
function withBack(draw: (side: Side) => void | Promise<void>): Promise<Uint8Array> {
  return postcardPdf("4x6", { back: draw });
}

/** A 4x6 postcard whose mailing side (page 2) has the boxes given (x, y, width, height), `rotate` and `content`. */
async function customBack(options: {
  mediaBox: [number, number, number, number];
  cropBox?: [number, number, number, number];
  rotate?: number;
  content: string;
}): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  doc.addPage([450, 306]).drawRectangle({ x: 0, y: 0, width: 450, height: 306, color: rgb(0.1, 0.4, 0.7) });
  const page = doc.addPage();
  page.setMediaBox(...options.mediaBox);
  if (options.cropBox) page.setCropBox(...options.cropBox);
  if (options.rotate) page.setRotation(degrees(options.rotate));
  addContent({ doc, page }, options.content);
  return doc.save();
}

async function check(
  pdf: Uint8Array,
  size: PostcardSize = "4x6",
  tolerancePt?: number,
): Promise<PostcardCheck> {
  return checkPostcard(pdf, size, tolerancePt === undefined ? undefined : { tolerancePt });
}

function codes(result: PostcardCheck): string[] {
  return result.problems.map((p) => p.code);
}

async function refusal(run: () => Promise<unknown>): Promise<PostcardError> {
  try {
    await run();
  } catch (error) {
    if (PostcardError.isInstance(error)) return error;
    throw error;
  }
  throw new Error("expected a PostcardError");
}

interface ZoneCase {
  name: string;
  pdf: () => Promise<Uint8Array>;
  /** The start of the message for a mark in the zone; undefined when the zone is clear. */
  flagged?: string;
  box?: { x: number; y: number; width: number; height: number };
  /** False when pdftoppm draws something a printer would not (annotations that are not for print). */
  renderable?: boolean;
}

const zoneCases: ZoneCase[] = [
  { name: "a well-made 4x6 card", pdf: () => postcardPdf("4x6") },
  {
    name: "text in the zone",
    pdf: () =>
      withBack(({ page, font }) => page.drawText("Jane Doe, 1 Main St", { x: 240, y: 100, size: 12, font })),
    flagged: "Text at x 240–",
  },
  {
    name: "an image in the zone",
    pdf: () => withBack(({ page, image }) => page.drawImage(image, { x: 260, y: 50, width: 60, height: 40 })),
    flagged: "An image at x 260–320, y 50–90 pt",
    box: { x: 260, y: 50, width: 60, height: 40 },
  },
  {
    name: "a filled rectangle in the zone",
    pdf: () =>
      withBack(({ page }) =>
        page.drawRectangle({ x: 250, y: 60, width: 80, height: 50, color: rgb(0.9, 0.1, 0.1) }),
      ),
    flagged: "A filled path at x 250–330, y 60–110 pt",
    box: { x: 250, y: 60, width: 80, height: 50 },
  },
  {
    name: "a stroked line crossing the zone",
    pdf: () =>
      withBack(({ page }) =>
        page.drawLine({
          start: { x: 60, y: 150 },
          end: { x: 445, y: 150 },
          thickness: 2,
          color: rgb(0, 0, 0),
        }),
      ),
    flagged: "A stroked path at x 59–446, y 149–151 pt",
    box: { x: 59, y: 149, width: 387, height: 2 },
  },
  {
    name: "a white rectangle in the zone (rg 1 1 1, g 1, k 0 0 0 0)",
    pdf: () =>
      withBack((side) =>
        addContent(side, "1 1 1 rg 220 40 150 100 re f 1 g 230 50 100 60 re f 0 0 0 0 k 240 60 50 50 re f"),
      ),
  },
  {
    name: "a near-white rectangle in the zone",
    pdf: () => withBack((side) => addContent(side, "0.97 0.97 0.97 rg 220 40 150 100 re f")),
    flagged: "A filled path at x 220–370, y 40–140 pt",
  },
  {
    name: "a form XObject drawn into the zone",
    pdf: () =>
      withBack((side) => {
        addForm(side, "Fm0", "0 0.5 0 rg 0 0 50 50 re f");
        addContent(side, "q 1 0 0 1 260 60 cm /Fm0 Do Q");
      }),
    flagged: "A filled path (in form XObject /Fm0) at x 260–310, y 60–110 pt",
    box: { x: 260, y: 60, width: 50, height: 50 },
  },
  {
    name: "a form XObject whose /Matrix moves its drawing out of the zone",
    pdf: () =>
      withBack((side) => {
        addForm(side, "Fm0", "0 0.5 0 rg 250 60 50 50 re f", { Matrix: [1, 0, 0, 1, -220, 0] });
        addContent(side, "/Fm0 Do");
      }),
  },
  {
    name: "a form XObject whose /BBox cuts off the part in the zone",
    pdf: () =>
      withBack((side) => {
        addForm(side, "Fm0", "0 0.5 0 rg 30 60 300 50 re f", { BBox: [0, 0, 150, 300] });
        addContent(side, "/Fm0 Do");
      }),
  },
  {
    name: "a rectangle moved out of the zone by cm",
    pdf: () => withBack((side) => addContent(side, "q 1 0 0 1 -220 0 cm 0 0 1 rg 250 60 80 50 re f Q")),
  },
  {
    name: "a rectangle moved into the zone by cm",
    pdf: () => withBack((side) => addContent(side, "q 1 0 0 1 220 0 cm 0 0 1 rg 30 60 80 50 re f Q")),
    flagged: "A filled path at x 250–330, y 60–110 pt",
    box: { x: 250, y: 60, width: 80, height: 50 },
  },
  {
    name: "a rectangle scaled and turned into the zone by nested cm",
    pdf: () =>
      withBack((side) =>
        addContent(side, "q 2 0 0 2 0 0 cm q 0 1 -1 0 150 20 cm 0 0 1 rg 0 0 20 10 re f Q Q"),
      ),
    flagged: "A filled path at x 280–300, y 40–80 pt",
    box: { x: 280, y: 40, width: 20, height: 40 },
  },
  {
    name: "a transform scoped by q/Q before a rectangle outside the zone",
    pdf: () => withBack((side) => addContent(side, "q 1 0 0 1 220 0 cm Q 0 0 1 rg 30 60 80 50 re f")),
  },
  {
    name: "a clipping path in the zone (W n)",
    pdf: () => withBack((side) => addContent(side, "220 40 150 100 re W n")),
  },
  {
    name: "a fill clipped away from the zone",
    pdf: () => withBack((side) => addContent(side, "q 20 20 150 100 re W n 0 0 1 rg 20 20 400 150 re f Q")),
  },
  {
    name: "a fill after a clip scoped by q/Q",
    pdf: () => withBack((side) => addContent(side, "q 20 20 150 100 re W n Q 0 0 1 rg 20 20 400 150 re f")),
    flagged: "A filled path at x 20–420, y 20–170 pt",
  },
  {
    name: "an axial shading over the whole page",
    pdf: () =>
      withBack((side) => {
        addResource(side, "Shading", "Sh0", {
          ShadingType: 2,
          ColorSpace: "DeviceRGB",
          Coords: [0, 0, 450, 0],
          Function: { FunctionType: 2, Domain: [0, 1], C0: [1, 0, 0], C1: [0, 0, 1], N: 1 },
        });
        addContent(side, "/Sh0 sh");
      }),
    flagged: "A shading at x 0–450, y 0–306 pt",
  },
  {
    name: "a shading clipped to the message area",
    pdf: () =>
      withBack((side) => {
        addResource(side, "Shading", "Sh0", {
          ShadingType: 2,
          ColorSpace: "DeviceRGB",
          Coords: [0, 0, 180, 0],
          Function: { FunctionType: 2, Domain: [0, 1], C0: [1, 0, 0], C1: [0, 0, 1], N: 1 },
        });
        addContent(side, "q 20 20 150 60 re W n /Sh0 sh Q");
      }),
  },
  {
    name: "an inline image in the zone",
    pdf: () =>
      withBack((side) => addContent(side, "q 40 0 0 40 260 60 cm BI /W 2 /H 2 /CS /G /BPC 8 ID 0@`p EI Q")),
    flagged: "An inline image at x 260–300, y 60–100 pt",
  },
  {
    name: "invisible text (render mode 3) in the zone",
    pdf: () => withBack((side) => addContent(side, "BT /F1 12 Tf 3 Tr 240 100 Td (hidden layer) Tj ET")),
  },
  {
    name: "a printable form field in the zone",
    pdf: () =>
      withBack(({ doc, page }) => {
        const field = doc.getForm().createTextField("recipient");
        field.setText("Jane Doe");
        field.addToPage(page, { x: 240, y: 80, width: 150, height: 30 });
      }),
    flagged: "A stroked path (in annotation /Widget) at x 239.5–390.5, y 79.5–110.5 pt",
  },
  {
    name: "a form field in the zone that is not for print",
    pdf: () =>
      withBack(({ doc, page }) => {
        const field = doc.getForm().createTextField("note");
        field.setText("screen only");
        field.addToPage(page, { x: 240, y: 80, width: 150, height: 30 });
        for (const widget of field.acroField.getWidgets())
          widget.dict.set(PDFName.of("F"), doc.context.obj(0));
      }),
    renderable: false,
  },
  {
    name: "a portrait page turned by /Rotate 90 with nothing in the zone",
    pdf: () =>
      customBack({
        mediaBox: [0, 0, 306, 450],
        rotate: 90,
        content: "0 0 0 rg 100 20 80 150 re f",
      }),
  },
  {
    name: "a portrait page turned by /Rotate 90 with a fill where the turned zone is",
    // Canvas x = user y, canvas y = 306 - user x: user x 196-216, y 290-310 is canvas x 290-310, y 90-110.
    pdf: () => customBack({ mediaBox: [0, 0, 306, 450], rotate: 90, content: "0 0 0 rg 196 290 20 20 re f" }),
    flagged: "A filled path at x 290–310, y 90–110 pt",
    box: { x: 290, y: 90, width: 20, height: 20 },
  },
  {
    name: "a page turned by /Rotate 270 with a fill where the turned zone is",
    // Turned 270: canvas x = 450 - user y, canvas y = user x.
    pdf: () => customBack({ mediaBox: [0, 0, 306, 450], rotate: 270, content: "0 0 0 rg 90 140 20 20 re f" }),
    flagged: "A filled path at x 290–310, y 90–110 pt",
  },
  {
    name: "a page cropped to the canvas with a fill in the zone",
    pdf: () =>
      customBack({
        mediaBox: [0, 0, 500, 356],
        cropBox: [25, 25, 450, 306],
        content: "0 0 0 rg 100 100 40 40 re f 0 0 0 rg 230 43 50 40 re f",
      }),
    flagged: "A filled path at x 205–255, y 18–58 pt",
    box: { x: 205, y: 18, width: 50, height: 40 },
  },
  {
    name: "a page cropped to the canvas with ink only in the cropped margin",
    pdf: () =>
      customBack({
        mediaBox: [0, 0, 500, 356],
        cropBox: [25, 25, 450, 306],
        content: "0 0 0 rg 100 100 40 40 re f 0 0 0 rg 230 0 200 20 re f",
      }),
  },
];

describe("checkPostcard: the address zone on page 2", () => {
  for (const c of zoneCases) {
    it(c.flagged ? `flags ${c.name}` : `accepts ${c.name}`, async () => {
      const result = await check(await c.pdf());
      if (c.flagged === undefined) {
        expect(result).toMatchObject({ ok: true, problems: [] });
        return;
      }
      expect(result.ok).toBe(false);
      expect(result.problems).toHaveLength(1);
      const [problem] = result.problems;
      expect(problem).toMatchObject({ code: "postcard_address_zone_not_empty", page: 2 });
      expect(problem!.message.startsWith(c.flagged)).toBe(true);
      expect(problem!.message).toContain("on page 2 overlaps the address zone (x 193.8–430.2, y 18–189 pt)");
      if (c.box) expect(problem!.box).toEqual(c.box);
    });
  }

  it("agrees with a renderer: pdftoppm paints the zone of every flagged card and of no accepted one", async () => {
    for (const c of zoneCases) {
      if (c.renderable === false) continue;
      const pdf = await c.pdf();
      const image = render(pdf, 2);
      expect({ name: c.name, width: image.width, height: image.height }).toEqual({
        name: c.name,
        width: 450,
        height: 306,
      });
      expect({ name: c.name, ink: inkInside(image, ZONE_4X6) }).toEqual({
        name: c.name,
        ink: c.flagged !== undefined,
      });
    }
  });

  it("reports a text box as wide as the font's glyphs and as tall as its ascent and descent", async () => {
    const pdf = await withBack(({ page, font }) =>
      page.drawText("Jane Doe, 1 Main St", { x: 240, y: 100, size: 12, font }),
    );
    const box = (await check(pdf)).problems[0]!.box!;
    // Helvetica's glyph widths (Adobe font metrics), without kerning, as pdf-lib shows the string.
    const helvetica = Font.load("Helvetica");
    const glyphs = ["J", "a", "n", "e", "space", "D", "o", "e", "comma", "space", "one", "space"];
    const names = [...glyphs, "M", "a", "i", "n", "space", "S", "t"];
    const width = names.reduce((sum, name) => sum + (helvetica.getWidthOfGlyph(name) ?? 0), 0) * 0.012;
    expect(box.x).toBe(240);
    expect(box.width).toBeCloseTo(width, 1);
    // Helvetica: ascender 718, descender -207 thousandths of an em.
    expect(box.y).toBeCloseTo(100 - 0.207 * 12, 1);
    expect(box.height).toBeCloseTo(0.925 * 12, 1);
    // The glyphs pdftoppm draws lie inside the box, give or take 2 pt: the font is not embedded, so the renderer
    // draws Helvetica's advances with the shapes of whatever sans serif the machine has.
    const ink = inkBounds(render(pdf, 2), ZONE_4X6)!;
    expect(ink.x0).toBeGreaterThanOrEqual(box.x - 2);
    expect(ink.x1).toBeLessThanOrEqual(box.x + box.width + 2);
    expect(ink.y0).toBeGreaterThanOrEqual(box.y - 2);
    expect(ink.y1).toBeLessThanOrEqual(box.y + box.height + 2);
    expect(Math.abs(box.width - (ink.x1 - ink.x0))).toBeLessThan(3);
  });

  it("reports the first mark in painting order when several are in the zone", async () => {
    const result = await check(
      await withBack(({ page, image, font }) => {
        page.drawImage(image, { x: 260, y: 50, width: 60, height: 40 });
        page.drawText("later", { x: 240, y: 150, size: 12, font });
      }),
    );
    expect(result.problems.map((p) => p.message.slice(0, 8))).toEqual(["An image"]);
  });

  it("checks the zone of each size where that size puts it", async () => {
    for (const size of ["6x9", "11x6"] as const) {
      const zone = POSTCARD_TEMPLATES[size].addressZone;
      const inside = await postcardPdf(size, {
        back: ({ page }) =>
          page.drawRectangle({ x: zone.x + 5, y: 30, width: 10, height: 10, color: rgb(0, 0, 0) }),
      });
      const leftOf = await postcardPdf(size, {
        back: ({ page }) =>
          page.drawRectangle({ x: zone.x - 15, y: 30, width: 10, height: 10, color: rgb(0, 0, 0) }),
      });
      expect(codes(await check(inside, size))).toEqual(["postcard_address_zone_not_empty"]);
      expect(codes(await check(leftOf, size))).toEqual([]);
    }
  });

  it("refuses to vouch for page 2 when its content cannot be decoded", async () => {
    const doc = await PDFDocument.create();
    doc.addPage([450, 306]);
    const page = doc.addPage([450, 306]);
    const broken = doc.context.stream("not really flate data", { Filter: "FlateDecode" });
    page.node.set(PDFName.of("Contents"), doc.context.register(broken));
    const result = await check(await doc.save());
    expect(result.problems).toEqual([
      expect.objectContaining({ code: "postcard_content_unreadable", page: 2 }),
    ]);
  });

  it("refuses to vouch for page 2 when its content nests beyond reason", async () => {
    const result = await check(await withBack((side) => addContent(side, `${"[".repeat(200)}0 0 m`)));
    expect(codes(result)).toEqual(["postcard_content_unreadable"]);
  });
});

describe("checkPostcard: pages and canvas", () => {
  it("accepts a well-made postcard of every size and reports its pages", async () => {
    for (const size of ["4x6", "6x9", "11x6"] as const) {
      const { bleed } = POSTCARD_TEMPLATES[size];
      const result = await check(await postcardPdf(size), size);
      expect(result).toEqual({
        ok: true,
        problems: [],
        pages: [
          { width_pt: bleed.w, height_pt: bleed.h },
          { width_pt: bleed.w, height_pt: bleed.h },
        ],
      });
    }
  });

  it("refuses 1 page and 3 pages, and still checks the canvases and page 2", async () => {
    const one = await check(await postcardPdf("4x6", { pages: 1 }));
    expect(one.problems).toEqual([
      {
        code: "postcard_page_count",
        page: null,
        message:
          "The PDF has 1 page; a postcard has exactly 2: page 1 is the artwork side, page 2 the mailing side.",
      },
    ]);
    expect(one.pages).toHaveLength(1);
    const three = await check(
      await postcardPdf("4x6", {
        pages: 3,
        back: ({ page, font }) => page.drawText("in the zone", { x: 240, y: 100, size: 12, font }),
      }),
    );
    expect(codes(three)).toEqual(["postcard_page_count", "postcard_address_zone_not_empty"]);
    expect(three.problems[0]!.message).toContain("has 3 pages");
  });

  it("names the trim size sent instead of the bleed canvas", async () => {
    const result = await check(await postcardPdf("4x6", { canvas: [432, 288] }));
    expect(codes(result)).toEqual(["postcard_canvas_mismatch", "postcard_canvas_mismatch"]);
    expect(result.problems.map((p) => p.page)).toEqual([1, 2]);
    expect(result.problems[0]!.message).toBe(
      "Page 1 is 432 x 288 pt: the trim size instead of bleed; a 4x6 postcard's canvas is 450 x 306 pt (6.25 x 4.25 in, landscape): the trim 432 x 288 pt plus 0.125 in of bleed on every side.",
    );
    expect(result.pages).toEqual([
      { width_pt: 432, height_pt: 288 },
      { width_pt: 432, height_pt: 288 },
    ]);
  });

  it("names a portrait page", async () => {
    const result = await check(await postcardPdf("6x9", { canvas: [450, 666] }), "6x9");
    expect(codes(result)).toEqual(["postcard_canvas_mismatch", "postcard_canvas_mismatch"]);
    expect(result.problems[1]!.message).toMatch(
      /^Page 2 is 450 x 666 pt, portrait; a 6x9 postcard's canvas is 666 x 450 pt/,
    );
    const trimPortrait = await check(await postcardPdf("4x6", { canvas: [288, 432] }));
    expect(trimPortrait.problems[0]!.message).toContain("portrait, and the trim size instead of bleed");
  });

  it("names the size whose canvas was sent, and any other size plainly", async () => {
    const other = await check(await postcardPdf("6x9"), "4x6");
    expect(other.problems[0]!.message).toMatch(
      /^Page 1 is 666 x 450 pt, the canvas of a 6x9 postcard; a 4x6/,
    );
    const letter = await check(await postcardPdf("4x6", { canvas: [612, 792] }));
    expect(letter.problems[0]!.message).toMatch(
      /^Page 1 is 612 x 792 pt; a 4x6 postcard's canvas is 450 x 306 pt/,
    );
  });

  it("does not check the zone of a page 2 with the wrong canvas", async () => {
    const result = await check(
      await postcardPdf("4x6", {
        canvas: [432, 288],
        back: ({ page, font }) => page.drawText("in the zone", { x: 240, y: 100, size: 12, font }),
      }),
    );
    expect(codes(result)).toEqual(["postcard_canvas_mismatch", "postcard_canvas_mismatch"]);
  });

  it("allows 2 pt of difference by default, and what tolerancePt says", async () => {
    const near = await postcardPdf("4x6", { canvas: [451.5, 304.5] });
    expect((await check(near)).ok).toBe(true);
    expect(codes(await check(near, "4x6", 1))).toEqual([
      "postcard_canvas_mismatch",
      "postcard_canvas_mismatch",
    ]);
    expect((await check(near, "4x6", 1.5)).ok).toBe(true);
    const off = await postcardPdf("4x6", { canvas: [452.5, 306] });
    expect(codes(await check(off))).toEqual(["postcard_canvas_mismatch", "postcard_canvas_mismatch"]);
  });

  it("names a page without a usable MediaBox", async () => {
    const doc = await PDFDocument.load(await postcardPdf("4x6"));
    doc.getPages()[1]!.node.set(PDFName.of("MediaBox"), doc.context.obj([0, 0, 0, 306]));
    const result = await check(await doc.save());
    expect(result.pages[1]).toEqual({ width_pt: 0, height_pt: 0 });
    expect(result.problems).toEqual([expect.objectContaining({ code: "postcard_canvas_mismatch", page: 2 })]);
    expect(result.problems[0]!.message).toMatch(
      /^Page 2 has no valid MediaBox; a 4x6 postcard's canvas is 450 x 306/,
    );
  });

  it("reads the canvas from the CropBox and /Rotate", async () => {
    const turned = await check(await customBack({ mediaBox: [0, 0, 306, 450], rotate: 90, content: "" }));
    expect(turned.pages[1]).toEqual({ width_pt: 450, height_pt: 306 });
    expect(turned.ok).toBe(true);
    const unturned = await check(await customBack({ mediaBox: [0, 0, 306, 450], content: "" }));
    expect(codes(unturned)).toEqual(["postcard_canvas_mismatch"]);
    const cropped = await check(
      await customBack({ mediaBox: [0, 0, 500, 356], cropBox: [25, 25, 450, 306], content: "" }),
    );
    expect(cropped).toMatchObject({ ok: true, pages: [{}, { width_pt: 450, height_pt: 306 }] });
    const uncropped = await check(await customBack({ mediaBox: [0, 0, 500, 356], content: "" }));
    expect(uncropped.problems[0]!.message).toMatch(/^Page 2 is 500 x 356 pt;/);
  });
});

describe("checkPostcard: unreadable input and bad arguments", () => {
  it("refuses an encrypted PDF", async () => {
    const result = await check(encrypt(await postcardPdf("4x6")));
    expect(result).toEqual({
      ok: false,
      problems: [
        {
          code: "pdf_encrypted",
          page: null,
          message: "The PDF is encrypted or password-protected; remove the protection and send it again.",
        },
      ],
      pages: [],
    });
  });

  it("refuses garbage, an empty file and a PDF header over garbage", async () => {
    for (const bytes of [
      new TextEncoder().encode("this is not a pdf at all"),
      new Uint8Array(0),
      new TextEncoder().encode("%PDF-1.7\n1 0 obj garbage endobj\n%%EOF"),
      Uint8Array.from({ length: 4096 }, (_, i) => (i * 7919) % 256),
    ]) {
      const result = await check(bytes);
      expect(result).toMatchObject({
        ok: false,
        problems: [{ code: "pdf_unreadable", page: null }],
        pages: [],
      });
    }
  });

  it("leaves the bytes as they were", async () => {
    const pdf = await postcardPdf("4x6");
    const before = Uint8Array.from(pdf);
    await check(pdf);
    expect(pdf).toEqual(before);
  });

  it("throws PostcardError for an unknown size or a bad tolerance", async () => {
    const pdf = await postcardPdf("4x6");
    const size = await refusal(() => checkPostcard(pdf, "5x7" as PostcardSize));
    expect([size.code, size.field]).toEqual(["invalid_postcard_size", "size"]);
    for (const tolerancePt of [-1, Number.NaN, Number.POSITIVE_INFINITY]) {
      const bad = await refusal(() => checkPostcard(pdf, "4x6", { tolerancePt }));
      expect([bad.code, bad.field]).toEqual(["invalid_postcard_input", "tolerancePt"]);
    }
    const notBytes = await refusal(() => checkPostcard("%PDF" as unknown as Uint8Array, "4x6"));
    expect([notBytes.code, notBytes.field]).toEqual(["invalid_postcard_input", "pdf"]);
  });
});
