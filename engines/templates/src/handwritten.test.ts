import { HANDWRITING_STYLES, MAX_HANDWRITTEN_MESSAGE_CHARS } from "@mailpiece/typesetter/light";
import { describe, expect, it } from "vitest";
import { parseHandwrittenRequest } from "./handwritten.ts";

function refusals(parsed: ReturnType<typeof parseHandwrittenRequest>): string[] {
  expect(parsed.ok).toBe(false);
  return parsed.ok ? [] : parsed.issues.map((issue) => `${issue.path} ${issue.code}`);
}

const RECIPIENT = { name: "Grace Hopper", line1: "500 Main St", city: "Columbus", state: "OH", zip: "43215" };

describe("parseHandwrittenRequest", () => {
  it("takes the message and the style, casual by default, and leaves the addresses to the core", () => {
    expect(
      parseHandwrittenRequest({ message: "Thank you!\n\nAna", recipient: RECIPIENT, sender: {} }),
    ).toEqual({
      ok: true,
      value: { message: "Thank you!\n\nAna", style: "casual" },
    });
    for (const style of HANDWRITING_STYLES) {
      expect(parseHandwrittenRequest({ message: "Hi", style })).toEqual({
        ok: true,
        value: { message: "Hi", style },
      });
    }
  });

  it(`takes up to ${MAX_HANDWRITTEN_MESSAGE_CHARS} characters, counted as characters, not UTF-16 units`, () => {
    expect(parseHandwrittenRequest({ message: "😀".repeat(MAX_HANDWRITTEN_MESSAGE_CHARS) }).ok).toBe(true);
    expect(
      refusals(parseHandwrittenRequest({ message: "a".repeat(MAX_HANDWRITTEN_MESSAGE_CHARS + 1) })),
    ).toEqual(["message too_long"]);
  });

  it("refuses a missing, empty, blank or non-text message and an unknown style, each at its field", () => {
    expect(refusals(parseHandwrittenRequest({}))).toEqual(["message required"]);
    expect(refusals(parseHandwrittenRequest({ message: "" }))).toEqual(["message too_short"]);
    expect(refusals(parseHandwrittenRequest({ message: " \n\t " }))).toEqual(["message too_short"]);
    expect(refusals(parseHandwrittenRequest({ message: 42, style: "gothic" }))).toEqual([
      "message invalid_type",
      "style invalid_enum",
    ]);
    expect(refusals(parseHandwrittenRequest({ message: "  ", style: "gothic" }))).toEqual([
      "style invalid_enum",
      "message too_short",
    ]);
    expect(refusals(parseHandwrittenRequest("Hi"))).toEqual([" invalid_type"]);
  });
});
