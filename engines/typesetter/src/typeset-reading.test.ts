import { afterAll, afterEach, describe, expect, it, vi } from "vitest";
import type { Word } from "./pdf-probe.ts";
import { fontNames, fontOf, removeProbeFiles, styledRuns, textLines, word, words } from "./pdf-probe.ts";
import { pngDataUrl } from "./png.fixture.ts";
import { refusal } from "./test-support.ts";
import type { LetterInput } from "./typeset-letter.ts";
import { typesetLetter } from "./typeset-letter.ts";

afterAll(removeProbeFiles);
afterEach(() => vi.useRealTimers());

/** Letters as a person reads them: dated, numbered, headed from page 2, signed with a printed name. */
const RENDER: LetterInput["render"] = { font: "times", font_size: 12, margin_in: 1, paper: "letter" };
const DATE = "2026-11-24";
const RECIPIENT = { lines: ["Grace Hopper", "1 Navy Yard", "Arlington, VA 22202"] };
const SENDER = { lines: ["Jane Q. Public", "1 Main Street", "Springfield, IL 62701"] };

function letter(body: string, overrides: Partial<LetterInput> = {}): LetterInput {
  return { body, format: "markdown", render: RENDER, date: DATE, ...overrides };
}

/** `count` lines "Line 1" .. "Line count", each a line of its own (hard breaks in markdown, lines in text). */
function numberedLines(count: number): string {
  return Array.from({ length: count }, (_, index) => `Line ${index + 1}`).join("\n");
}

/** The words of one printed line, joined, that contain `first`. */
function lineOf(found: readonly Word[], first: Word): string {
  return found
    .filter((hit) => hit.page === first.page && Math.abs(hit.yMax - first.yMax) < 1)
    .sort((a, b) => a.xMin - b.xMin)
    .map((hit) => hit.text)
    .join(" ");
}

describe("the date line", () => {
  it("prints the date under the addresses, above the title and the body", async () => {
    const result = await typesetLetter(
      letter("Dear Grace,\n\nThank you.", { title: "Re: your order", sender: SENDER, recipient: RECIPIENT }),
    );
    expect(result.page_count).toBe(1);
    expect(textLines(result.pdf)).toEqual([
      ...SENDER.lines,
      ...RECIPIENT.lines,
      "24 November 2026",
      "Re: your order",
      "Dear Grace,",
      "Thank you.",
    ]);
    const found = words(result.pdf);
    const date = word(found, "November");
    expect(date.yMin).toBeGreaterThanOrEqual(3.25 * 72 - 0.01);
    expect(word(found, "Re:").yMin).toBeGreaterThan(date.yMax + 12);
    expect(fontOf(styledRuns(result.pdf), "24 November 2026")).toBe("Tinos-Regular");
  });

  it.each(["text", "html", "rtf"] as const)("dates %s letters too", async (format) => {
    const body = { text: "Dear Grace,", html: "<p>Dear Grace,</p>", rtf: "{\\rtf1 Dear Grace,\\par}" }[
      format
    ];
    const result = await typesetLetter(letter(body, { format }));
    expect(textLines(result.pdf)).toEqual(["24 November 2026", "Dear Grace,"]);
  });

  it("opens page 2 when the addresses print on a page of their own", async () => {
    const result = await typesetLetter(
      letter("Dear Grace,", {
        recipient: RECIPIENT,
        render: { ...RENDER, address_placement: "separate_page" },
      }),
    );
    expect(textLines(result.pdf, 1)).toEqual(RECIPIENT.lines);
    expect(textLines(result.pdf, 2)).toEqual(["24 November 2026", "Dear Grace,"]);
  });

  it("is today's date in UTC when no date is given", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(new Date("2027-03-05T23:30:00-05:00"));
    const { date: _date, ...undated } = letter("Dear Grace,");
    const result = await typesetLetter(undated);
    expect(textLines(result.pdf)[0]).toBe("6 March 2027");
  });

  it.each(["2026-02-30", "24/11/2026", "2026-11-24T10:00:00Z"])("refuses the date %j", async (date) => {
    const error = await refusal(typesetLetter(letter("Dear Grace,", { date })));
    expect(error.code).toBe("invalid_letter_input");
    expect(error.field).toBe("date");
    expect(error.message).toContain("YYYY-MM-DD");
  });

  it("gives byte-identical PDFs for the same date, and different ones for another date", async () => {
    const input = letter(numberedLines(120).replace(/\n/g, "  \n"), {
      recipient: RECIPIENT,
      signature: { mode: "typed", text: "Jane Public" },
      signer_name: "Jane Q. Public",
    });
    const first = await typesetLetter(input);
    const second = await typesetLetter(structuredClone(input));
    const later = await typesetLetter({ ...input, date: "2026-11-25" });
    expect(Buffer.from(second.pdf).equals(Buffer.from(first.pdf))).toBe(true);
    expect(Buffer.from(later.pdf).equals(Buffer.from(first.pdf))).toBe(false);
  });
});

describe("page numbers and continuation headers", () => {
  // Page 1 holds 33 lines of 14.4 pt below the address area: the date line and a blank line, then 31 lines. Later
  // pages hold 45: the page numbers and headers sit in the margins and take no room from the body.
  const body = numberedLines(100);

  it("numbers every page of a multi-page letter at its foot, in the bottom margin", async () => {
    const result = await typesetLetter(letter(body, { format: "text", recipient: RECIPIENT }));
    expect(result.page_count).toBe(3);
    const found = words(result.pdf);
    for (let page = 1; page <= 3; page++) {
      const lines = textLines(result.pdf, page);
      expect(lines.at(-1)).toBe(`Page ${page} of 3`);
      const number = found.find((hit) => hit.page === page && hit.text === "Page")!;
      expect(lineOf(found, number)).toBe(`Page ${page} of 3`);
      expect(number.yMin).toBeGreaterThan(792 - 72);
      expect(number.yMax).toBeLessThan(792);
      // Small, and centred on the page.
      expect(number.yMax - number.yMin).toBeLessThan(word(found, "Line").yMax - word(found, "Line").yMin);
      const line = found.filter((hit) => hit.page === page && Math.abs(hit.yMax - number.yMax) < 1);
      const centre = (line[0]!.xMin + line.at(-1)!.xMax) / 2;
      expect(centre).toBeCloseTo(306, 0);
    }
    expect(textLines(result.pdf, 1).slice(-2, -1)).toEqual(["Line 31"]);
    expect(textLines(result.pdf, 2).slice(1, -1)).toEqual(
      Array.from({ length: 45 }, (_, index) => `Line ${index + 32}`),
    );
  });

  it("heads every page after the first with the recipient's name, the date and the page, in the top margin", async () => {
    const result = await typesetLetter(
      letter(body, { format: "text", recipient: RECIPIENT, sender: SENDER }),
    );
    const found = words(result.pdf);
    for (const page of [2, 3]) {
      expect(textLines(result.pdf, page)[0]).toBe(`Grace Hopper — 24 November 2026 — page ${page}`);
      const header = found.find((hit) => hit.page === page && hit.text === "Grace")!;
      expect(header.yMax).toBeLessThan(72);
      expect(header.xMin).toBeCloseTo(72, 1);
    }
    expect(textLines(result.pdf, 1).filter((line) => line.includes("—"))).toEqual([]);
  });

  it("heads later pages with the date alone when there is no recipient", async () => {
    const result = await typesetLetter(letter(body, { format: "text" }));
    expect(textLines(result.pdf, 2)[0]).toBe("24 November 2026 — page 2");
  });

  it("gives a one-page letter no page number", async () => {
    const result = await typesetLetter(letter("Dear Grace,\n\nThank you.", { recipient: RECIPIENT }));
    expect(result.page_count).toBe(1);
    expect(textLines(result.pdf).filter((line) => /Page|page \d/.test(line))).toEqual([]);
  });

  it("numbers the letter's own pages, not the page of addresses before them", async () => {
    const separate = { ...RENDER, address_placement: "separate_page" as const };
    const result = await typesetLetter(
      letter(body, { format: "text", recipient: RECIPIENT, render: separate }),
    );
    expect(result.page_count).toBe(4);
    expect(textLines(result.pdf, 1)).toEqual(RECIPIENT.lines);
    expect(textLines(result.pdf, 2).at(-1)).toBe("Page 1 of 3");
    expect(textLines(result.pdf, 3)[0]).toBe("Grace Hopper — 24 November 2026 — page 2");
    expect(textLines(result.pdf, 4).at(-1)).toBe("Page 3 of 3");
    const one = await typesetLetter(letter("Short.", { recipient: RECIPIENT, render: separate }));
    expect(textLines(one.pdf, 2)).toEqual(["24 November 2026", "Short."]);
  });

  it('prints neither date, numbers nor headers with furniture "none"', async () => {
    const result = await typesetLetter(
      letter(body, { format: "text", recipient: RECIPIENT, furniture: "none" }),
    );
    expect(result.page_count).toBe(3);
    expect(textLines(result.pdf, 1).slice(RECIPIENT.lines.length)[0]).toBe("Line 1");
    expect(textLines(result.pdf, 2)).toEqual(Array.from({ length: 45 }, (_, index) => `Line ${index + 34}`));
  });

  it("refuses furniture it does not know", async () => {
    const error = await refusal(
      typesetLetter(letter("Hi", { furniture: "fancy" as unknown as LetterInput["furniture"] })),
    );
    expect(error.code).toBe("invalid_letter_input");
    expect(error.field).toBe("furniture");
  });
});

describe("the signer's printed name", () => {
  it("prints under a typed signature, in the body face", async () => {
    const result = await typesetLetter(
      letter("Yours,", { signature: { mode: "typed", text: "Jane Public" }, signer_name: "Jane Q. Public" }),
    );
    expect(textLines(result.pdf)).toEqual(["24 November 2026", "Yours,", "Jane Public", "Jane Q. Public"]);
    const runs = styledRuns(result.pdf);
    expect(fontOf(runs, "Jane Public")).toBe("Caveat-Regular");
    expect(fontOf(runs, "Jane Q. Public")).toBe("Tinos-Regular");
    const found = words(result.pdf);
    const signature = found.find((hit) => hit.text === "Public")!;
    const printed = found.find((hit) => hit.text === "Q.")!;
    expect(printed.yMin).toBeGreaterThan(signature.yMax - 1);
    expect(printed.yMin - signature.yMax).toBeLessThan(14.4);
  });

  it("prints under a drawn signature", async () => {
    const result = await typesetLetter(
      letter("Yours,", {
        signature: { mode: "drawn", dataUrl: pngDataUrl(40, 12) },
        signer_name: "Jane Q. Public",
      }),
    );
    const found = words(result.pdf);
    // The image is scaled to 2.5 x 0.75 in (180 x 54 pt) one line below the closing; the name stands under it.
    const closing = word(found, "Yours,");
    const printed = word(found, "Jane");
    expect(printed.yMin).toBeGreaterThan(closing.yMax + 54);
    expect(printed.yMin).toBeLessThan(closing.yMax + 54 + 2 * 14.4);
    expect(textLines(result.pdf).at(-1)).toBe("Jane Q. Public");
  });

  it("moves to the next page together with the signature and the closing line", async () => {
    // 31 lines fill page 1 under the date line; signature and name go to page 2 and take the closing line along.
    const result = await typesetLetter(
      letter(numberedLines(31), {
        format: "text",
        signature: { mode: "typed", text: "Jane Public" },
        signer_name: "Jane Q. Public",
      }),
    );
    expect(result.page_count).toBe(2);
    expect(textLines(result.pdf, 2)).toEqual([
      "24 November 2026 — page 2",
      "Line 31",
      "Jane Public",
      "Jane Q. Public",
      "Page 2 of 2",
    ]);
  });

  it("is not printed without a signature", async () => {
    const result = await typesetLetter(letter("Yours,", { signer_name: "Jane Q. Public" }));
    expect(textLines(result.pdf)).toEqual(["24 November 2026", "Yours,"]);
  });

  it("refuses a name the body face cannot print", async () => {
    const error = await refusal(
      typesetLetter(letter("Yours,", { signature: { mode: "typed", text: "Jane" }, signer_name: "王小明" })),
    );
    expect(error.code).toBe("character_unsupported");
    expect(error.field).toBe("signer_name");
  });
});

describe("page breaks", () => {
  const PROSE =
    "It is a truth universally acknowledged, that a single man in possession of a good fortune, must be in want of a " +
    "wife. However little known the feelings or views of such a man may be on his first entering a neighbourhood, " +
    "this truth is so well fixed in the minds of the surrounding families, that he is considered the rightful " +
    "property of some one or other of their daughters.";

  it.each(["markdown", "text"] as const)(
    "%s: never leave the first or the last line of a paragraph alone on a page",
    async (format) => {
      let split = 0;
      // Each paragraph takes four lines and a blank one; shifting the start line by line puts the page breaks at
      // every line of a paragraph in turn.
      for (let intro = 1; intro <= 5; intro++) {
        const introLines = Array.from({ length: intro }, (_, index) => `Intro ${index}.`);
        const paragraphs = Array.from({ length: 20 }, (_, index) => `P${index} ${PROSE}`);
        const body =
          format === "markdown"
            ? [introLines.join("  \n"), ...paragraphs].join("\n\n")
            : [introLines.join("\n"), ...paragraphs].join("\n\n");
        const result = await typesetLetter(letter(body, { format }));
        const found = words(result.pdf).filter((hit) => hit.yMin > 72 && hit.yMax < 792 - 72);
        const linesOnPage = new Map<string, Set<string>>();
        let paragraph: string | undefined;
        const ordered = [...found].sort((a, b) => a.page - b.page || a.yMax - b.yMax || a.xMin - b.xMin);
        for (const hit of ordered) {
          if (/^P\d+$/.test(hit.text)) paragraph = hit.text;
          if (paragraph === undefined || hit.text === "Intro") continue;
          const key = `${paragraph}@${hit.page}`;
          const lines = linesOnPage.get(key) ?? new Set<string>();
          lines.add(hit.yMax.toFixed(1));
          linesOnPage.set(key, lines);
        }
        for (let index = 0; index < 20; index++) {
          const pages = [...linesOnPage].filter(([key]) => key.startsWith(`P${index}@`));
          expect(pages.map(([, lines]) => lines.size).reduce((sum, lines) => sum + lines, 0)).toBe(4);
          if (pages.length > 1) {
            split++;
            for (const [, lines] of pages) expect(lines.size).toBeGreaterThanOrEqual(2);
          }
        }
      }
      expect(split).toBeGreaterThanOrEqual(2);
    },
  );
});

describe("headings", () => {
  it.each([
    ["markdown", "# Notice\n\nThe body.\n\n## Details\n\nMore."],
    ["html", "<h1>Notice</h1><p>The body.</p><h2>Details</h2><p>More.</p>"],
    [
      "rtf",
      "{\\rtf1\\pard\\outlinelevel0 Notice\\par\\pard The body.\\par\\pard\\outlinelevel1 Details\\par\\pard More.\\par}",
    ],
  ] as const)("%s: sets section headings in the bold face of the family", async (format, body) => {
    for (const font of ["times", "helvetica"] as const) {
      const result = await typesetLetter(letter(body, { format, render: { ...RENDER, font } }));
      const family = font === "times" ? "Tinos" : "Arimo";
      expect(
        fontNames(result.pdf)
          .map((name) => name.replace(/^[A-Z]{6}\+/, ""))
          .sort(),
      ).toEqual([`${family}-Bold`, `${family}-Regular`]);
      const runs = styledRuns(result.pdf);
      expect(fontOf(runs, "Notice")).toBe(`${family}-Bold`);
      expect(fontOf(runs, "Details")).toBe(`${family}-Bold`);
      expect(fontOf(runs, "The body.")).toBe(`${family}-Regular`);
    }
  });

  it.each([
    [
      "markdown",
      (paragraphs: string[]) => `${paragraphs.join("\n\n")}\n\n## The heading\n\nAfter the heading.`,
    ],
    [
      "html",
      (paragraphs: string[]) =>
        `${paragraphs.map((text) => `<p>${text}</p>`).join("")}<h2>The heading</h2><p>After the heading.</p>`,
    ],
  ] as const)("%s: never leaves a heading last on a page", async (format, make) => {
    let moved = 0;
    for (let count = 10; count <= 18; count++) {
      const paragraphs = Array.from({ length: count }, (_, index) => `Paragraph ${index + 1}.`);
      const result = await typesetLetter(letter(make(paragraphs), { format }));
      const found = words(result.pdf);
      const heading = word(found, "heading");
      const after = word(found, "After");
      expect(after.page).toBe(heading.page);
      if (heading.page === 2 && word(found, `${count}.`).page === 1) {
        moved++;
        // The heading opens page 2, right under the continuation header; page 1 ends with the last paragraph.
        expect(textLines(result.pdf, 2)[1]).toBe("The heading");
        expect(textLines(result.pdf, 1).slice(-2)).toEqual([`Paragraph ${count}.`, "Page 1 of 2"]);
      }
    }
    expect(moved).toBeGreaterThan(0);
  });
});
