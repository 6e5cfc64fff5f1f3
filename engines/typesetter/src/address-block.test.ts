import { beforeAll, describe, expect, it } from "vitest";
import { ADDRESS_LEADING, addressLines, fitAddressBlock } from "./address-block.ts";
import { TypesetterError } from "./errors.ts";
import type { FontFace } from "./fonts.ts";
import { loadFace } from "./fonts.ts";
import { RECIPIENT_WINDOW, RETURN_WINDOW } from "./page-geometry.ts";

let face: FontFace;

beforeAll(async () => {
  face = await loadFace("tinos-regular");
});

function refusal(fn: () => unknown): TypesetterError {
  try {
    fn();
  } catch (error) {
    if (TypesetterError.isInstance(error)) return error;
    throw error;
  }
  throw new Error("expected a TypesetterError");
}

function bottomOf(lines: { size: number; baseline: number }[]): number {
  const last = lines[lines.length - 1]!;
  return last.baseline + face.descent * last.size;
}

describe("fitAddressBlock", () => {
  it("sets a usual address at 10 pt from the top left of the window", () => {
    const lines = fitAddressBlock(
      ["Ann Lee", "1 Main St", "Springfield, IL 62701"],
      face,
      RECIPIENT_WINDOW,
      "recipient",
    );
    expect(lines.map((line) => line.size)).toEqual([10, 10, 10]);
    expect(lines[0]?.x).toBe(RECIPIENT_WINDOW.x);
    expect(lines[0]!.baseline - face.ascent * 10).toBeCloseTo(RECIPIENT_WINDOW.top, 9);
    expect(lines[1]!.baseline - lines[0]!.baseline).toBeCloseTo(10 * ADDRESS_LEADING, 9);
  });

  it("shrinks a six-line address until it fits the window height", () => {
    const six = ["Name", "Company", "Department", "Street 1", "City", "Country"];
    const lines = fitAddressBlock(six, face, RECIPIENT_WINDOW, "recipient");
    expect(lines[0]!.size).toBeLessThan(10);
    expect(lines[0]!.size).toBeGreaterThanOrEqual(8);
    expect(bottomOf(lines)).toBeLessThanOrEqual(RECIPIENT_WINDOW.top + RECIPIENT_WINDOW.height);
  });

  it("shrinks a wide line until it fits the window width", () => {
    const wide = "Department of Administrative Services, Building C, Room 4012";
    expect(face.widthOf(wide, 10)).toBeGreaterThan(RECIPIENT_WINDOW.width);
    const lines = fitAddressBlock(["Ann Lee", wide], face, RECIPIENT_WINDOW, "recipient");
    expect(face.widthOf(wide, lines[1]!.size)).toBeLessThanOrEqual(RECIPIENT_WINDOW.width);
  });

  it("refuses an address with too many lines for the window, even at 8 pt", () => {
    const seven = ["1", "2", "3", "4", "5", "6", "7"];
    const error = refusal(() => fitAddressBlock(seven, face, RECIPIENT_WINDOW, "recipient"));
    expect(error.code).toBe("address_too_long_for_window");
    expect(error.field).toBe("recipient");
    expect(error.message).toContain("7 lines");
  });

  it("refuses a line too wide for the window, even at 8 pt, naming the line", () => {
    const line =
      "The Extraordinarily Long Name of an Organisation That Never Ends, Incorporated, Worldwide Division";
    const error = refusal(() => fitAddressBlock(["Ann", line], face, RETURN_WINDOW, "sender"));
    expect(error.code).toBe("address_too_long_for_window");
    expect(error.field).toBe("sender");
    expect(error.message).toContain("Line 2");
  });

  it("sets nothing for an empty address", () => {
    expect(fitAddressBlock([], face, RECIPIENT_WINDOW, "recipient")).toEqual([]);
  });
});

describe("addressLines", () => {
  it("trims, normalizes and drops empty lines", () => {
    expect(addressLines(["  Zoe\u0308 ", "", "   ", "1 Main\tSt"])).toEqual(["Zoë", "1 Main    St"]);
  });
});
