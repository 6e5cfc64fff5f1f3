import { describe, expect, it } from "vitest";
import { describeCharacters, unprintableCharacters } from "./printable-text.ts";

describe("unprintableCharacters", () => {
  it("finds emoji, flags, skin tones and keycaps", () => {
    expect(unprintableCharacters("Party 🎉 in 🇩🇪 👍🏽 1️⃣ ✅")).toEqual(["🎉", "🇩", "🇪", "👍", "🏽", "⃣", "✅"]);
  });

  it("finds control characters, lone surrogates, private-use characters and noncharacters", () => {
    expect(unprintableCharacters("a\u0000b\u001Fc\u007Fd\u0085")).toEqual([
      "\u0000",
      "\u001F",
      "\u007F",
      "\u0085",
    ]);
    expect(unprintableCharacters("a\ud800b\udc00")).toEqual(["\ud800", "\udc00"]);
    expect(unprintableCharacters("\uE000\u{F0000}")).toEqual(["\uE000", "\u{F0000}"]);
    expect(unprintableCharacters("\uFFFE\uFDD0\u{10FFFF}")).toEqual(["\uFFFE", "\uFDD0", "\u{10FFFF}"]);
  });

  it("allows letters of every script, symbols printed as text, tabs and line breaks", () => {
    expect(unprintableCharacters("Zoë Łódź Straße Ørsted «Ünal» © ® ™ ♥ № €\t\r\n 𝐀 日本")).toEqual([]);
  });

  it("lists each character once", () => {
    expect(unprintableCharacters("🎉🎉🎉")).toEqual(["🎉"]);
  });
});

describe("describeCharacters", () => {
  it("shows each character with its code point, at most five", () => {
    expect(describeCharacters(["🎉", "\u0000"])).toBe('"🎉" (U+1F389), "\\u0000" (U+0000)');
    expect(describeCharacters(["a", "b", "c", "d", "e", "f", "g"])).toContain("and 2 more");
  });
});
