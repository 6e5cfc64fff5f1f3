import { describe, expect, it } from "vitest";
import { toE164 } from "./phone.ts";

describe("toE164", () => {
  it.each([
    ["(217) 555-0142", "US", "+12175550142"],
    ["217.555.0142", "US", "+12175550142"],
    ["+1 217 555 0142", "GB", "+12175550142"],
    ["+44 20 7946 0958", "US", "+442079460958"],
    ["020 7946 0958", "GB", "+442079460958"],
    ["+1 217 555 0142", "ZZ", "+12175550142"],
  ])("reads %s in %s as %s", (text, country, e164) => {
    expect(toE164(text, country)).toBe(e164);
  });

  it.each([
    ["217-555-0142 ext. 12", "US"],
    ["555-0142", "US"],
    ["020 7946 0958", "US"],
    ["217 555 0142", "ZZ"],
    ["+999 1234567", "US"],
    ["call 217-555-0142", "US"],
  ])("refuses %s in %s", (text, country) => {
    expect(toE164(text, country)).toBeUndefined();
  });
});
