import { beforeAll, describe, expect, it } from "vitest";
import type { Block } from "./blocks.ts";
import type { FaceRole, FontFace } from "./fonts.ts";
import { loadFace } from "./fonts.ts";
import type { LayoutInput } from "./layout.ts";
import { BODY_LEADING, DRAWN_SIGNATURE_BOX, layoutLetter } from "./layout.ts";
import { FIRST_PAGE_BODY_TOP, LETTER_PAGE, RECIPIENT_WINDOW } from "./page-geometry.ts";

let faces: Record<FaceRole, FontFace>;

beforeAll(async () => {
  const regular = await loadFace("arimo-regular");
  faces = { regular, bold: await loadFace("arimo-bold"), signature: await loadFace("caveat-regular") };
});

function paragraphs(count: number): Block[] {
  return Array.from({ length: count }, (_, index) => ({
    kind: "paragraph",
    runs: [{ text: `Paragraph ${index + 1}`, style: "regular" }],
  }));
}

function input(overrides: Partial<LayoutInput> = {}): LayoutInput {
  return { blocks: paragraphs(3), font_size: 10, margin_in: 1, ...overrides };
}

describe("layoutLetter", () => {
  it("starts the body below the address area on page 1 and at the top margin after", () => {
    const layout = layoutLetter(input({ blocks: paragraphs(120) }), faces);
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
        blocks: paragraphs(120),
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
    const layout = layoutLetter(input({ blocks: paragraphs(120), watermark: "TEST MODE" }), faces);
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
