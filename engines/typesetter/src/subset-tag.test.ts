import { describe, expect, it } from "vitest";
import { subsetTag } from "./subset-tag.ts";

describe("subsetTag", () => {
  it("is six upper-case letters", () => {
    expect(subsetTag("Tinos-Regular", "Hello")).toMatch(/^[A-Z]{6}$/);
  });

  it("depends only on the font and the set of characters drawn", () => {
    expect(subsetTag("Tinos-Regular", "Hello world")).toBe(subsetTag("Tinos-Regular", "world Hello lol"));
    expect(subsetTag("Tinos-Regular", "Hello")).not.toBe(subsetTag("Tinos-Regular", "Hello!"));
    expect(subsetTag("Tinos-Regular", "Hello")).not.toBe(subsetTag("Arimo-Regular", "Hello"));
  });
});
