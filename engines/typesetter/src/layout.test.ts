import { beforeAll, describe, expect, it } from "vitest";
import type { Block } from "./blocks.ts";
import type { FaceRole, FontFace } from "./fonts.ts";
import { loadFace } from "./fonts.ts";
import type { LayoutInput } from "./layout.ts";
import {
  BODY_LEADING,
  BULLETS,
  DRAWN_SIGNATURE_BOX,
  HEADING_SCALE,
  layoutLetter,
  MIN_NESTED_WIDTH,
} from "./layout.ts";
import { FIRST_PAGE_BODY_TOP, LETTER_PAGE, RECIPIENT_WINDOW } from "./page-geometry.ts";

let faces: Record<FaceRole, FontFace>;

beforeAll(async () => {
  faces = {
    regular: await loadFace("arimo-regular"),
    bold: await loadFace("arimo-bold"),
    italic: await loadFace("arimo-italic"),
    "bold-italic": await loadFace("arimo-bold-italic"),
    signature: await loadFace("caveat-regular"),
  };
});

function lines(count: number): Block[] {
  return Array.from({ length: count }, (_, index) => ({
    kind: "line",
    runs: [{ text: `Paragraph ${index + 1}`, style: "regular" }],
  }));
}

function input(overrides: Partial<LayoutInput> = {}): LayoutInput {
  return { blocks: lines(3), font_size: 10, margin_in: 1, ...overrides };
}

describe("layoutLetter", () => {
  it("starts the body below the address area on page 1 and at the top margin after", () => {
    const layout = layoutLetter(input({ blocks: lines(120) }), faces);
    expect(layout.pages.length).toBeGreaterThan(2);
    const firstBaseline = (page: number) =>
      Math.min(...layout.pages[page]!.texts.map((text) => text.baseline));
    const ascent = faces.regular.ascent * 10;
    expect(firstBaseline(0) - ascent).toBeGreaterThanOrEqual(FIRST_PAGE_BODY_TOP);
    expect(firstBaseline(0) - ascent).toBeLessThan(FIRST_PAGE_BODY_TOP + 2);
    expect(firstBaseline(1) - ascent).toBeGreaterThanOrEqual(72);
    expect(firstBaseline(1) - ascent).toBeLessThan(74);
  });

  it("puts the addresses on page 1 only", () => {
    const layout = layoutLetter(
      input({
        blocks: lines(120),
        recipient: ["Ann Lee", "1 Main St"],
        sender: ["Bob Roe", "2 Oak Ave"],
      }),
      faces,
    );
    const texts = (page: number) => layout.pages[page]!.texts.map((text) => text.text);
    expect(texts(0)).toEqual(expect.arrayContaining(["Ann Lee", "1 Main St", "Bob Roe", "2 Oak Ave"]));
    expect(texts(1)).not.toContain("Ann Lee");
    const recipient = layout.pages[0]!.texts.find((text) => text.text === "Ann Lee")!;
    expect(recipient.x).toBe(RECIPIENT_WINDOW.x);
  });

  it("scales a drawn signature into its box and places it one line below the body", () => {
    const layout = layoutLetter(input({ signature: { kind: "drawn", width: 400, height: 100 } }), faces);
    const [image] = layout.pages[0]!.images;
    expect(image).toBeDefined();
    expect(image!.width).toBeCloseTo(DRAWN_SIGNATURE_BOX.width, 6);
    expect(image!.height).toBeCloseTo(DRAWN_SIGNATURE_BOX.width / 4, 6);
    expect(image!.x).toBe(72);
    const lastLine = layout.pages[0]!.texts.at(-1)!;
    const lastLineBottom = lastLine.baseline + faces.regular.descent * 10;
    expect(image!.top).toBeGreaterThan(lastLineBottom + 10 * BODY_LEADING * 0.9);
  });

  it("keeps a tall drawn signature within its box height", () => {
    const layout = layoutLetter(input({ signature: { kind: "drawn", width: 10, height: 100 } }), faces);
    const [image] = layout.pages[0]!.images;
    expect(image!.height).toBeCloseTo(DRAWN_SIGNATURE_BOX.height, 6);
    expect(image!.width).toBeCloseTo(DRAWN_SIGNATURE_BOX.height / 10, 6);
  });

  it("centres a diagonal watermark on every page, beneath everything else", () => {
    const layout = layoutLetter(input({ blocks: lines(120), watermark: "TEST MODE" }), faces);
    for (const page of layout.pages) {
      const mark = page.texts[0]!;
      expect(mark).toMatchObject({ text: "TEST MODE", tone: "watermark", face: "bold" });
      const angle = ((mark.rotate ?? 0) * Math.PI) / 180;
      expect(angle).toBeCloseTo(Math.atan2(LETTER_PAGE.height, LETTER_PAGE.width), 9);
      const width = faces.bold.widthOf(mark.text, mark.size);
      const cap = faces.bold.capHeight * mark.size;
      const startY = LETTER_PAGE.height - mark.baseline;
      const centreX = mark.x + (width / 2) * Math.cos(angle) - (cap / 2) * Math.sin(angle);
      const centreY = startY + (width / 2) * Math.sin(angle) + (cap / 2) * Math.cos(angle);
      expect(centreX).toBeCloseTo(LETTER_PAGE.width / 2, 6);
      expect(centreY).toBeCloseTo(LETTER_PAGE.height / 2, 6);
      expect(page.texts.slice(1).every((text) => text.tone === "ink")).toBe(true);
    }
  });

  it("sets the title in bold, two points larger, before the body", () => {
    const layout = layoutLetter(input({ title: "Notice" }), faces);
    const [title, ...rest] = layout.pages[0]!.texts;
    expect(title).toMatchObject({ text: "Notice", face: "bold", size: 12 });
    expect(rest[0]!.baseline).toBeGreaterThan(title!.baseline + 10 * BODY_LEADING);
  });
});

const run = (text: string) => ({ text, style: "regular" as const });
const paragraph = (text: string): Block => ({ kind: "paragraph", runs: [run(text)] });
const LEAD = 10 * BODY_LEADING;

/** The baseline of the first text that reads `text`, and its page. */
function find(
  layout: ReturnType<typeof layoutLetter>,
  text: string,
): { page: number; baseline: number; x: number } {
  for (const [page, laid] of layout.pages.entries()) {
    const hit = laid.texts.find((candidate) => candidate.text === text);
    if (hit) return { page, baseline: hit.baseline, x: hit.x };
  }
  throw new Error(`no text "${text}"`);
}

describe("layoutLetter: formatted blocks", () => {
  it("sets paragraphs a line apart, plain-text lines with no space, and none between a line and a paragraph", () => {
    const layout = layoutLetter(
      input({ blocks: [paragraph("P1"), paragraph("P2"), ...lines(2), paragraph("P3")] }),
      faces,
    );
    const at = (text: string) => find(layout, text).baseline;
    expect(at("P2") - at("P1")).toBeCloseTo(2 * LEAD, 9);
    expect(at("Paragraph 1") - at("P2")).toBeCloseTo(LEAD, 9);
    expect(at("Paragraph 2") - at("Paragraph 1")).toBeCloseTo(LEAD, 9);
    expect(at("P3") - at("Paragraph 2")).toBeCloseTo(LEAD, 9);
  });

  it("sets headings in bold by level, half a line above what follows", () => {
    const layout = layoutLetter(
      input({
        blocks: [
          { kind: "heading", level: 1, runs: [{ text: "H1", style: "italic" }] },
          paragraph("after"),
          { kind: "heading", level: 3, runs: [run("H3")] },
        ],
      }),
      faces,
    );
    const h1 = layout.pages[0]!.texts.find((text) => text.text === "H1")!;
    expect(h1).toMatchObject({ face: "bold-italic", size: 10 * HEADING_SCALE[1] });
    expect(layout.pages[0]!.texts.find((text) => text.text === "H3")).toMatchObject({
      face: "bold",
      size: 11,
    });
    const h1Lead = 15 * BODY_LEADING;
    const gap = find(layout, "after").baseline - h1.baseline;
    expect(gap).toBeGreaterThan(h1Lead / 2 + LEAD / 2);
    expect(gap).toBeLessThan(h1Lead + LEAD);
  });

  it("keeps a heading on the page of the line after it", () => {
    // Page 1 holds 486 pt: 38 lines (456 pt), a line's space and the heading (13.2 pt) fit, the next line does not.
    const blocks: Block[] = [
      { kind: "quote", blocks: lines(38) },
      { kind: "heading", level: 3, runs: [run("Heading")] },
      paragraph("Body"),
    ];
    const layout = layoutLetter(input({ blocks }), faces);
    expect(find(layout, "Paragraph 38").page).toBe(0);
    expect(find(layout, "Heading").page).toBe(1);
    expect(find(layout, "Body").page).toBe(1);
    expect(find(layout, "Heading").baseline).toBeLessThan(72 + 13.2);
  });

  it("hangs list markers in the indent, bullets by depth, numbers from the start, indenting nested lists", () => {
    const layout = layoutLetter(
      input({
        blocks: [
          {
            kind: "list",
            ordered: true,
            start: 9,
            items: [
              [paragraph("nine")],
              [
                paragraph("ten"),
                {
                  kind: "list",
                  ordered: false,
                  start: 1,
                  items: [
                    [
                      paragraph("inner"),
                      { kind: "list", ordered: false, start: 1, items: [[paragraph("deep")]] },
                    ],
                  ],
                },
              ],
            ],
          },
        ],
      }),
      faces,
    );
    const nine = find(layout, "nine");
    const marker9 = find(layout, "9.");
    const marker10 = find(layout, "10.");
    expect(marker9.baseline).toBe(nine.baseline);
    expect(nine.x).toBeCloseTo(72 + 20, 9);
    expect(find(layout, "ten").x).toBe(nine.x);
    const gap = 5;
    expect(marker10.x + faces.regular.widthOf("10.", 10)).toBeCloseTo(nine.x - gap, 9);
    expect(marker9.x + faces.regular.widthOf("9.", 10)).toBeCloseTo(nine.x - gap, 9);
    expect(find(layout, BULLETS[1]).baseline).toBe(find(layout, "inner").baseline);
    expect(find(layout, "inner").x).toBeCloseTo(nine.x + 20, 9);
    expect(find(layout, BULLETS[2]).baseline).toBe(find(layout, "deep").baseline);
    expect(find(layout, "ten").baseline - nine.baseline).toBeCloseTo(LEAD, 9);
  });

  it("widens the indent for markers wider than it", () => {
    const items = Array.from({ length: 1000 }, (_, index) => [paragraph(`i${index}`)]);
    const layout = layoutLetter(input({ blocks: [{ kind: "list", ordered: true, start: 1, items }] }), faces);
    const widest = faces.regular.widthOf("1000.", 10);
    expect(find(layout, "i0").x).toBeCloseTo(72 + widest + 5, 9);
    expect(find(layout, "1000.").x).toBeCloseTo(72, 9);
  });

  it("indents quotations and draws rules across the measure", () => {
    const layout = layoutLetter(
      input({ blocks: [{ kind: "quote", blocks: [paragraph("quoted")] }, { kind: "rule" }] }),
      faces,
    );
    expect(find(layout, "quoted").x).toBeCloseTo(72 + 20, 9);
    const [rule] = layout.pages[0]!.rules;
    expect(rule).toMatchObject({ x1: 72, x2: LETTER_PAGE.width - 72 });
    expect(rule!.y1).toBe(rule!.y2);
    expect(rule!.y1).toBeGreaterThan(find(layout, "quoted").baseline + LEAD);
  });

  it("repeats a table's header row at the top of every page it runs onto", () => {
    const rows = [
      { cells: [[run("Head")]] },
      ...Array.from({ length: 120 }, (_, index) => ({ cells: [[run(`r${index}`)]] })),
    ];
    const layout = layoutLetter(input({ blocks: [{ kind: "table", rows, headerRows: 1 }] }), faces);
    expect(layout.pages.length).toBeGreaterThan(2);
    for (const page of layout.pages) {
      const texts = page.texts.filter((text) => text.tone === "ink");
      expect(texts[0]!.text).toBe("Head");
      expect(texts.filter((text) => text.text === "Head")).toHaveLength(1);
    }
    const all = layout.pages
      .flatMap((page) => page.texts.map((text) => text.text))
      .filter((text) => text !== "Head");
    expect(all).toEqual(rows.slice(1).map((row) => row.cells[0]![0]!.text));
  });

  it("sets the addresses alone on page 1 and the body from the top margin of page 2 when asked", () => {
    const layout = layoutLetter(
      input({
        address_placement: "separate_page",
        recipient: ["Ann Lee", "1 Main St"],
        watermark: "TEST",
        blocks: lines(2),
      }),
      faces,
    );
    expect(layout.pages).toHaveLength(2);
    expect(layout.pages[0]!.texts.map((text) => text.text)).toEqual(["TEST", "Ann Lee", "1 Main St"]);
    const first = find(layout, "Paragraph 1");
    expect(first.page).toBe(1);
    expect(first.baseline - faces.regular.ascent * 10).toBeGreaterThanOrEqual(72);
    expect(first.baseline - faces.regular.ascent * 10).toBeLessThan(74);
  });

  it("stops indenting nested lists where the text would be narrower than two inches", () => {
    let block: Block = { kind: "list", ordered: false, start: 1, items: [[paragraph("deepest")]] };
    for (let level = 0; level < 40; level++) {
      block = { kind: "list", ordered: false, start: 1, items: [[paragraph(`level${level}`), block]] };
    }
    const layout = layoutLetter(input({ blocks: [block] }), faces);
    const deepest = find(layout, "deepest");
    expect(deepest.x).toBeCloseTo(LETTER_PAGE.width - 72 - MIN_NESTED_WIDTH, 6);
    for (const page of layout.pages)
      for (const text of page.texts) expect(text.x).toBeGreaterThanOrEqual(72 - 0.01);
  });
});
