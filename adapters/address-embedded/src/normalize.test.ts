import { describe, expect, it } from "vitest";
import {
  canonicalKey,
  displayCase,
  naturalCompare,
  normalizeText,
  oneEditApart,
  words,
} from "./normalize.ts";

describe("normalizeText", () => {
  it("ignores case, accents, apostrophes and punctuation", () => {
    expect(normalizeText("  Cañada  Road ")).toBe("canada road");
    expect(normalizeText("O'FARRELL St.")).toBe("ofarrell st");
    expect(normalizeText("Straße-Ærø")).toBe("strasse aero");
    expect(words("#4B, 350-352")).toEqual(["4b", "350", "352"]);
  });

  it("names abbreviated and written-out streets alike", () => {
    expect(canonicalKey("W 34TH ST.")).toBe(canonicalKey("West 34th Street"));
    expect(canonicalKey("N Michigan Ave")).toBe("north michigan avenue");
    for (const [short, long] of [
      ["Rd", "Road"],
      ["Blvd", "Boulevard"],
      ["Dr", "Drive"],
      ["Ln", "Lane"],
    ]) {
      expect(canonicalKey(`Elm ${short}`)).toBe(canonicalKey(`Elm ${long}`));
    }
  });
});

describe("displayCase", () => {
  it("title-cases names written in capitals and keeps others as written", () => {
    expect(displayCase("N MICHIGAN AVE")).toBe("N Michigan Ave");
    expect(displayCase("W 34TH ST")).toBe("W 34th St");
    expect(displayCase("O'FARRELL  ST")).toBe("O'Farrell St");
    expect(displayCase("McAllister St")).toBe("McAllister St");
  });
});

describe("oneEditApart", () => {
  it("accepts one replaced, inserted, deleted or swapped character and nothing more", () => {
    expect(oneEditApart("fitfh", "fifth")).toBe(true);
    expect(oneEditApart("fifht", "fifth")).toBe(true);
    expect(oneEditApart("fith", "fifth")).toBe(true);
    expect(oneEditApart("fiftth", "fifth")).toBe(true);
    expect(oneEditApart("fofth", "fifth")).toBe(true);
    expect(oneEditApart("fifth", "fifth")).toBe(false);
    expect(oneEditApart("fitfj", "fifth")).toBe(false);
    expect(oneEditApart("ffith", "fifth")).toBe(true);
    expect(oneEditApart("fihft", "fifth")).toBe(false);
  });
});

describe("naturalCompare", () => {
  it("orders numbers as people read them, the empty text first", () => {
    expect(["10A", "9", "", "10", "100", "Suite 3100", "Suite 200"].sort(naturalCompare)).toEqual([
      "",
      "9",
      "10",
      "10A",
      "100",
      "Suite 200",
      "Suite 3100",
    ]);
  });
});
