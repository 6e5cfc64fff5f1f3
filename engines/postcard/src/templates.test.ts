import { describe, expect, it } from "vitest";
import { isPostcardSize, POSTCARD_SIZES, POSTCARD_TEMPLATES } from "./templates.ts";

const IN = 72;

describe("POSTCARD_TEMPLATES", () => {
  it("has landscape bleed canvases 0.125 in past the trim and safe areas 0.125 in inside it", () => {
    expect(POSTCARD_TEMPLATES["4x6"].bleed).toEqual({ w: 6.25 * IN, h: 4.25 * IN });
    expect(POSTCARD_TEMPLATES["6x9"].bleed).toEqual({ w: 9.25 * IN, h: 6.25 * IN });
    expect(POSTCARD_TEMPLATES["11x6"].bleed).toEqual({ w: 11.25 * IN, h: 6.25 * IN });
    for (const size of POSTCARD_SIZES) {
      const { trim, bleed, safe } = POSTCARD_TEMPLATES[size];
      expect(bleed.w - trim.w).toBe(0.25 * IN);
      expect(bleed.h - trim.h).toBe(0.25 * IN);
      expect(trim.w - safe.w).toBe(0.25 * IN);
      expect(trim.h - safe.h).toBe(0.25 * IN);
      expect(bleed.w).toBeGreaterThan(bleed.h);
    }
  });

  it("puts the address zone 0.275 in from the right and 0.25 in from the bottom of the bleed canvas", () => {
    expect(POSTCARD_TEMPLATES["4x6"].addressZone).toEqual({ x: 193.8, y: 18, width: 236.4, height: 171 });
    expect(POSTCARD_TEMPLATES["6x9"].addressZone).toEqual({ x: 358.2, y: 18, width: 288, height: 171 });
    expect(POSTCARD_TEMPLATES["11x6"].addressZone).toEqual({ x: 502.2, y: 18, width: 288, height: 171 });
    for (const size of POSTCARD_SIZES) {
      const { bleed, addressZone: z } = POSTCARD_TEMPLATES[size];
      expect(bleed.w - (z.x + z.width)).toBeCloseTo(0.275 * IN, 6);
      expect(z.height).toBe(2.375 * IN);
    }
    expect(POSTCARD_TEMPLATES["4x6"].addressZone.width).toBeCloseTo(3.2835 * IN, 1);
  });

  it("cannot be changed by a caller", () => {
    expect(Object.isFrozen(POSTCARD_TEMPLATES)).toBe(true);
    expect(Object.isFrozen(POSTCARD_TEMPLATES["4x6"].addressZone)).toBe(true);
    expect(() => {
      (POSTCARD_TEMPLATES["4x6"].addressZone as { x: number }).x = 0;
    }).toThrow(TypeError);
  });

  it("recognises the three sizes and nothing else", () => {
    expect(POSTCARD_SIZES.filter(isPostcardSize)).toEqual(["4x6", "6x9", "11x6"]);
    for (const other of ["6x4", "5x7", "", 4, null]) expect(isPostcardSize(other)).toBe(false);
  });
});
