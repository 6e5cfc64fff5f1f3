import { afterAll, describe, expect, it } from "vitest";
import { TypesetterError } from "./errors.ts";
import { pdfinfoPages, pdfText, removeProbeFiles, run, save } from "./pdf-probe.ts";
import type { LetterInput } from "./typeset-letter.ts";
import { typesetLetter } from "./typeset-letter.ts";

afterAll(removeProbeFiles);

/**
 * Hostile letters: bodies within the order request's 20,000 characters that once blocked the process for seconds to
 * minutes. Each is refused with `letter_too_complex` before parsing, or typesets to a valid PDF with a sane page
 * count. The inputs finish in well under a second; the generous timeouts only guard a loaded machine.
 */
const SLOW_MACHINE = { timeout: 60_000 };
const RENDER: LetterInput["render"] = { font: "times", font_size: 12, margin_in: 1, paper: "letter" };
/** The longest body the order request accepts. */
const MAX_BODY = 20_000;

async function typeset(format: LetterInput["format"], body: string) {
  expect(body.length).toBeLessThanOrEqual(MAX_BODY);
  return typesetLetter({ body, format, render: RENDER, date: "2026-11-24" });
}

async function refusal(format: LetterInput["format"], body: string): Promise<TypesetterError> {
  try {
    await typeset(format, body);
  } catch (error) {
    if (TypesetterError.isInstance(error)) return error;
    throw error;
  }
  throw new Error("expected a TypesetterError");
}

/** The PDF is whole (qpdf finds no fault), poppler counts the pages the typesetter counted, within bounds. */
function expectValidPdf(result: { pdf: Uint8Array; page_count: number }, min: number, max: number): void {
  expect(run("qpdf", ["--check", save(result.pdf)])).toContain("No syntax or stream encoding errors found");
  expect(pdfinfoPages(result.pdf)).toBe(result.page_count);
  expect(result.page_count).toBeGreaterThanOrEqual(min);
  expect(result.page_count).toBeLessThanOrEqual(max);
}

/** Whole copies of `unit` that fit in `length` characters. */
function fill(unit: string, length = MAX_BODY): string {
  return unit.repeat(Math.floor(length / unit.length));
}

describe("markdown structure the parser takes quadratic time or worse over is refused before parsing", () => {
  it.each([
    [
      "5,000 list markers on one line",
      `${"- ".repeat(5_000)}x`,
      /at most 16 levels deep; this letter nests 5,000\./,
    ],
    [
      "a list nested 130 levels by indentation",
      Array.from({ length: 130 }, (_, level) => `${"  ".repeat(level)}- x`).join("\n"),
      /at most 16 levels deep; this letter nests 130\./,
    ],
    ["block quotations nested 19,990 deep", `${">".repeat(19_990)} deep`, /nests 19,990\./],
    ["10,000 lines continuing a quoted paragraph", `> a\n${"a\n".repeat(9_998)}`, /at most 2,000 lines/],
    ["5,000 list items", fill("- a\n"), /at most 2,000 lines; this one has 5,000\./],
    [
      "2,500 list items on 500 lines",
      fill("- - - - - a\n", 6_000),
      /at most 1,000 list items; this one has 2,500\./,
    ],
    [
      "8,000 emphasis markers closing at once",
      `${"*a ".repeat(4_000)}b${"*".repeat(4_000)}`,
      /emphasis markers/,
    ],
    ["10,000 emphasis markers that never match", fill("*a_ "), /this one has 10,000\./],
    ["4,000 link brackets", fill("[ (]("), /at most 500 link brackets \(\[\); this one has 4,000\./],
  ])("%s", SLOW_MACHINE, async (_name, body, message) => {
    const error = await refusal("markdown", body);
    expect(error.code).toBe("letter_too_complex");
    expect(error.field).toBe("body");
    expect(error.message).toMatch(message);
  });
});

describe("tables wider than a page can print are refused in every format", () => {
  it.each([
    ["markdown", `|${"a|".repeat(2_000)}\n|${"-|".repeat(2_000)}\n|${"a|".repeat(2_000)}`, "2,000"],
    ["html", `<table><tr>${"<td>a".repeat(3_000)}</table>`, "3,000"],
    ["rtf", `{\\rtf1 \\trowd\\intbl ${"a\\cell ".repeat(2_500)}\\row}`, "2,500"],
  ] as const)("%s", SLOW_MACHINE, async (format, body, columns) => {
    const error = await refusal(format, body);
    expect(error.code).toBe("letter_too_complex");
    expect(error.message).toBe(`A table has at most 64 columns; this letter has one with ${columns}.`);
  });
});

describe("large but plain letters typeset in linear time", () => {
  it.each(["text", "markdown"] as const)(
    "%s: a 20,000-character word breaks between characters",
    SLOW_MACHINE,
    async (format) => {
      const word = "abcdefghij".repeat(2_000);
      const result = await typeset(format, word);
      // About 90 characters a line, 45 lines a page: six pages.
      expectValidPdf(result, 4, 8);
      const text = pdfText(result.pdf).replace(/Page \d of \d|24 November 2026( — page \d)?|\s/g, "");
      expect(text).toBe(word);
    },
  );

  it("text: a line of 10,000 words", SLOW_MACHINE, async () => {
    expectValidPdf(await typeset("text", fill("a ")), 3, 8);
  });

  it("text: 10,000 lines", SLOW_MACHINE, async () => {
    // 10,000 lines of 14.4 pt: 31 on page 1 under the date line, then 45 a page.
    expectValidPdf(await typeset("text", fill("a\n")), 222, 224);
  });

  it("markdown: 1,000 list items, the most a letter may hold", SLOW_MACHINE, async () => {
    expectValidPdf(await typeset("markdown", "- item\n".repeat(1_000)), 20, 26);
  });

  it("markdown: a table of 1,600 rows", SLOW_MACHINE, async () => {
    // Rows are 19.2 pt tall (a line and padding): about 33 a page.
    expectValidPdf(await typeset("markdown", `|a|b|\n|-|-|\n${"|a|b|\n".repeat(1_600)}`), 45, 60);
  });

  it("markdown: a table of 64 columns, the widest a letter may hold", SLOW_MACHINE, async () => {
    const row = `|${"a|".repeat(64)}\n`;
    expectValidPdf(await typeset("markdown", `${row}|${"-|".repeat(64)}\n${row.repeat(100)}`), 3, 8);
  });

  it("markdown: a letter at every markdown limit at once", SLOW_MACHINE, async () => {
    const nested = Array.from({ length: 16 }, (_, level) => `${"  ".repeat(level)}- level`).join("\n");
    const body = [
      nested,
      "",
      "- *a* [b]\n".repeat(490),
      "",
      "**bold** *it* _em_ ".repeat(120),
      "",
      "> quoted\n".repeat(400),
    ].join("\n");
    expect(body.length).toBeLessThanOrEqual(MAX_BODY);
    expectValidPdf(await typeset("markdown", body), 10, 30);
  });

  it("html: 4,000 list items", SLOW_MACHINE, async () => {
    // 4,000 lines of 14.4 pt.
    expectValidPdf(await typeset("html", `<ul>${"<li>a".repeat(3_990)}</ul>`), 85, 92);
  });

  it.each([
    ["5,000 nested divs", `${"<div>".repeat(3_999)}deep`],
    ["6,000 nested bold elements", `${"<b>".repeat(6_000)}deep`],
    ["1,200 nested tables", `${"<table><tr><td>".repeat(1_200)}deep`],
  ])("html: %s", SLOW_MACHINE, async (_name, body) => {
    const result = await typeset("html", body);
    expectValidPdf(result, 1, 3);
    expect(pdfText(result.pdf)).toContain("deep");
  });

  it("rtf: groups nested 9,000 deep", SLOW_MACHINE, async () => {
    const result = await typeset("rtf", `{\\rtf1 ${"{".repeat(9_000)}deep${"}".repeat(9_000)}}`);
    expectValidPdf(result, 1, 1);
    expect(pdfText(result.pdf)).toContain("deep");
  });
});
