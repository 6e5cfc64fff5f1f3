import { describe, expect, it } from "vitest";
import { formatPhone, parsePhone } from "./phone.ts";

const e164 = (text: string, country?: string) => {
  const phone = parsePhone(text, country);
  return phone === undefined ? undefined : formatPhone(phone);
};

describe("parsePhone", () => {
  it.each([
    ["(217) 555-0142", "+12175550142"],
    ["217-555-0142", "+12175550142"],
    ["217.555.0142", "+12175550142"],
    ["2175550142", "+12175550142"],
    ["1 (217) 555-0142", "+12175550142"],
    ["+1 217 555 0142", "+12175550142"],
    ["+1 (217) 555-0142", "+12175550142"],
    ["+44 20 7946 0958", "+442079460958"],
    ["+44 (0) 20 7946 0958", "+442079460958"],
    ["217.555.0142 x12", "+12175550142 ext. 12"],
    ["217-555-0142 ext. 12", "+12175550142 ext. 12"],
  ])("reads %s as %s (US by default)", (text, expected) => {
    expect(e164(text)).toBe(expected);
  });

  it("reads a national number in the country given", () => {
    expect(e164("020 7946 0958", "GB")).toBe("+442079460958");
    expect(e164("020 7946 0958", "US")).toBeUndefined();
    expect(e164("+1 217 555 0142", "GB")).toBe("+12175550142");
  });

  it("takes only international numbers for a country it has no numbering plan for", () => {
    expect(e164("217 555 0142", "ZZ")).toBeUndefined();
    expect(e164("+1 217 555 0142", "ZZ")).toBe("+12175550142");
  });

  it.each([
    "555",
    "12345",
    "555-0142",
    "call me",
    "217-555-01a2",
    "+1 217 555 0142abc",
    "call 217-555-0142",
    "++1 217 555 0142",
    "217 555 0142 ext",
    "217 555 0142 5",
    "+1 217 555 0142 9999 99",
    "+999 1234567",
  ])("refuses %s", (text) => {
    expect(parsePhone(text, "US")).toBeUndefined();
  });

  it("splits the number from its extension", () => {
    expect(parsePhone("(217) 555-0142 ext. 7", "US")).toEqual({ e164: "+12175550142", extension: "7" });
    expect(parsePhone("(217) 555-0142", "US")).toEqual({ e164: "+12175550142" });
  });
});
