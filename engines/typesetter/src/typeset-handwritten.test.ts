import { afterAll, describe, expect, it } from "vitest";
import { HANDWRITING_STYLE_FACES, MAX_HANDWRITTEN_MESSAGE_CHARS } from "./handwriting-styles.ts";
import { inspectPdf } from "./inspect-pdf.ts";
import { MESSAGE_AREA } from "./layout-handwritten.ts";
import { RECIPIENT_WINDOW, RETURN_WINDOW } from "./page-geometry.ts";
import {
  fontNames,
  fontOf,
  pdfinfoPages,
  pdfText,
  printedLines,
  removeProbeFiles,
  styledRuns,
  word,
  words,
} from "./pdf-probe.ts";
import { refusal } from "./test-support.ts";
import type { HandwrittenInput } from "./typeset-handwritten.ts";
import { typesetHandwritten } from "./typeset-handwritten.ts";

afterAll(removeProbeFiles);

const SENDER = { lines: ["Ana Rivera", "12 Elm Street", "Springfield, IL 62701"] };
const RECIPIENT = { lines: ["Grace Hopper", "500 Main Street", "Columbus, OH 43215"] };

function card(message: string, overrides: Partial<HandwrittenInput> = {}): HandwrittenInput {
  return { message, sender: SENDER, recipient: RECIPIENT, date: "2026-11-24", ...overrides };
}

const MESSAGE = [
  "Dear Grace,",
  "",
  "Thank you for the lovely dinner last week. The children still talk about your apple pie, and so do we.",
  "",
  "With love,",
  "Ana & Tom",
].join("\n");

const PROSE =
  "It is a truth universally acknowledged, that a single man in possession of a good fortune, must be in want of a " +
  "wife. However little known the feelings or views of such a man may be on his first entering a neighbourhood, " +
  "this truth is so well fixed in the minds of the surrounding families, that he is considered the rightful " +
  "property of some one or other of their daughters. ";

/** The words of `text` in order, as pdftotext reads them back. */
function wordsOf(text: string): string[] {
  return text.split(/\s+/).filter((part) => part !== "");
}

describe("typesetHandwritten", () => {
  it("writes the date and the message in Caveat, in order, on one US letter page", async () => {
    const result = await typesetHandwritten(card(MESSAGE));
    expect(result.page_count).toBe(1);
    expect(result.font_size).toBe(HANDWRITING_STYLE_FACES.casual.size);
    expect(pdfinfoPages(result.pdf)).toBe(1);
    expect(await inspectPdf(result.pdf)).toMatchObject({ pages: [{ width_pt: 612, height_pt: 792 }] });

    const lines = printedLines(result.pdf);
    expect(lines.slice(0, 8)).toEqual([
      ...SENDER.lines,
      ...RECIPIENT.lines,
      "24 November 2026",
      "Dear Grace,",
    ]);
    expect(lines.slice(-2)).toEqual(["With love,", "Ana & Tom"]);
    expect(wordsOf(lines.slice(8, -2).join(" "))).toEqual(wordsOf(MESSAGE.split("\n")[2]!));
    const fonts = fontNames(result.pdf);
    expect(fonts.some((name) => /^[A-Z]{6}\+Caveat-Regular$/.test(name))).toBe(true);
    const runs = styledRuns(result.pdf);
    expect(fontOf(runs, "Dear Grace")).toBe("Caveat-Regular");
    expect(fontOf(runs, "apple")).toBe("Caveat-Regular");
    expect(fontOf(runs, "November")).toBe("Caveat-Regular");
  });

  it("prints the addresses in the envelope windows in the letter face, the message below them", async () => {
    const result = await typesetHandwritten(card(MESSAGE));
    const found = words(result.pdf);
    const inside = (text: string, window: typeof RETURN_WINDOW) => {
      const hit = word(found, text);
      return (
        hit.xMin >= window.x - 0.5 &&
        hit.xMax <= window.x + window.width &&
        hit.yMin >= window.top - 0.5 &&
        hit.yMax <= window.top + window.height
      );
    };
    expect(inside("Ana", RETURN_WINDOW)).toBe(true);
    expect(inside("62701", RETURN_WINDOW)).toBe(true);
    expect(inside("Grace", RECIPIENT_WINDOW)).toBe(true);
    expect(inside("43215", RECIPIENT_WINDOW)).toBe(true);
    expect(fontOf(result.pdf, "Grace Hopper")).toBe("Tinos-Regular");
    expect(word(found, "Dear").yMin).toBeGreaterThanOrEqual(MESSAGE_AREA.top);
    expect(word(found, "Dear").xMin).toBeGreaterThanOrEqual(MESSAGE_AREA.x - 0.5);
  });

  it.each([
    ["neat", "PatrickHand-Regular"],
    ["slanted", "Kalam-Regular"],
  ] as const)("writes the %s style in %s", async (style, face) => {
    const result = await typesetHandwritten(card("Thinking of you.\nLove, Ana", { style }));
    expect(fontNames(result.pdf).some((name) => name.endsWith(`+${face}`))).toBe(true);
    expect(fontOf(result.pdf, "Thinking of you.")).toBe(face);
    expect(printedLines(result.pdf).slice(-2)).toEqual(["Thinking of you.", "Love, Ana"]);
  });

  it("sets a long message smaller, down to the style's smallest size, and never cuts it", async () => {
    // Twelve short paragraphs take 23 lines: more than the 19 the card holds at the style's own size.
    const paragraphs = Array.from(
      { length: 12 },
      (_, index) => `Paragraph ${index + 1}: ${PROSE.slice(0, 30)}`,
    );
    const text = paragraphs.join("\n\n");
    const result = await typesetHandwritten(card(text, { style: "slanted" }));
    const style = HANDWRITING_STYLE_FACES.slanted;
    expect(result.page_count).toBe(1);
    expect(result.font_size).toBeLessThan(style.size);
    expect(result.font_size).toBeGreaterThanOrEqual(style.min_size);
    const printed = wordsOf(pdfText(result.pdf));
    expect(printed.slice(-wordsOf(text).length)).toEqual(wordsOf(text));
  });

  it("refuses a message that does not fit even at the smallest size: message_too_long_for_card", async () => {
    const lines = Array.from({ length: 40 }, (_, index) => `Line ${index + 1}`).join("\n");
    const error = await refusal(typesetHandwritten(card(lines)));
    expect(error.code).toBe("message_too_long_for_card");
    expect(error.field).toBe("message");
    expect(error.message).toMatch(/takes 40 lines at 15 pt/);
    expect(error.issues).toEqual([
      { path: "message", code: "message_too_long_for_card", message: error.message },
    ]);
  });

  it("refuses a message longer than MAX_HANDWRITTEN_MESSAGE_CHARS before measuring it", async () => {
    const error = await refusal(typesetHandwritten(card("a".repeat(MAX_HANDWRITTEN_MESSAGE_CHARS + 1))));
    expect(error.code).toBe("message_too_long_for_card");
    expect(error.field).toBe("message");
    expect(error.message).toMatch(/has 801 characters/);
    const huge = await refusal(typesetHandwritten(card(`${" ".repeat(1_000_000)}x`)));
    expect(huge).toMatchObject({ code: "message_too_long_for_card", field: "message" });
  });

  it("gives byte-identical PDFs for the same input, and prints a watermark when asked", async () => {
    const input = card(MESSAGE, { style: "neat", watermark: "TEST MODE" });
    const first = await typesetHandwritten(input);
    const second = await typesetHandwritten(structuredClone(input));
    expect(Buffer.from(second.pdf).equals(Buffer.from(first.pdf))).toBe(true);
    expect(pdfText(first.pdf, 1, true).split("\n").slice(0, 8).join("")).toBe("TESTMODE");
    expect(pdfText((await typesetHandwritten(card(MESSAGE))).pdf)).not.toMatch(/TEST/);
  });
});

describe("typesetHandwritten: refusals", () => {
  it.each([
    ["an unknown style", card("Hi", { style: "gothic" as never }), "style"],
    ["an empty message", card(" \n\n  \n"), "message"],
    ["a message that is not text", card(42 as never), "message"],
    ["a missing recipient", { message: "Hi", sender: SENDER } as HandwrittenInput, "recipient"],
    ["a malformed sender", card("Hi", { sender: { lines: "Ana" } as never }), "sender"],
    ["a date that does not exist", card("Hi", { date: "2026-02-30" }), "date"],
  ])("refuses %s: invalid_letter_input on its field", async (_name, input, field) => {
    const error = await refusal(typesetHandwritten(input));
    expect(error.code).toBe("invalid_letter_input");
    expect(error.field).toBe(field);
  });

  it("refuses characters the style's face cannot print, and right-to-left text", async () => {
    const greek = await refusal(typesetHandwritten(card("Καλημέρα", { style: "neat" })));
    expect(greek).toMatchObject({ code: "character_unsupported", field: "message" });
    expect(greek.message).toMatch(/PatrickHand-Regular/);
    const hebrew = await refusal(typesetHandwritten(card("שלום")));
    expect(hebrew).toMatchObject({ code: "character_unsupported", field: "message" });
  });

  it("refuses an address too long for its window, as for a letter", async () => {
    const recipient = { lines: ["Grace Hopper", "x".repeat(120), "Columbus, OH 43215"] };
    const error = await refusal(typesetHandwritten(card("Hi", { recipient })));
    expect(error).toMatchObject({ code: "address_too_long_for_window", field: "recipient" });
  });
});
