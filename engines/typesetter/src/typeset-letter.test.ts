import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { PDFDocument } from "pdf-lib";
import { afterAll, describe, expect, it } from "vitest";
import { inspectPdf } from "./inspect-pdf.ts";
import type { Word } from "./pdf-probe.ts";
import {
  fontNames,
  images,
  pdfinfoPages,
  pdfText,
  probeDir,
  removeProbeFiles,
  run,
  save,
  textLines,
  words,
} from "./pdf-probe.ts";
import { pngDataUrl } from "./png.fixture.ts";
import { refusal } from "./test-support.ts";
import type { LetterInput } from "./typeset-letter.ts";
import { typesetLetter } from "./typeset-letter.ts";

afterAll(removeProbeFiles);

const RENDER: LetterInput["render"] = { font: "times", font_size: 12, margin_in: 1, paper: "letter" };

/** A letter without page furniture (no date line, no page numbers): these tests measure the body itself. */
function letter(body: string, overrides: Partial<LetterInput> = {}): LetterInput {
  return { body, format: "text", render: RENDER, furniture: "none", ...overrides };
}

/** `count` lines "Line 1" .. "Line count". */
function numberedLines(count: number): string {
  return Array.from({ length: count }, (_, index) => `Line ${index + 1}`).join("\n");
}

const PROSE =
  "It is a truth universally acknowledged, that a single man in possession of a good fortune, must be in want of a wife. " +
  "However little known the feelings or views of such a man may be on his first entering a neighbourhood, this truth is " +
  "so well fixed in the minds of the surrounding families, that he is considered the rightful property of some one or " +
  "other of their daughters. ";

const SENDER = { lines: ["Jane Q. Public", "1 Main Street", "Springfield, IL 62701"] };
const RECIPIENT = { lines: ["Zoë Łukasz-Müller", "Straße 5", "8000 Ærøskøbing", "DENMARK"] };

describe("pagination", () => {
  it("sets a short letter on one page of US letter size", async () => {
    const result = await typesetLetter(
      letter("Dear Ann,\n\nThank you for the lovely flowers.\n\nBest,\nJane"),
    );
    expect(result.page_count).toBe(1);
    expect(pdfinfoPages(result.pdf)).toBe(1);
    const info = await inspectPdf(result.pdf);
    expect(info.pages).toEqual([{ width_pt: 612, height_pt: 792 }]);
  });

  // At 12 pt a line takes 14.4 pt. Page 1 holds the band from 3.25 in to 10 in (486 pt): 33 lines.
  // Later pages hold 1 in to 10 in (648 pt): exactly 45 lines.
  it.each([
    [33, 1],
    [34, 2],
    [78, 2],
    [79, 3],
    [150, 4],
  ])("counts pages exactly: %i lines make %i pages", async (lineCount, pages) => {
    const result = await typesetLetter(letter(numberedLines(lineCount)));
    expect(result.page_count).toBe(pages);
    expect(pdfinfoPages(result.pdf)).toBe(pages);
    expect(textLines(result.pdf, 1).at(-1)).toBe(`Line ${Math.min(33, lineCount)}`);
    if (pages > 1) {
      expect(textLines(result.pdf, 2)[0]).toBe("Line 34");
      expect(textLines(result.pdf, 2).at(-1)).toBe(`Line ${Math.min(78, lineCount)}`);
    }
  });

  it("breaks a long body over three or more pages without cutting or losing a word", async () => {
    const body = PROSE.repeat(24);
    const result = await typesetLetter(letter(body));
    expect(result.page_count).toBeGreaterThanOrEqual(3);
    expect(pdfinfoPages(result.pdf)).toBe(result.page_count);
    const found = words(result.pdf);
    expect(found.map((word) => word.text)).toEqual(body.trim().split(/\s+/));
    for (const word of found) {
      expect(word.yMax).toBeLessThanOrEqual(792 - 72 + 0.01);
      expect(word.yMin).toBeGreaterThanOrEqual(word.page === 1 ? 3.25 * 72 - 0.01 : 72 - 0.01);
      expect(word.xMin).toBeGreaterThanOrEqual(72 - 0.01);
      expect(word.xMax).toBeLessThanOrEqual(612 - 72 + 0.01);
    }
    expect(new Set(found.map((word) => word.page)).size).toBe(result.page_count);
  });

  it("breaks a word longer than a line and keeps every character", async () => {
    const word = "abcdefghij".repeat(400);
    const result = await typesetLetter(letter(word));
    expect(result.page_count).toBeGreaterThanOrEqual(2);
    expect(pdfinfoPages(result.pdf)).toBe(result.page_count);
    expect(pdfText(result.pdf).replace(/\s/g, "")).toBe(word);
    for (const found of words(result.pdf)) expect(found.xMax).toBeLessThanOrEqual(612 - 72 + 0.01);
  });

  it("keeps blank lines as space", async () => {
    const found = words((await typesetLetter(letter("Alpha\n\n\nOmega"))).pdf);
    const alpha = found.find((word) => word.text === "Alpha")!;
    const omega = found.find((word) => word.text === "Omega")!;
    expect(omega.yMin - alpha.yMin).toBeCloseTo(3 * 14.4, 3);
  });

  it("gives the same page count with and without addresses", async () => {
    const body = numberedLines(60);
    const bare = await typesetLetter(letter(body));
    const addressed = await typesetLetter(letter(body, { sender: SENDER, recipient: RECIPIENT }));
    expect(addressed.page_count).toBe(bare.page_count);
  });
});

describe("render options", () => {
  it("takes more pages with a bigger font", async () => {
    const body = PROSE.repeat(8);
    const small = await typesetLetter(letter(body, { render: { ...RENDER, font_size: 9 } }));
    const large = await typesetLetter(letter(body, { render: { ...RENDER, font_size: 14 } }));
    expect(large.page_count).toBeGreaterThan(small.page_count);
  });

  it("takes more pages with wider margins", async () => {
    const body = PROSE.repeat(8);
    const narrow = await typesetLetter(letter(body, { render: { ...RENDER, margin_in: 0.5 } }));
    const wide = await typesetLetter(letter(body, { render: { ...RENDER, margin_in: 1.5 } }));
    expect(wide.page_count).toBeGreaterThan(narrow.page_count);
    const firstWord = words(wide.pdf)[0]!;
    expect(firstWord.xMin).toBeCloseTo(1.5 * 72, 3);
  });

  it("sets times in Tinos and helvetica in Arimo, as subsets", async () => {
    const times = fontNames((await typesetLetter(letter("Hello", { title: "Title" }))).pdf);
    const helvetica = fontNames(
      (await typesetLetter(letter("Hello", { title: "Title", render: { ...RENDER, font: "helvetica" } })))
        .pdf,
    );
    expect(times.map((name) => name.replace(/^[A-Z]{6}\+/, "")).sort()).toEqual([
      "Tinos-Bold",
      "Tinos-Regular",
    ]);
    expect(helvetica.map((name) => name.replace(/^[A-Z]{6}\+/, "")).sort()).toEqual([
      "Arimo-Bold",
      "Arimo-Regular",
    ]);
  });

  it.each([
    [{ ...RENDER, font_size: 20 }],
    [{ ...RENDER, margin_in: 0.25 }],
    [{ ...RENDER, font: "courier" }],
    [{ ...RENDER, paper: "a4" }],
  ])("refuses render options out of range: %j", async (render) => {
    const error = await refusal(typesetLetter(letter("Hi", { render: render as LetterInput["render"] })));
    expect(error.code).toBe("invalid_letter_input");
    expect(error.field).toBe("render");
  });
});

describe("text and fonts", () => {
  const NAMES = "Zoë Łukasz-Müller, Ærøskøbing, Straße, Ελληνικά, Привет";

  it.each(["times", "helvetica"] as const)(
    "prints names in many scripts so they extract unchanged (%s)",
    async (font) => {
      const result = await typesetLetter(
        letter(`Dear ${NAMES},\n\nWelcome.`, { recipient: RECIPIENT, render: { ...RENDER, font } }),
      );
      const lines = textLines(result.pdf);
      expect(lines).toContain(`Dear ${NAMES},`);
      expect(lines).toContain("Zoë Łukasz-Müller");
      expect(lines).toContain("8000 Ærøskøbing");
    },
  );

  it("composes decomposed accents before printing", async () => {
    const result = await typesetLetter(letter("Zoe\u0308"));
    expect(textLines(result.pdf)).toEqual(["Zoë"]);
  });

  it("refuses characters no embedded font can print, naming them and the field", async () => {
    const error = await refusal(typesetLetter(letter("Hello 中文")));
    expect(error.code).toBe("character_unsupported");
    expect(error.field).toBe("body");
    expect(error.message).toContain("U+4E2D");
    const inAddress = await refusal(
      typesetLetter(letter("Hello", { recipient: { lines: ["王小明", "Beijing"] } })),
    );
    expect(inAddress.field).toBe("recipient");
  });

  it("refuses right-to-left text, which is not reordered yet", async () => {
    const error = await refusal(typesetLetter(letter("Shalom שלום")));
    expect(error.code).toBe("character_unsupported");
    expect(error.field).toBe("body");
    expect(error.message).toContain("U+05E9");
  });

  it("sets the title in bold above the body", async () => {
    const result = await typesetLetter(letter("Body text here.", { title: "Notice of Termination" }));
    const found = words(result.pdf);
    const title = found.find((word) => word.text === "Notice")!;
    const body = found.find((word) => word.text === "Body")!;
    expect(title.yMax).toBeLessThan(body.yMin);
    expect(title.yMin).toBeGreaterThanOrEqual(3.25 * 72);
    expect(title.yMin).toBeLessThan(3.25 * 72 + 2);
    expect(fontNames(result.pdf).some((name) => name.endsWith("+Tinos-Bold"))).toBe(true);
    expect(run("pdfinfo", [save(result.pdf)])).toContain("Notice of Termination");
  });
});

describe("addresses", () => {
  it("places the recipient and return addresses inside the envelope windows on page 1", async () => {
    const result = await typesetLetter(letter(PROSE.repeat(6), { sender: SENDER, recipient: RECIPIENT }));
    const found = words(result.pdf);
    const inRect = (word: Word, x: number, top: number, width: number, height: number) =>
      word.page === 1 &&
      word.xMin >= x - 0.01 &&
      word.xMax <= x + width + 0.01 &&
      word.yMin >= top - 0.01 &&
      word.yMax <= top + height + 0.01;
    const recipientWords = RECIPIENT.lines.join(" ").split(" ");
    const senderWords = SENDER.lines.join(" ").split(" ");
    const recipientFound = found.filter((word) => inRect(word, 36, 2.042 * 72, 3.5 * 72, 0.875 * 72));
    const senderFound = found.filter((word) => inRect(word, 36, 36, 3.25 * 72, 0.875 * 72));
    expect(recipientFound.map((word) => word.text)).toEqual(recipientWords);
    expect(senderFound.map((word) => word.text)).toEqual(senderWords);
    const addressWords = new Set([...recipientFound, ...senderFound]);
    for (const word of found) {
      if (!addressWords.has(word))
        expect(word.yMin).toBeGreaterThanOrEqual(word.page === 1 ? 3.25 * 72 - 0.01 : 0);
    }
  });

  it("refuses a recipient address with too many lines for the window", async () => {
    const lines = ["Name", "Attn", "Company", "Department", "Building", "Street", "City", "Country"];
    const error = await refusal(typesetLetter(letter("Hi", { recipient: { lines } })));
    expect(error.code).toBe("address_too_long_for_window");
    expect(error.field).toBe("recipient");
  });

  it("refuses a recipient line too wide for the window", async () => {
    const lines = [
      "The Honourable Maximilian Alexander Bartholomew Featherstonehaugh-Cholmondeley III",
      "London",
    ];
    const error = await refusal(typesetLetter(letter("Hi", { recipient: { lines } })));
    expect(error.code).toBe("address_too_long_for_window");
    expect(error.field).toBe("recipient");
  });

  it("refuses a return address too long for its window", async () => {
    const lines = ["A", "B", "C", "D", "E", "F", "G"];
    const error = await refusal(typesetLetter(letter("Hi", { sender: { lines } })));
    expect(error.code).toBe("address_too_long_for_window");
    expect(error.field).toBe("sender");
  });
});

describe("address placement", () => {
  const separate: LetterInput["render"] = { ...RENDER, address_placement: "separate_page" };

  it("puts the addresses alone on page 1 and starts the body at the top margin of page 2", async () => {
    const result = await typesetLetter(
      letter("Dear Ann,\n\nThank you.", {
        sender: SENDER,
        recipient: RECIPIENT,
        render: separate,
        title: "Notice",
      }),
    );
    expect(result.page_count).toBe(2);
    expect(pdfinfoPages(result.pdf)).toBe(2);
    expect(textLines(result.pdf, 1)).toEqual([...SENDER.lines, ...RECIPIENT.lines]);
    expect(textLines(result.pdf, 2)).toEqual(["Notice", "Dear Ann,", "Thank you."]);
    const title = words(result.pdf).find((word) => word.text === "Notice")!;
    expect(title.page).toBe(2);
    expect(title.yMin).toBeGreaterThanOrEqual(72 - 0.01);
    expect(title.yMin).toBeLessThan(72 + 4);
    const recipient = words(result.pdf).find((word) => word.text === "Zoë")!;
    expect(recipient).toMatchObject({ page: 1 });
    expect(recipient.yMin).toBeGreaterThanOrEqual(2.042 * 72 - 0.01);
  });

  it("counts the address page and gives the body full pages", async () => {
    // Page 1 of a window letter holds 33 lines at 12 pt; a full page holds 45.
    const window = await typesetLetter(letter(numberedLines(45)));
    const separated = await typesetLetter(letter(numberedLines(45), { render: separate }));
    expect(window.page_count).toBe(2);
    expect(separated.page_count).toBe(2);
    expect(textLines(separated.pdf, 2)).toEqual(numberedLines(45).split("\n"));
    const more = await typesetLetter(letter(numberedLines(46), { render: separate }));
    expect(more.page_count).toBe(3);
    expect(pdfinfoPages(more.pdf)).toBe(3);
    expect(textLines(more.pdf, 3)).toEqual(["Line 46"]);
  });

  it("keeps the address page when no address is given, so the page count does not depend on them", async () => {
    const bare = await typesetLetter(letter("Hello", { render: separate }));
    const addressed = await typesetLetter(letter("Hello", { render: separate, recipient: RECIPIENT }));
    expect(bare.page_count).toBe(2);
    expect(addressed.page_count).toBe(2);
    expect(textLines(bare.pdf, 1)).toEqual([]);
  });

  it("prints the watermark on the address page too", async () => {
    const result = await typesetLetter(letter("Hello", { render: separate, watermark: "TEST MODE" }));
    expect(pdfText(result.pdf, 1, true).replace(/\s/g, "")).toBe("TESTMODE");
  });

  it("is the window placement when not given", async () => {
    const implicit = await typesetLetter(letter("Hello", { recipient: RECIPIENT }));
    const explicit = await typesetLetter(
      letter("Hello", { recipient: RECIPIENT, render: { ...RENDER, address_placement: "window" } }),
    );
    expect(Buffer.from(implicit.pdf).equals(Buffer.from(explicit.pdf))).toBe(true);
    expect(implicit.page_count).toBe(1);
  });
});

describe("signatures", () => {
  it("sets a typed signature in Caveat after the body", async () => {
    const result = await typesetLetter(
      letter("Yours,", { signature: { mode: "typed", text: "Jane Public" } }),
    );
    expect(fontNames(result.pdf).some((name) => name.endsWith("+Caveat-Regular"))).toBe(true);
    const found = words(result.pdf);
    const closing = found.find((word) => word.text === "Yours,")!;
    const signature = found.find((word) => word.text === "Jane")!;
    expect(signature.yMin).toBeGreaterThan(closing.yMax);
    expect(textLines(result.pdf)).toEqual(["Yours,", "Jane Public"]);
  });

  it("falls back to the body face for a typed signature Caveat cannot print", async () => {
    const result = await typesetLetter(letter("Yours,", { signature: { mode: "typed", text: "Ελένη" } }));
    expect(fontNames(result.pdf).some((name) => name.includes("Caveat"))).toBe(false);
    expect(textLines(result.pdf)).toContain("Ελένη");
  });

  it("refuses a typed signature no face can print", async () => {
    const error = await refusal(
      typesetLetter(letter("Yours,", { signature: { mode: "typed", text: "王小明" } })),
    );
    expect(error.code).toBe("character_unsupported");
    expect(error.field).toBe("signature");
  });

  it("keeps the signature on one page with the closing line", async () => {
    // 33 lines fill page 1 exactly; the signature does not fit below them, so it takes the closing line along.
    const result = await typesetLetter(
      letter(numberedLines(33), { signature: { mode: "typed", text: "Jane Public" } }),
    );
    expect(result.page_count).toBe(2);
    expect(textLines(result.pdf, 1).at(-1)).toBe("Line 32");
    expect(textLines(result.pdf, 2)).toEqual(["Line 33", "Jane Public"]);
  });

  it("embeds a drawn PNG signature", async () => {
    const result = await typesetLetter(
      letter("Yours,", { signature: { mode: "drawn", dataUrl: pngDataUrl(40, 12, { striped: true }) } }),
    );
    expect(images(result.pdf)).toEqual([{ type: "image", width: 40, height: 12 }]);
  });

  it("embeds a drawn JPEG signature", async () => {
    const source = await typesetLetter(letter("Jane"));
    const prefix = join(probeDir(), "signature");
    execFileSync("pdftoppm", ["-jpeg", "-r", "10", "-singlefile", save(source.pdf), prefix]);
    const jpeg = readFileSync(`${prefix}.jpg`);
    const dataUrl = `data:image/jpeg;base64,${jpeg.toString("base64")}`;
    const result = await typesetLetter(letter("Yours,", { signature: { mode: "drawn", dataUrl } }));
    expect(images(result.pdf)).toEqual([{ type: "image", width: 85, height: 110 }]);
  });

  it.each([
    ["a data URL of another type", "data:text/plain;base64,aGVsbG8="],
    ["bytes that are no image", "data:image/png;base64,aGVsbG8gd29ybGQ="],
    [
      "a broken PNG",
      `data:image/png;base64,${Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2, 3]).toString("base64")}`,
    ],
    ["a URL", "https://example.com/signature.png"],
  ])("refuses %s as a drawn signature", async (_name, dataUrl) => {
    const error = await refusal(typesetLetter(letter("Yours,", { signature: { mode: "drawn", dataUrl } })));
    expect(error.code).toBe("image_unreadable");
    expect(error.field).toBe("signature");
  });
});

describe("watermark", () => {
  it("prints the watermark on every page, beneath the text", async () => {
    const result = await typesetLetter(letter(numberedLines(100), { watermark: "TEST MODE" }));
    expect(result.page_count).toBe(3);
    for (let page = 1; page <= 3; page++) {
      const raw = pdfText(result.pdf, page, true).split("\n").slice(0, 8).join("");
      expect(raw).toBe("TESTMODE");
    }
  });

  it("is absent unless asked for", async () => {
    const result = await typesetLetter(letter("Hello"));
    expect(pdfText(result.pdf, 1, true).trim()).toBe("Hello");
  });
});

describe("determinism", () => {
  it("gives byte-identical PDFs for the same input", async () => {
    const input = letter(`Dear Zoë,\n\n${PROSE.repeat(5)}\n\nSincerely,`, {
      title: "Déjà vu",
      sender: SENDER,
      recipient: RECIPIENT,
      signature: { mode: "typed", text: "Jane Public" },
      watermark: "TEST MODE",
    });
    const first = await typesetLetter(input);
    const second = await typesetLetter(structuredClone(input));
    expect(Buffer.from(second.pdf).equals(Buffer.from(first.pdf))).toBe(true);
    const drawn = {
      ...input,
      signature: { mode: "drawn" as const, dataUrl: pngDataUrl(20, 6, { striped: true }) },
    };
    expect(
      Buffer.from((await typesetLetter(drawn)).pdf).equals(Buffer.from((await typesetLetter(drawn)).pdf)),
    ).toBe(true);
  });

  it("writes no dates and a fixed producer", async () => {
    const info = run("pdfinfo", [save((await typesetLetter(letter("Hello"))).pdf)]);
    expect(info).not.toMatch(/CreationDate|ModDate/);
    expect(info).toMatch(/Producer:\s+Mailpiece typesetter/);
    const doc = await PDFDocument.load((await typesetLetter(letter("Hello"))).pdf, { updateMetadata: false });
    expect(doc.getCreationDate()).toBeUndefined();
  });
});

describe("formats and input", () => {
  it.each(["docx", "pdf", "TEXT", ""])("refuses %j, which is not a letter format", async (format) => {
    const error = await refusal(typesetLetter({ ...letter("# Hi"), format: format as "text" }));
    expect(error.code).toBe("format_unsupported");
    expect(error.field).toBe("format");
  });

  it("refuses an address placement it does not know", async () => {
    const render = { ...RENDER, address_placement: "back" } as unknown as LetterInput["render"];
    const error = await refusal(typesetLetter(letter("Hi", { render })));
    expect(error.code).toBe("invalid_letter_input");
    expect(error.field).toBe("render");
  });

  it("refuses a body that is not text", async () => {
    const error = await refusal(typesetLetter({ ...letter(""), body: 42 as unknown as string }));
    expect(error.code).toBe("invalid_letter_input");
    expect(error.field).toBe("body");
  });

  it("sets an empty body as one blank page", async () => {
    const result = await typesetLetter(letter(""));
    expect(result.page_count).toBe(1);
    expect(pdfinfoPages(result.pdf)).toBe(1);
  });
});
