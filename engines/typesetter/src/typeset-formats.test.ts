import { afterAll, afterEach, describe, expect, it, vi } from "vitest";
import type { Word } from "./pdf-probe.ts";
import {
  fontOf,
  images,
  pdfinfoPages,
  printedLines,
  removeProbeFiles,
  run,
  save,
  styledRuns,
  textLines,
  word,
  words,
} from "./pdf-probe.ts";
import type { LetterInput } from "./typeset-letter.ts";
import { typesetLetter } from "./typeset-letter.ts";

afterAll(removeProbeFiles);
afterEach(() => vi.restoreAllMocks());

const RENDER: LetterInput["render"] = { font: "times", font_size: 12, margin_in: 1, paper: "letter" };
const BOTTOM = 792 - 72;

/** A letter without page furniture (no date line, no page numbers): these tests measure the body itself. */
function letter(
  format: LetterInput["format"],
  body: string,
  overrides: Partial<LetterInput> = {},
): LetterInput {
  return { body, format, render: RENDER, furniture: "none", ...overrides };
}

async function typeset(format: LetterInput["format"], body: string, overrides: Partial<LetterInput> = {}) {
  return typesetLetter(letter(format, body, overrides));
}

/** Words on one printed line: same page, baselines within a point. */
function sameLine(a: Word, b: Word): boolean {
  return a.page === b.page && Math.abs(a.yMax - b.yMax) < 1;
}

const PROSE =
  "It is a truth universally acknowledged, that a single man in possession of a good fortune, must be in want of a wife.";

describe("markdown", () => {
  const BODY = [
    "# Notice of change",
    "",
    "Dear **Ann**, your *lease* ends. This is ***final*** and [binding](https://example.com/terms).",
    "A soft break joins lines; a hard one  ",
    "breaks them.",
    "",
    "## What changes",
    "",
    "1. The rent",
    "2. The deposit",
    "   - kept in escrow",
    "   - returned in 30 days",
    "3. The keys",
    "",
    "- Water",
    "- Power",
    "",
    "| Item | Amount |",
    "|------|-------:|",
    "| Rent | $1,200 |",
    "| Deposit | $2,400 |",
    "",
    "> Quoted clause.",
    "",
    "---",
    "",
    "### Signed",
    "",
    "`code` stays as written, ![a picture](https://example.com/p.png) does not print.",
  ].join("\n");

  it("extracts the text of every block in reading order", async () => {
    const result = await typeset("markdown", BODY);
    expect(printedLines(result.pdf)).toEqual([
      "Notice of change",
      "Dear Ann, your lease ends. This is final and binding. A soft break joins lines; a hard one",
      "breaks them.",
      "What changes",
      "1. The rent",
      "2. The deposit",
      "◦ kept in escrow",
      "◦ returned in 30 days",
      "3. The keys",
      "• Water",
      "• Power",
      "Item Amount",
      "Rent $1,200",
      "Deposit $2,400",
      "Quoted clause.",
      "Signed",
      "code stays as written, does not print.",
    ]);
  });

  it("sets strong in bold, emphasis in italic, both in bold italic, headings and the table header in bold", async () => {
    const runs = styledRuns((await typeset("markdown", BODY)).pdf);
    expect(fontOf(runs, "Ann")).toBe("Tinos-Bold");
    expect(fontOf(runs, "lease")).toBe("Tinos-Italic");
    expect(fontOf(runs, "final")).toBe("Tinos-BoldItalic");
    expect(fontOf(runs, "Dear")).toBe("Tinos-Regular");
    expect(fontOf(runs, "Notice of change")).toBe("Tinos-Bold");
    expect(fontOf(runs, "What changes")).toBe("Tinos-Bold");
    expect(fontOf(runs, "Item")).toBe("Tinos-Bold");
    expect(fontOf(runs, "Amount")).toBe("Tinos-Bold");
    expect(fontOf(runs, "Rent")).toBe("Tinos-Regular");
    expect(fontOf(runs, "$1,200")).toBe("Tinos-Regular");
  });

  it("sets headings by level, largest first, and each block a line apart", async () => {
    const found = words((await typeset("markdown", BODY)).pdf);
    const height = (text: string) => word(found, text).yMax - word(found, text).yMin;
    expect(height("Notice")).toBeGreaterThan(height("What"));
    expect(height("What")).toBeGreaterThan(height("Signed"));
    expect(height("Signed")).toBeGreaterThan(height("Dear"));
    // A paragraph after a paragraph-level block starts one body line (14.4 pt) plus its own line below it.
    const breaks = word(found, "breaks");
    const first = word(found, "1.");
    const heading = word(found, "What");
    expect(heading.yMin - breaks.yMax).toBeGreaterThan(14.4);
    expect(first.yMin - heading.yMax).toBeLessThan(14.4);
  });

  it("hangs list markers left of the item text and indents nested lists further", async () => {
    const found = words((await typeset("markdown", BODY)).pdf);
    const one = word(found, "1.");
    const rent = word(found, "The");
    expect(sameLine(one, rent)).toBe(true);
    expect(one.xMax).toBeLessThan(rent.xMin);
    const bullet = found.find((candidate) => candidate.text === "◦")!;
    const kept = word(found, "kept");
    expect(sameLine(bullet, kept)).toBe(true);
    expect(bullet.xMin).toBeGreaterThan(one.xMin + 10);
    expect(kept.xMin).toBeGreaterThan(rent.xMin + 10);
    const water = word(found, "Water");
    expect(water.xMin).toBeCloseTo(rent.xMin, 1);
  });

  it("lines table cells up in rows and columns sized by their content", async () => {
    const found = words((await typeset("markdown", BODY)).pdf);
    const cell = (text: string) => word(found, text);
    expect(sameLine(cell("Item"), cell("Amount"))).toBe(true);
    expect(sameLine(cell("Deposit"), cell("$2,400"))).toBe(true);
    expect(cell("Item").xMin).toBeCloseTo(cell("Deposit").xMin, 1);
    expect(cell("Amount").xMin).toBeCloseTo(cell("$2,400").xMin, 1);
    expect(cell("Amount").xMin).toBeGreaterThan(cell("Deposit").xMax);
    // Columns as wide as their content: the table is far narrower than the 6.5 in measure.
    expect(cell("Amount").xMax).toBeLessThan(72 + 200);
    expect(cell("Rent").yMin).toBeGreaterThan(cell("Item").yMax);
  });

  it("turns inline HTML breaks and bold into text, and raw HTML blocks through the HTML subset", async () => {
    const body = "Line one<br>line <b>two</b>\n\n<div><script>alert(1)</script>Block text</div>\n\nAfter.";
    const result = await typeset("markdown", body);
    expect(textLines(result.pdf)).toEqual(["Line one", "line two", "Block text", "After."]);
    expect(fontOf(styledRuns(result.pdf), "two")).toBe("Tinos-Bold");
  });
});

describe("html", () => {
  const BODY = `<!doctype html><html><head><title>Not printed</title>
    <style>body { background: url(https://example.com/bg.png) }</style>
    <link rel="stylesheet" href="https://example.com/style.css"></head>
    <body>
      <h1>Notice</h1>
      <p>Dear <strong>Ann</strong>, your <em>lease</em>   ends. <b><i>Final</i></b>.<br>Second line.</p>
      <script>document.write("script text")</script>
      <iframe src="https://example.com/frame">frame text</iframe>
      <object data="https://example.com/x.swf">object text</object>
      <form action="https://example.com/post"><label>form text</label><input value="input text"></form>
      <img src="https://example.com/tracker.png" alt="tracker">
      <img src="data:image/png;base64,iVBORw0KGgo=" alt="inline">
      <ol start="3"><li>Third</li><li>Fourth<ul><li>Inner</li></ul></li></ol>
      <table>
        <thead><tr><th>Name</th><th>Due</th></tr></thead>
        <tbody><tr><td>Rent</td><td>May&nbsp;1</td></tr></tbody>
      </table>
      <hr>
      <blink>Unknown tag text</blink> &amp; <span hidden>hidden text</span>
      <pre>  kept   as
    written</pre>
      <div>Regards,</div><div>Jane</div>
    </body></html>`;

  it("prints the safe subset and drops scripts, styles, frames, objects, forms and images", async () => {
    const result = await typeset("html", BODY);
    expect(printedLines(result.pdf)).toEqual([
      "Notice",
      "Dear Ann, your lease ends. Final.",
      "Second line.",
      "3. Third",
      "4. Fourth",
      "◦ Inner",
      "Name Due",
      "Rent May 1",
      "Unknown tag text &",
      "kept as",
      "written",
      "Regards,",
      "Jane",
    ]);
    expect(images(result.pdf)).toEqual([]);
    // Preformatted text keeps its spaces: a space of Tinos at 12 pt is 3 pt wide.
    const found = words(result.pdf);
    expect(word(found, "as").xMin - word(found, "kept").xMax).toBeCloseTo(3 * 3, 1);
    expect(word(found, "kept").xMin).toBeCloseTo(72 + 2 * 3, 1);
    expect(word(found, "written").xMin).toBeCloseTo(72 + 4 * 3, 1);
  });

  it("fetches nothing the markup points to", async () => {
    const fetch = vi.spyOn(globalThis, "fetch");
    await typeset("html", BODY);
    expect(fetch).not.toHaveBeenCalled();
  });

  it("sets b and strong in bold, i and em in italic, headings and th in bold", async () => {
    const runs = styledRuns((await typeset("html", BODY)).pdf);
    expect(fontOf(runs, "Ann")).toBe("Tinos-Bold");
    expect(fontOf(runs, "lease")).toBe("Tinos-Italic");
    expect(fontOf(runs, "Final")).toBe("Tinos-BoldItalic");
    expect(fontOf(runs, "Notice")).toBe("Tinos-Bold");
    expect(fontOf(runs, "Name")).toBe("Tinos-Bold");
    expect(fontOf(runs, "Rent")).toBe("Tinos-Regular");
  });

  it("keeps div lines together and sets paragraphs a line apart", async () => {
    const found = words((await typeset("html", BODY)).pdf);
    const regards = word(found, "Regards,");
    const jane = word(found, "Jane");
    expect(jane.yMin - regards.yMin).toBeCloseTo(14.4, 1);
    const dear = word(found, "Dear");
    const second = word(found, "Second");
    expect(second.yMin - dear.yMin).toBeCloseTo(14.4, 1);
    const third = word(found, "Third");
    expect(third.yMin - second.yMin).toBeCloseTo(2 * 14.4, 1);
  });

  it("reads malformed markup the way browsers do", async () => {
    const result = await typeset("html", "<p>One<p>Two <b>bold<i>both</b> italic</i><li>item");
    expect(textLines(result.pdf)).toEqual(["One", "Two boldboth italic", "item"]);
    const runs = styledRuns(result.pdf);
    expect(fontOf(runs, "both")).toBe("Tinos-BoldItalic");
  });
});

describe("rtf", () => {
  const BODY = String.raw`{\rtf1\ansi\ansicpg1252\deff0{\fonttbl{\f0\froman Times New Roman;}{\f1\fnil\fcharset2 Symbol;}}
{\colortbl;\red255\green0\blue0;}{\*\generator Writer 1.0;}{\info{\title Not printed}{\author Nobody}}
{\header Header text\par}\viewkind4\uc1\pard\f0\fs24 Dear Zo\'eb,\par
\par
Your {\b lease} ends \i now\i0 . {\b\i Final}{\v  hidden text}.\line Next line \u8212? dash.\par
{\pntext\f1\'b7\tab}{\*\pn\pnlvlblt\pnf1\pnindent0{\pntxtb\'b7}}\fi-360\li720 first bullet\par
{\pntext\f1\'b7\tab}second bullet\par
\pard\trowd\trhdr\cellx2000\cellx4000\intbl Name\cell Due\cell\row
\pard\trowd\cellx2000\cellx4000\intbl Rent\cell May 1\cell\row
\pard\par
Sincerely,\par
}`;

  it("extracts paragraphs, blank lines, breaks, list items and table cells", async () => {
    const result = await typeset("rtf", BODY);
    expect(printedLines(result.pdf)).toEqual([
      "Dear Zoë,",
      "Your lease ends now. Final.",
      "Next line — dash.",
      "• first bullet",
      "• second bullet",
      "Name Due",
      "Rent May 1",
      "Sincerely,",
    ]);
    const found = words(result.pdf);
    expect(word(found, "Your").yMin - word(found, "Dear").yMin).toBeCloseTo(2 * 14.4, 1);
  });

  it("sets \\b in bold, \\i in italic, both in bold italic, the \\trhdr row in bold", async () => {
    const runs = styledRuns((await typeset("rtf", BODY)).pdf);
    expect(fontOf(runs, "lease")).toBe("Tinos-Bold");
    expect(fontOf(runs, "now")).toBe("Tinos-Italic");
    expect(fontOf(runs, "Final")).toBe("Tinos-BoldItalic");
    expect(fontOf(runs, "ends")).toBe("Tinos-Regular");
    expect(fontOf(runs, "Name")).toBe("Tinos-Bold");
    expect(fontOf(runs, "Rent")).toBe("Tinos-Regular");
  });

  it("lines the table up in rows and columns", async () => {
    const found = words((await typeset("rtf", BODY)).pdf);
    expect(sameLine(word(found, "Name"), word(found, "Due"))).toBe(true);
    expect(word(found, "Name").xMin).toBeCloseTo(word(found, "Rent").xMin, 1);
    expect(word(found, "Due").xMin).toBeCloseTo(word(found, "May").xMin, 1);
  });

  it("refuses a body that is not RTF", async () => {
    await expect(typeset("rtf", "Dear Ann, plain text.")).rejects.toMatchObject({
      code: "invalid_letter_input",
      field: "body",
    });
  });

  it("prints Symbol-font text as the characters it draws, and refuses a Wingdings pictogram", async () => {
    const fonts = String.raw`{\fonttbl{\f0 Times;}{\f1\fcharset2 Symbol;}{\f2\fcharset2 Wingdings;}}`;
    const symbol = await typeset("rtf", String.raw`{\rtf1\ansi\deff0${fonts}Angle {\f1 a} is 90{\f1 \'b0}.}`);
    expect(textLines(symbol.pdf)).toEqual(["Angle α is 90°."]);
    await expect(
      typeset("rtf", String.raw`{\rtf1\ansi\deff0${fonts}See {\f2 \'22} here.}`),
    ).rejects.toMatchObject({
      code: "character_unsupported",
      field: "body",
    });
  });
});

describe("nesting", () => {
  it("refuses markdown nested deeper than the limit before parsing it", { timeout: 60_000 }, async () => {
    await expect(typeset("markdown", `${">".repeat(19_990)} deep`)).rejects.toMatchObject({
      code: "letter_too_complex",
      field: "body",
      message: "Markdown nests block quotations and lists at most 16 levels deep; this letter nests 19,990.",
    });
  });

  it("keeps deeply nested HTML lists on the page", async () => {
    const result = await typeset("html", `${"<ul><li>level".repeat(60)} deepest`);
    const found = words(result.pdf);
    expect(word(found, "deepest").xMax).toBeLessThanOrEqual(612 - 72 + 0.01);
    for (const hit of found) expect(hit.xMin).toBeGreaterThanOrEqual(72 - 7);
  });
});

describe("every format", () => {
  /** A letter of `paragraphs` prose paragraphs and a table of `rows` rows, in each format. */
  function longLetter(format: LetterInput["format"], paragraphs: number, rows: number): string {
    const cells = (row: number) => [`r${row}a`, `r${row}b ${row % 7 === 0 ? PROSE : "short"}`, `r${row}c`];
    const prose = Array.from({ length: paragraphs }, (_, index) => `P${index} ${PROSE}`);
    switch (format) {
      case "markdown":
        return [
          ...prose.flatMap((paragraph) => [paragraph, ""]),
          "| Alpha | Beta | Gamma |",
          "|---|---|---|",
          ...Array.from({ length: rows }, (_, row) => `| ${cells(row).join(" | ")} |`),
          "",
          "Sincerely,",
        ].join("\n");
      case "html":
        return [
          ...prose.map((paragraph) => `<p>${paragraph}</p>`),
          "<table><tr><th>Alpha</th><th>Beta</th><th>Gamma</th></tr>",
          ...Array.from(
            { length: rows },
            (_, row) =>
              `<tr>${cells(row)
                .map((c) => `<td>${c}</td>`)
                .join("")}</tr>`,
          ),
          "</table><p>Sincerely,</p>",
        ].join("\n");
      case "rtf": {
        const row = (texts: string[], header: boolean) =>
          `\\trowd${header ? "\\trhdr" : ""}\\cellx2000\\cellx6000\\cellx8000\\intbl ${texts.join("\\cell ")}\\cell\\row\n`;
        return [
          "{\\rtf1\\ansi ",
          ...prose.map((paragraph) => `\\pard ${paragraph}\\par\\par\n`),
          row(["Alpha", "Beta", "Gamma"], true),
          ...Array.from({ length: rows }, (_, index) => row(cells(index), false)),
          "\\pard Sincerely,\\par}",
        ].join("");
      }
      case "text":
        return [...prose.flatMap((paragraph) => [paragraph, ""]), "Sincerely,"].join("\n");
    }
  }

  it.each(["markdown", "html", "rtf"] as const)(
    "%s: paginates exactly, cuts no line, never splits a table row and repeats the header row",
    async (format) => {
      const result = await typeset(format, longLetter(format, 30, 90), {
        signature: { mode: "typed", text: "Jane Public" },
      });
      expect(result.page_count).toBeGreaterThanOrEqual(4);
      expect(pdfinfoPages(result.pdf)).toBe(result.page_count);
      const found = words(result.pdf);
      for (const hit of found) {
        expect(hit.yMax).toBeLessThanOrEqual(BOTTOM + 0.01);
        expect(hit.yMin).toBeGreaterThanOrEqual(72 - 0.01);
      }
      for (let row = 0; row < 90; row++) {
        const a = word(found, `r${row}a`);
        const b = word(found, `r${row}b`);
        const c = word(found, `r${row}c`);
        expect(sameLine(a, b) && sameLine(b, c)).toBe(true);
        if (row % 7 === 0) {
          // The long cell wraps, and all of its lines stand on the row's page.
          const rowWords = found.filter(
            (hit) => hit.xMin > b.xMin - 0.5 && hit.xMax < c.xMin && hit.page === b.page,
          );
          expect(rowWords.filter((hit) => hit.text === "wife.").length).toBeGreaterThan(0);
        }
      }
      const pages = new Set(Array.from({ length: 90 }, (_, row) => word(found, `r${row}a`).page));
      expect(pages.size).toBeGreaterThan(1);
      for (const page of pages) {
        const headers = found.filter((hit) => hit.text === "Alpha" && hit.page === page);
        const firstRow = Math.min(
          ...found.filter((hit) => hit.page === page && /^r\d+a$/.test(hit.text)).map((hit) => hit.yMin),
        );
        expect(headers).toHaveLength(1);
        expect(headers[0]!.yMin).toBeLessThan(firstRow);
      }
      const signature = word(found, "Jane");
      expect(signature.page).toBe(result.page_count);
    },
  );

  it.each(["text", "markdown", "html", "rtf"] as const)(
    "%s: gives byte-identical PDFs for the same input",
    async (format) => {
      const input = letter(format, longLetter(format, 8, 12), {
        title: "Déjà vu",
        sender: { lines: ["Jane Public", "1 Main St"] },
        recipient: { lines: ["Zoë Müller", "Straße 5"] },
        signature: { mode: "typed", text: "Jane Public" },
        watermark: "TEST MODE",
        render: { ...RENDER, address_placement: "separate_page" },
      });
      const first = await typesetLetter(input);
      const second = await typesetLetter(structuredClone(input));
      expect(Buffer.from(second.pdf).equals(Buffer.from(first.pdf))).toBe(true);
    },
  );

  it.each(["text", "markdown", "html", "rtf"] as const)(
    "%s: writes a PDF qpdf finds no fault in",
    async (format) => {
      const result = await typeset(format, longLetter(format, 20, 40), {
        title: "Notice",
        recipient: { lines: ["Zoë Müller", "Straße 5"] },
        signature: { mode: "typed", text: "Jane Public" },
        watermark: "TEST MODE",
      });
      expect(run("qpdf", ["--check", save(result.pdf)])).toContain(
        "No syntax or stream encoding errors found",
      );
    },
  );

  it.each(["markdown", "html", "rtf"] as const)(
    "%s: follows the font, size and margin options",
    async (format) => {
      const body = longLetter(format, 12, 3);
      const small = await typeset(format, body, {
        render: { ...RENDER, font: "helvetica", font_size: 9, margin_in: 0.5 },
      });
      const large = await typeset(format, body, { render: { ...RENDER, font_size: 14, margin_in: 1.5 } });
      expect(large.page_count).toBeGreaterThan(small.page_count);
      expect(fontOf(styledRuns(small.pdf), "P0")).toBe("Arimo-Regular");
      expect(word(words(small.pdf), "P0").xMin).toBeCloseTo(36, 1);
      expect(word(words(large.pdf), "P0").xMin).toBeCloseTo(108, 1);
    },
  );

  it.each([
    ["markdown", "Hello 中文"],
    ["html", "<p>Hello &#x4E2D;</p>"],
    ["rtf", String.raw`{\rtf1 Hello \u20013?}`],
  ] as const)("%s: refuses characters no face can print", async (format, body) => {
    await expect(typeset(format, body)).rejects.toMatchObject({
      code: "character_unsupported",
      field: "body",
    });
  });
});
