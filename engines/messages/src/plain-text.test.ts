import { describe, expect, it } from "vitest";
import { hasControl, oneLine, toSubject } from "./plain-text.ts";

describe("oneLine", () => {
  it("turns line breaks, tabs and other control characters into single spaces and trims", () => {
    expect(oneLine("  Grace\r\nHopper\t\tDC\u2028x\u0000y\u0085z\u007f ")).toBe("Grace Hopper DC x y z");
    expect(oneLine("a\u00a0\u00a0b")).toBe("a b");
    expect(oneLine("\r\n\t")).toBe("");
  });
});

describe("toSubject", () => {
  it("keeps no control character and no line break", () => {
    const subject = toSubject("Receipt\r\nBcc: victim@example.com\u0000\u2029for you");
    expect(subject).toBe("Receipt Bcc: victim@example.com for you");
    expect(hasControl(subject)).toBe(false);
  });

  it("clamps to 998 characters without splitting a surrogate pair or ending in a space", () => {
    expect(toSubject("x".repeat(2000))).toHaveLength(998);
    const pairAtTheCut = toSubject(`${"x".repeat(997)}😀tail`);
    expect(pairAtTheCut).toBe("x".repeat(997));
    const spaceAtTheCut = toSubject(`${"x".repeat(997)} yz`);
    expect(spaceAtTheCut).toBe("x".repeat(997));
    expect(toSubject("short")).toBe("short");
  });
});
