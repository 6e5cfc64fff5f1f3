import { describe, expect, it } from "vitest";
import { loadFace } from "./fonts.ts";
import { furnitureTexts } from "./page-furniture.ts";

const face = await loadFace("tinos-regular");

describe("furnitureTexts", () => {
  it("gives a letter of one body page nothing", () => {
    expect(furnitureTexts(1, { date: "24 November 2026" }, face, 12, 72)).toEqual([[]]);
  });

  it("numbers every page at the foot and heads the later ones with the recipient, the date and the page", () => {
    const pages = furnitureTexts(3, { date: "24 November 2026", recipient: "Grace Hopper" }, face, 12, 72);
    expect(pages.map((texts) => texts.map((text) => text.text))).toEqual([
      ["Page 1 of 3"],
      ["Grace Hopper \u2014 24 November 2026 \u2014 page 2", "Page 2 of 3"],
      ["Grace Hopper \u2014 24 November 2026 \u2014 page 3", "Page 3 of 3"],
    ]);
  });

  it("sets them small, the header in the top margin at the left, the number centred in the bottom margin", () => {
    const [, second] = furnitureTexts(2, { date: "24 November 2026" }, face, 12, 72);
    const [header, footer] = second!;
    expect(header).toMatchObject({ text: "24 November 2026 \u2014 page 2", size: 9, x: 72, face: "regular" });
    expect(header!.baseline).toBeGreaterThan(0);
    expect(header!.baseline).toBeLessThan(72);
    const width = face.widthOf("Page 2 of 2", 9);
    expect(footer!.x).toBeCloseTo((612 - width) / 2, 6);
    expect(footer!.baseline).toBeGreaterThan(792 - 72);
    expect(footer!.baseline).toBeLessThan(792);
  });

  it("never goes below 8 pt, and follows a larger body size", () => {
    expect(furnitureTexts(2, { date: "1 May 2026" }, face, 9, 36)[0]![0]!.size).toBe(8);
    expect(furnitureTexts(2, { date: "1 May 2026" }, face, 14, 36)[0]![0]!.size).toBe(10.5);
  });

  it("leaves the name out of a header too wide for the measure", () => {
    const recipient =
      "Maximilian Alexander Bartholomew Featherstonehaugh-Cholmondeley the Third of Somewhere";
    const [, second] = furnitureTexts(2, { date: "24 November 2026", recipient }, face, 14, 108);
    expect(second![0]!.text).toBe("24 November 2026 \u2014 page 2");
  });
});
