import { PDFDocument, PDFName, type PDFPage } from "pdf-lib";
import { describe, expect, it } from "vitest";
import { PostcardError } from "./errors.ts";
import { findInk, type InkMark } from "./ink-walker.ts";
import { IDENTITY } from "./matrix.ts";
import { PdfReader } from "./pdf-objects.ts";
import { gradientPng } from "./png.fixture.ts";
import { addContent, addForm, addResource, type DictLiteral, pdfDict } from "./postcards.fixture.ts";

interface Page {
  doc: PDFDocument;
  page: PDFPage;
}

const COURIER = { Type: "Font", Subtype: "Type1", BaseFont: "Courier" };
// Courier: every glyph 600 thousandths of an em; ascender 629, descender -157.
const A = 0.629;
const D = -0.157;

/** Every mark the walker reports for a 450 x 306 page with `content` (and whatever `setup` adds), in order. */
async function marks(
  content: string | string[],
  setup?: (p: Page) => void | Promise<void>,
): Promise<InkMark[]> {
  const doc = await PDFDocument.create();
  const page = doc.addPage([450, 306]);
  for (const part of Array.isArray(content) ? content : [content]) addContent({ doc, page }, part);
  addResource({ doc, page }, "Font", "F1", COURIER);
  await setup?.({ doc, page });
  const loaded = await PDFDocument.load(await doc.save());
  const found: InkMark[] = [];
  findInk(
    {
      reader: new PdfReader(loaded.context),
      page: loaded.getPages()[0]!.node,
      toCanvas: IDENTITY,
      canvas: { x0: 0, y0: 0, x1: 450, y1: 306 },
    },
    (mark) => {
      found.push(mark);
      return false;
    },
  );
  return found;
}

function box(x0: number, y0: number, x1: number, y1: number) {
  return { x0, y0, x1, y1 };
}

/** Rounds every number of a box to 1e-6 so float noise does not fail exact comparisons. */
function tidy(m: InkMark) {
  const r = (n: number) => Math.round(n * 1e6) / 1e6 + 0;
  const b = m.bounds;
  return { kind: m.kind, bounds: box(r(b.x0), r(b.y0), r(b.x1), r(b.y1)), within: m.within };
}

async function tidyMarks(content: string | string[], setup?: (p: Page) => void | Promise<void>) {
  return (await marks(content, setup)).map(tidy);
}

const text = (x0: number, x1: number, baseline: number, size = 10) =>
  ({ kind: "text", bounds: box(x0, baseline + D * size, x1, baseline + A * size), within: [] }) as const;

describe("findInk: text", () => {
  it("places text by Td and measures it by the font's widths", async () => {
    expect(await tidyMarks("BT /F1 10 Tf 100 200 Td (abcd) Tj ET")).toEqual([text(100, 124, 200)]);
  });

  it("applies character spacing, word spacing to code 32 and horizontal scaling", async () => {
    // a: 0-3, advance (6+2)*0.5 = 4; space: advance (6+2+3)*0.5 = 5.5; b at 9.5-12.5.
    expect(await tidyMarks("BT /F1 10 Tf 2 Tc 3 Tw 50 Tz 0 100 Td (a b) Tj ET")).toEqual([
      text(0, 12.5, 100),
    ]);
  });

  it("moves by TJ adjustments in thousandths of an em", async () => {
    expect(await tidyMarks("BT /F1 10 Tf 0 100 Td [(a) -1000 (b)] TJ ET")).toEqual([text(0, 22, 100)]);
    expect(await tidyMarks("BT /F1 10 Tf 0 100 Td [(a) 600 (b)] TJ ET")).toEqual([text(0, 6, 100)]);
  });

  it("continues after the shown text, and starts lines by TL, T*, ', \" and TD", async () => {
    expect(await tidyMarks("BT /F1 10 Tf 12 TL 100 200 Td (a) Tj (b) Tj (c) ' T* (d) Tj ET")).toEqual([
      text(100, 106, 200),
      text(106, 112, 200),
      text(100, 106, 188),
      text(100, 106, 176),
    ]);
    // " sets word spacing 5 and character spacing 1: a 0-6 (+7), space (+12), b 19-25.
    expect(await tidyMarks('BT /F1 10 Tf 12 TL 100 200 Td 5 1 (a b) " ET')).toEqual([text(100, 125, 188)]);
    expect(await tidyMarks("BT /F1 10 Tf 100 200 Td 0 -14 TD (a) Tj T* (b) Tj ET")).toEqual([
      text(100, 106, 186),
      text(100, 106, 172),
    ]);
  });

  it("sets the text matrix by Tm, turned and scaled, and raises text by Ts", async () => {
    expect(await tidyMarks("BT /F1 10 Tf 0 1 -1 0 100 100 Tm (abcd) Tj ET")).toEqual([
      { kind: "text", bounds: box(100 - A * 10, 100, 100 - D * 10, 124), within: [] },
    ]);
    expect(await tidyMarks("BT /F1 1 Tf 10 0 0 10 300 50 Tm 0.5 Ts (a) Tj ET")).toEqual([
      { kind: "text", bounds: box(300, 55 + D * 10, 306, 55 + A * 10), within: [] },
    ]);
  });

  it("puts text under the CTM", async () => {
    expect(await tidyMarks("q 2 0 0 2 10 0 cm BT /F1 10 Tf 0 50 Td (a) Tj ET Q")).toEqual([
      { kind: "text", bounds: box(10, 100 + 2 * D * 10, 22, 100 + 2 * A * 10), within: [] },
    ]);
  });

  it("paints nothing for render modes 3 and 7; mode 7 clips what follows to the text", async () => {
    expect(await tidyMarks("BT /F1 10 Tf 3 Tr 0 100 Td (ab) Tj ET")).toEqual([]);
    expect(await tidyMarks("BT /F1 10 Tf 7 Tr 0 100 Td (ab) Tj ET 0 0 450 306 re f")).toEqual([
      { kind: "filled_path", bounds: box(0, 100 + D * 10, 12, 100 + A * 10), within: [] },
    ]);
    expect(await tidyMarks("BT /F1 10 Tf 4 Tr 0 100 Td (ab) Tj ET")).toEqual([text(0, 12, 100)]);
  });

  it("takes the font from an ExtGState, and measures text in an unknown font as typical glyphs", async () => {
    const withGs = await tidyMarks("BT /GS0 gs 0 100 Td (ab) Tj ET", ({ doc, page }) => {
      const font = doc.context.register(doc.context.obj(COURIER));
      addResource({ doc, page }, "ExtGState", "GS0", { Type: "ExtGState", Font: [font, 10] });
    });
    expect(withGs).toEqual([text(0, 12, 100)]);
    // No such font: 0.6 em a glyph, ascent 0.75, descent -0.25.
    expect(await tidyMarks("BT /Nope 10 Tf 0 100 Td (abc) Tj ET")).toEqual([
      { kind: "text", bounds: box(0, 97.5, 18, 107.5), within: [] },
    ]);
  });

  it("stacks the glyphs of a vertical font downwards, centred on the pen", async () => {
    const vertical = (p: Page) =>
      addResource(p, "Font", "FV", {
        Type: "Font",
        Subtype: "Type0",
        BaseFont: "ABCDEF+NotoSansJP",
        Encoding: "Identity-V",
        DescendantFonts: [{ Type: "Font", Subtype: "CIDFontType0", DW: 1000 }],
      });
    const glyphBox = (y0: number, y1: number) => ({ kind: "text", bounds: box(95, y0, 105, y1), within: [] });
    expect(await tidyMarks("BT /FV 10 Tf 100 200 Td <00010002> Tj ET", vertical)).toEqual([
      glyphBox(180, 200),
    ]);
    expect(await tidyMarks("BT /FV 10 Tf 100 200 Td [<0001> 1000 <0002>] TJ ET", vertical)).toEqual([
      glyphBox(170, 200),
    ]);
  });

  it("shows nothing for an empty string but still moves for TJ adjustments", async () => {
    expect(await tidyMarks("BT /F1 10 Tf 0 100 Td () Tj [-1000] TJ (a) Tj ET")).toEqual([text(10, 16, 100)]);
  });
});

describe("findInk: paths", () => {
  it("fills and strokes paths; a stroke's box grows by half the line width, scaled by the CTM", async () => {
    expect(await tidyMarks("10 10 m 60 10 l 60 40 l f")).toEqual([
      { kind: "filled_path", bounds: box(10, 10, 60, 40), within: [] },
    ]);
    expect(await tidyMarks("q 2 0 0 2 0 0 cm 10 w 10 10 m 20 10 l S Q")).toEqual([
      { kind: "stroked_path", bounds: box(10, 10, 50, 30), within: [] },
    ]);
    expect(await tidyMarks("0 w 10 10 m 20 10 l S")).toEqual([
      { kind: "stroked_path", bounds: box(10, 10, 20, 10), within: [] },
    ]);
  });

  it("takes the line width from an ExtGState", async () => {
    const found = await tidyMarks("/GS0 gs 10 10 m 20 10 l S", (p) =>
      addResource(p, "ExtGState", "GS0", { Type: "ExtGState", LW: 4 }),
    );
    expect(found).toEqual([{ kind: "stroked_path", bounds: box(8, 8, 22, 12), within: [] }]);
  });

  it("bounds curves (c, v, y) tightly", async () => {
    expect(await tidyMarks("0 w 0 0 m 0 100 100 100 100 0 c S")).toEqual([
      { kind: "stroked_path", bounds: box(0, 0, 100, 75), within: [] },
    ]);
    const [v] = await marks("0 0 m 100 100 100 0 v f");
    expect(v!.bounds.y1).toBeCloseTo(44.444, 2);
    const [y] = await marks("0 0 m 0 100 100 0 y f");
    expect(y!.bounds.y1).toBeCloseTo(44.444, 2);
  });

  it("reports fill and stroke of B, b, B*, b* separately, and nothing for n", async () => {
    const kinds = async (op: string) => (await marks(`10 10 50 50 re ${op}`)).map((m) => m.kind);
    for (const op of ["B", "B*", "b", "b*"]) expect(await kinds(op)).toEqual(["filled_path", "stroked_path"]);
    for (const op of ["f", "F", "f*"]) expect(await kinds(op)).toEqual(["filled_path"]);
    for (const op of ["S", "s"]) expect(await kinds(op)).toEqual(["stroked_path"]);
    expect(await kinds("n")).toEqual([]);
  });

  it("lays no ink with pure white paint, in any way of setting it", async () => {
    const white = [
      "1 g 10 10 50 50 re f",
      "1 1 1 rg 10 10 50 50 re f",
      "0 0 0 0 k 10 10 50 50 re f",
      "1 G 10 10 m 60 60 l S",
      "1 1 1 RG 10 10 m 60 60 l S",
      "0 0 0 0 K 10 10 m 60 60 l S",
      "/DeviceRGB cs 1 1 1 sc 10 10 50 50 re f",
      "/DeviceCMYK cs 0 0 0 0 scn 10 10 50 50 re f",
      "/DeviceGray CS 1 SC 10 10 m 60 60 l S",
      "1 g 1 G 10 10 50 50 re B",
    ];
    for (const content of white)
      expect({ content, marks: await marks(content) }).toEqual({ content, marks: [] });
  });

  it("lays ink with any other paint: near white, patterns, a space's initial colour", async () => {
    const inked = [
      "0.99 g 10 10 50 50 re f",
      "1 1 0.9 rg 10 10 50 50 re f",
      "0 0 0 0.02 k 10 10 50 50 re f",
      "/DeviceRGB cs 10 10 50 50 re f",
      "/Pattern cs /P0 scn 10 10 50 50 re f",
      "1 1 1 rg /DeviceCMYK cs 10 10 50 50 re f",
    ];
    for (const content of inked) {
      expect({ content, kinds: (await marks(content)).map((m) => m.kind) }).toEqual({
        content,
        kinds: ["filled_path"],
      });
    }
    expect((await marks("1 g 0 G 10 10 50 50 re B")).map((m) => m.kind)).toEqual(["stroked_path"]);
    expect((await marks("0 g 1 G 10 10 50 50 re B")).map((m) => m.kind)).toEqual(["filled_path"]);
  });

  it("restores colour, CTM, line width and clip with Q, and ignores an unmatched Q", async () => {
    expect(await tidyMarks("q 1 g 5 w 2 0 0 2 0 0 cm 0 0 1 1 re W n Q Q 10 10 m 20 10 l S")).toEqual([
      { kind: "stroked_path", bounds: box(9.5, 9.5, 20.5, 10.5), within: [] },
    ]);
    expect(await tidyMarks("q 1 0 0 1 100 0 cm q Q 0 0 10 10 re f Q")).toEqual([
      { kind: "filled_path", bounds: box(100, 0, 110, 10), within: [] },
    ]);
  });

  it("cuts marks to the clipping path's box, applied after the path it comes with is painted", async () => {
    expect(await tidyMarks("0 0 100 100 re W f 50 50 100 100 re f")).toEqual([
      { kind: "filled_path", bounds: box(0, 0, 100, 100), within: [] },
      { kind: "filled_path", bounds: box(50, 50, 100, 100), within: [] },
    ]);
    expect(await tidyMarks("0 0 100 100 re W* n 20 20 m 50 50 l W n 0 0 450 306 re f")).toEqual([
      { kind: "filled_path", bounds: box(20, 20, 50, 50), within: [] },
    ]);
    expect(await tidyMarks("0 0 10 10 re W n 20 20 10 10 re f")).toEqual([]);
  });

  it("cuts marks to the canvas", async () => {
    expect(await tidyMarks("-50 -50 100 100 re f 500 10 10 10 re f")).toEqual([
      { kind: "filled_path", bounds: box(0, 0, 50, 50), within: [] },
    ]);
  });

  it("reads content split over several streams as one", async () => {
    expect(await tidyMarks(["q 1 0 0 1 100 0 cm", "0 0 10 10 re f Q"])).toEqual([
      { kind: "filled_path", bounds: box(100, 0, 110, 10), within: [] },
    ]);
  });
});

describe("findInk: images, forms, shadings, annotations", () => {
  it("draws an image XObject and an inline image as the unit square under the CTM", async () => {
    const found = await tidyMarks(
      "q 60 0 0 40 100 50 cm /Im0 Do Q q 0 20 -30 0 200 10 cm BI /W 1 /H 1 /CS /G /BPC 8 ID x EI Q",
      async ({ doc, page }) => {
        const image = await doc.embedPng(gradientPng(4, 4));
        page.node.setXObject(PDFName.of("Im0"), image.ref);
      },
    );
    expect(found).toEqual([
      { kind: "image", bounds: box(100, 50, 160, 90), within: [] },
      { kind: "inline_image", bounds: box(170, 10, 200, 30), within: [] },
    ]);
  });

  it("follows form XObjects under their /Matrix and the CTM, cut to their /BBox, with their own resources", async () => {
    const found = await tidyMarks("q 1 0 0 1 100 100 cm /Fm0 Do Q", (p) => {
      const inner = p.doc.context.register(
        p.doc.context.stream("BT /F9 10 Tf 0 0 Td (ab) Tj ET", {
          Type: "XObject",
          Subtype: "Form",
          BBox: [0, -5, 100, 20],
          Resources: { Font: { F9: COURIER } },
        }),
      );
      addForm(p, "Fm0", "0 0 40 40 re f q 1 0 0 1 5 5 cm /Fm1 Do Q", {
        Matrix: [2, 0, 0, 2, 0, 0],
        BBox: [0, 0, 30, 30],
        Resources: { XObject: { Fm1: inner } },
      });
    });
    expect(found).toEqual([
      { kind: "filled_path", bounds: box(100, 100, 160, 160), within: ["form XObject /Fm0"] },
      {
        kind: "text",
        bounds: box(110, 110 + 2 * D * 10, 134, 110 + 2 * A * 10),
        within: ["form XObject /Fm0", "form XObject /Fm1"],
      },
    ]);
  });

  it("uses the page's resources in a form without its own, and skips a form that draws itself", async () => {
    const found = await tidyMarks("/Fm0 Do", (p) =>
      addForm(p, "Fm0", "BT /F1 10 Tf 0 100 Td (a) Tj ET /Fm0 Do"),
    );
    expect(found).toEqual([{ ...text(0, 6, 100), within: ["form XObject /Fm0"] }]);
  });

  it("gives up on forms nested too deeply or drawn too many times", async () => {
    const chain = (depth: number, copies: number) => (p: Page) => {
      let next: ReturnType<typeof p.doc.context.register> | undefined;
      for (let i = depth; i >= 0; i--) {
        const draw = next === undefined ? "0 0 1 1 re f" : "/X Do ".repeat(copies);
        const dict: Record<string, unknown> = { Type: "XObject", Subtype: "Form", BBox: [0, 0, 10, 10] };
        if (next !== undefined) dict.Resources = { XObject: { X: next } };
        next = p.doc.context.register(p.doc.context.stream(draw, dict as DictLiteral));
      }
      p.page.node.setXObject(PDFName.of("X"), next!);
    };
    await expect(marks("/X Do", chain(30, 1))).rejects.toThrow(/nest deeper than 24/);
    await expect(marks("/X Do", chain(12, 4))).rejects.toThrow(/more than 10000 form XObjects/);
    expect(await marks("/X Do", chain(20, 1))).toHaveLength(1);
  });

  it("gives up on more than a million operators, counting a form's each time it is drawn", async () => {
    const forms = (p: Page) => {
      const leaf = p.doc.context.register(
        p.doc.context.stream("0 0 m ".repeat(150), { Type: "XObject", Subtype: "Form", BBox: [0, 0, 1, 1] }),
      );
      addForm(p, "Fm0", "/L Do ".repeat(100), { Resources: { XObject: { L: leaf } } });
    };
    const attempt = marks("/Fm0 Do ".repeat(90), forms);
    const refusal = await attempt.catch((error: unknown) => error);
    expect(PostcardError.isInstance(refusal) && refusal.code).toBe("content_too_complex");
    await expect(attempt).rejects.toThrow(/more than 1000000 operators/);
    expect(await marks("/Fm0 Do ".repeat(60), forms)).toEqual([]);
  });

  it("paints a shading over its /BBox or else over the whole clip", async () => {
    const shading = (extra: Record<string, unknown>) => (p: Page) =>
      addResource(p, "Shading", "Sh0", {
        ShadingType: 2,
        ColorSpace: "DeviceRGB",
        Coords: [0, 0, 100, 0],
        Function: { FunctionType: 2, Domain: [0, 1], C0: [1, 0, 0], C1: [0, 0, 1], N: 1 },
        ...extra,
      });
    expect(await tidyMarks("/Sh0 sh", shading({}))).toEqual([
      { kind: "shading", bounds: box(0, 0, 450, 306), within: [] },
    ]);
    expect(await tidyMarks("q 10 10 50 50 re W n /Sh0 sh Q", shading({}))).toEqual([
      { kind: "shading", bounds: box(10, 10, 60, 60), within: [] },
    ]);
    expect(await tidyMarks("q 1 0 0 1 100 0 cm /Sh0 sh Q", shading({ BBox: [0, 0, 20, 30] }))).toEqual([
      { kind: "shading", bounds: box(100, 0, 120, 30), within: [] },
    ]);
    expect(await tidyMarks("/Missing sh")).toEqual([]);
  });

  it("draws the appearance of printable, visible annotations fitted to their /Rect", async () => {
    const annotation = (flags: number, state?: string) => (p: Page) => {
      const appearance = p.doc.context.register(
        p.doc.context.stream("0 0 10 10 re f", { Type: "XObject", Subtype: "Form", BBox: [0, 0, 10, 10] }),
      );
      const ap = state === undefined ? { N: appearance } : { N: { On: appearance } };
      const annot = pdfDict(p.doc, {
        Type: "Annot",
        Subtype: "Stamp",
        Rect: [100, 100, 200, 150],
        F: flags,
        AP: ap,
        ...(state === undefined ? {} : { AS: state }),
      });
      p.page.node.addAnnot(p.doc.context.register(annot));
    };
    const stamp = [{ kind: "filled_path", bounds: box(100, 100, 200, 150), within: ["annotation /Stamp"] }];
    expect(await tidyMarks("", annotation(4))).toEqual(stamp);
    expect(await tidyMarks("", annotation(4, "On"))).toEqual(stamp);
    expect(await tidyMarks("", annotation(4, "Off"))).toEqual([]);
    expect(await tidyMarks("", annotation(0))).toEqual([]);
    expect(await tidyMarks("", annotation(4 | 2))).toEqual([]);
  });

  it("finds resources inherited from the page tree", async () => {
    const found = await tidyMarks("BT /F7 10 Tf 0 100 Td (a) Tj ET", ({ doc, page }) => {
      page.node.delete(PDFName.of("Resources"));
      const pages = doc.catalog.Pages();
      pages.set(PDFName.of("Resources"), doc.context.obj({ Font: { F7: COURIER } }));
    });
    expect(found).toEqual([text(0, 6, 100)]);
  });

  it("stops at the first mark the caller wants", async () => {
    const doc = await PDFDocument.create();
    const page = doc.addPage([450, 306]);
    addContent({ doc, page }, "0 0 10 10 re f 20 20 10 10 re f 40 40 10 10 re f");
    const loaded = await PDFDocument.load(await doc.save());
    const seen: InkMark[] = [];
    const first = findInk(
      {
        reader: new PdfReader(loaded.context),
        page: loaded.getPages()[0]!.node,
        toCanvas: IDENTITY,
        canvas: { x0: 0, y0: 0, x1: 450, y1: 306 },
      },
      (m) => {
        seen.push(m);
        return m.bounds.x0 >= 20;
      },
    );
    expect(first?.bounds).toEqual(box(20, 20, 30, 30));
    expect(seen).toHaveLength(2);
  });
});
