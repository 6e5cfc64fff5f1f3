import { describe, expect, it, vi } from "vitest";
import { findUnprintable, printedColumns, unprintableRowIssues } from "./printable.ts";

describe("findUnprintable", () => {
  it("checks all characters at once and narrows down only when some do not print", async () => {
    const font = new Set(["é", "ü", "ñ", " "]);
    const canPrint = vi.fn((text: string) => [...text].every((char) => font.has(char)));
    expect(await findUnprintable(["é", "ü", "ñ"], canPrint)).toEqual([]);
    expect(canPrint).toHaveBeenCalledTimes(1);
    canPrint.mockClear();
    expect(await findUnprintable(["é", "Ł", "ü", "ñ", "ש"], canPrint)).toEqual(["Ł", "ש"]);
    expect(canPrint.mock.calls.length).toBeGreaterThan(1);
  });

  it("awaits an asynchronous check", async () => {
    expect(await findUnprintable(["a", "Ł"], async (text) => !text.includes("Ł"))).toEqual(["Ł"]);
  });
});

describe("printedColumns and unprintableRowIssues", () => {
  it("checks the template's columns and the window's address columns, not the others", async () => {
    const columns = ["Recipient_Name", "line1", "city", "zip", "country", "venue", "note"];
    const checked = printedColumns(["venue"], columns);
    expect(checked.sort()).toEqual(["Recipient_Name", "city", "line1", "venue", "zip"].sort());
    const rows = [
      { fields: { Recipient_Name: "Zoë", venue: "Łódź", note: "Ω", city: "x" } },
      { fields: { Recipient_Name: "A", venue: "park", note: "Ω", city: "Kraków Ł" } },
      { fields: { Recipient_Name: "B", venue: "park", note: "Ω", city: "y" } },
    ];
    const issues = await unprintableRowIssues(rows, checked, (text) => !/[ŁΩ]/u.test(text));
    expect([...issues].map(([index, list]) => [index, list.map((i) => [i.column, i.code])])).toEqual([
      [0, [["venue", "character_unsupported"]]],
      [1, [["city", "character_unsupported"]]],
    ]);
  });
});
