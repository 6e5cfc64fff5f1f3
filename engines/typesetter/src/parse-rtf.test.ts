import { describe, expect, it } from "vitest";
import type { Block } from "./blocks.ts";
import { TypesetterError } from "./errors.ts";
import { parseRtf } from "./parse-rtf.ts";

const text = (value: string) => ({ text: value, style: "regular" as const });
const rtf = (body: string) =>
  `{\\rtf1\\ansi\\ansicpg1252\\deff0{\\fonttbl{\\f0\\froman Times;}}\\pard ${body}}`;

describe("parseRtf", () => {
  it("makes every paragraph a line and every empty paragraph a blank line, dropping trailing ones", () => {
    expect(parseRtf(rtf("Dear Ann,\\par\\par Thank you.\\par Best,\\par\\par\\par"))).toEqual([
      { kind: "line", runs: [text("Dear Ann,")] },
      { kind: "blank" },
      { kind: "line", runs: [text("Thank you.")] },
      { kind: "line", runs: [text("Best,")] },
    ]);
  });

  it("keeps the last paragraph without a closing \\par", () => {
    expect(parseRtf(rtf("One\\par Two"))).toEqual([
      { kind: "line", runs: [text("One")] },
      { kind: "line", runs: [text("Two")] },
    ]);
  });

  it("reads \\b and \\i, scoped to their group, switched off by \\b0, \\i0 and \\plain", () => {
    expect(parseRtf(rtf("a {\\b b {\\i c}} \\i d\\i0  \\b\\i e\\plain  f"))).toEqual([
      {
        kind: "line",
        runs: [
          text("a "),
          { text: "b ", style: "bold" },
          { text: "c", style: "bold-italic" },
          text(" "),
          { text: "d", style: "italic" },
          text(" "),
          { text: "e", style: "bold-italic" },
          text(" f"),
        ],
      },
    ]);
  });

  it("reads \\line as a line break, \\tab as spaces and the typographic symbols", () => {
    expect(parseRtf(rtf("a\\line b\\tab c \\lquote d\\rquote  \\endash  \\emdash  \\bullet\\~e"))).toEqual([
      { kind: "line", runs: [text("a\nb    c \u2018d\u2019 \u2013 \u2014 \u2022\u00a0e")] },
    ]);
  });

  it("decodes code-page bytes and Unicode escapes, skipping their fallback characters", () => {
    expect(parseRtf(rtf("Zo\\'eb \\u8212? {\\uc2\\u8364\\'80\\'80} \\u-10179?\\u-8704?"))).toEqual([
      { kind: "line", runs: [text("Zoë — € 😀")] },
    ]);
  });

  it("keeps characters written as they are, beyond ASCII", () => {
    expect(parseRtf(rtf("Zoë Łukasz \\b Ærø\\b0  😀"))).toEqual([
      { kind: "line", runs: [text("Zoë Łukasz "), { text: "Ærø", style: "bold" }, text(" 😀")] },
    ]);
  });

  it("prints only the body: tables of fonts, colours and styles, information, pictures, headers and \\* groups drop", () => {
    const body =
      "{\\colortbl;\\red0\\green0\\blue0;}{\\stylesheet{\\s0 Normal;}}{\\info{\\title T}{\\author A}}" +
      "{\\header head\\par}{\\footer foot}{\\*\\generator G}{\\pict\\pngblip 89504e47}" +
      "{\\footnote note}{\\*\\annotation ann}Body{\\field{\\*\\fldinst HYPERLINK x}{\\fldrslt  link}}\\par";
    expect(parseRtf(rtf(body))).toEqual([{ kind: "line", runs: [text("Body link")] }]);
  });

  it("drops hidden text (\\v)", () => {
    expect(parseRtf(rtf("shown{\\v  hidden} again \\v secret\\v0 end"))).toEqual([
      { kind: "line", runs: [text("shown again end")] },
    ]);
  });

  it("makes lists from paragraphs with list markers, nested by \\ilvl, numbered when the marker is a number", () => {
    const body =
      "{\\listtext 2.\\tab}\\ls1\\ilvl0 two\\par" +
      "{\\listtext 3.\\tab}\\ls1\\ilvl0 three\\par" +
      "{\\listtext \\'b7\\tab}\\ls2\\ilvl1 inner\\par" +
      "{\\listtext 4.\\tab}\\ls1\\ilvl0 four\\par" +
      "\\pard after\\par" +
      "{\\pntext\\'b7\\tab}{\\*\\pn\\pnlvlblt{\\pntxtb\\'b7}}old style\\par";
    expect(parseRtf(rtf(body))).toEqual([
      {
        kind: "list",
        ordered: true,
        start: 2,
        items: [
          [{ kind: "line", runs: [text("two")] }],
          [
            { kind: "line", runs: [text("three")] },
            { kind: "list", ordered: false, start: 1, items: [[{ kind: "line", runs: [text("inner")] }]] },
          ],
          [{ kind: "line", runs: [text("four")] }],
        ],
      },
      { kind: "line", runs: [text("after")] },
      { kind: "list", ordered: false, start: 1, items: [[{ kind: "line", runs: [text("old style")] }]] },
    ]);
  });

  it("nests lists at most nine levels deep (\\ilvl 0 to 8)", () => {
    const body = Array.from(
      { length: 40 },
      (_, level) => `{\\listtext -\\tab}\\ls1\\ilvl${level} item${level}\\par`,
    );
    const depth = (block: Block | undefined): number =>
      block?.kind === "list"
        ? 1 + Math.max(0, ...block.items.map((item) => depth(item.find((b) => b.kind === "list"))))
        : 0;
    const [list] = parseRtf(rtf(body.join("")));
    expect(depth(list)).toBe(9);
  });

  it("makes tables from \\intbl paragraphs, \\cell and \\row, with \\trhdr rows as the header", () => {
    const body =
      "\\trowd\\trhdr\\cellx1000\\cellx2000\\intbl {\\b A}\\cell B\\cell\\row" +
      "\\trowd\\cellx1000\\cellx2000\\intbl 1\\par one\\cell 2\\cell\\row" +
      "\\pard after\\par";
    expect(parseRtf(rtf(body))).toEqual([
      {
        kind: "table",
        headerRows: 1,
        rows: [
          { cells: [[{ text: "A", style: "bold" }], [text("B")]] },
          { cells: [[text("1\none")], [text("2")]] },
        ],
      },
      { kind: "line", runs: [text("after")] },
    ]);
  });

  it("makes headings of paragraphs with an outline level, as word processors write heading styles", () => {
    const body =
      "{\\stylesheet{\\s1\\outlinelevel0 heading 1;}}" +
      "\\pard\\s1\\outlinelevel0 Notice\\par" +
      "\\pard Body text.\\par" +
      "\\pard\\outlinelevel1 {\\listtext 2.\\tab}What changes\\par" +
      "\\pard\\outlinelevel4 Small print\\par" +
      "\\pard\\outlinelevel9 Body level\\par";
    expect(parseRtf(rtf(body))).toEqual([
      { kind: "heading", level: 1, runs: [text("Notice")] },
      { kind: "line", runs: [text("Body text.")] },
      { kind: "heading", level: 2, runs: [text("2. What changes")] },
      { kind: "heading", level: 3, runs: [text("Small print")] },
      { kind: "line", runs: [text("Body level")] },
    ]);
  });

  it("decodes text in the code page of its font, else of the document", () => {
    const fonts = "{\\fonttbl{\\f0 Times;}{\\f1\\fcharset204 Times Cyr;}{\\f2\\cpg1253 Greek;}}";
    expect(
      parseRtf(
        `{\\rtf1\\ansi\\ansicpg1252\\deff0${fonts}\\'e9 {\\f1 \\'cf\\'f0\\'e8\\'e2\\'e5\\'f2} {\\f2 \\'e1}}`,
      ),
    ).toEqual([{ kind: "line", runs: [text("é Привет α")] }]);
    expect(parseRtf("{\\rtf1\\ansi\\ansicpg1251 \\'cf\\'f0\\'e8}")).toEqual([
      { kind: "line", runs: [text("При")] },
    ]);
  });

  it("reads the Mac and DOS character sets", () => {
    expect(parseRtf("{\\rtf1\\mac M\\'8anner}")).toEqual([{ kind: "line", runs: [text("Männer")] }]);
    expect(parseRtf("{\\rtf1\\pc caf\\'82}")).toEqual([{ kind: "line", runs: [text("café")] }]);
    expect(parseRtf("{\\rtf1\\pca caf\\'82}")).toEqual([{ kind: "line", runs: [text("café")] }]);
  });

  it("decodes a double-byte character written as two escapes or as an escape and a letter", () => {
    expect(parseRtf("{\\rtf1\\ansi\\ansicpg932 \\'82\\'a0\\'83e}")).toEqual([
      { kind: "line", runs: [text("あテ")] },
    ]);
  });

  it("reads a font table whose fonts are not in groups of their own", () => {
    const header =
      "{\\rtf1\\ansi\\deff0{\\fonttbl\\f0\\fswiss\\fcharset0 Helvetica;\\f1\\fnil\\fcharset2 Symbol;}";
    expect(parseRtf(`${header}p {\\f1 p}}`)).toEqual([{ kind: "line", runs: [text("p π")] }]);
  });

  it("gives text in a symbol font the characters it draws", () => {
    const fonts =
      "{\\fonttbl{\\f0 Times;}{\\f1\\fnil\\fcharset2 Symbol;}{\\f2\\fnil\\fcharset2 Wingdings;}{\\f3\\fcharset2{\\*\\panose 0}Wingdings 3;}}";
    const body = "{\\f1 a\\'b7 \\u-3913?W}{\\f2 \\'a7J}{\\f3 \\'67}";
    expect(parseRtf(`{\\rtf1\\ansi\\deff0${fonts}${body}}`)).toEqual([
      { kind: "line", runs: [text("α• •Ω▪☺→")] },
    ]);
  });

  it("gives a symbol character with no Unicode counterpart a private-use code no face prints", () => {
    const fonts = "{\\fonttbl{\\f0 Times;}{\\f1 Wingdings;}{\\f2\\fcharset2 Marlett;}}";
    expect(parseRtf(`{\\rtf1\\ansi\\deff0${fonts}{\\f1 \\'22}{\\f2 a b}}`)).toEqual([
      { kind: "line", runs: [text("\uF022\uF061 \uF062")] },
    ]);
  });

  it("ends a paragraph at \\sect and \\page, and reads the spaces and hyphens written as control words", () => {
    expect(parseRtf(rtf("One\\sect Two\\page Three\\emspace a\\enspace b\\qmspace c\\_d\\-e"))).toEqual([
      { kind: "line", runs: [text("One")] },
      { kind: "line", runs: [text("Two")] },
      { kind: "line", runs: [text("Three a b c\u2011de")] },
    ]);
  });

  it("drops every {\\* } group, binary data, and what follows the document's closing brace", () => {
    expect(parseRtf("{\\rtf1 a{\\*\\b hidden}b\\bin3 xyzc} after")).toEqual([
      { kind: "line", runs: [text("abc")] },
    ]);
  });

  it("skips \\uc fallbacks counting an escape or a control word as one character, and scopes \\uc to its group", () => {
    expect(parseRtf(rtf("{\\uc3\\u8364\\'80\\tab x}-\\u8364?y"))).toEqual([
      { kind: "line", runs: [text("€-€y")] },
    ]);
  });

  it("reads a \\u number beyond 0xFFFF as a whole code point", () => {
    expect(parseRtf("{\\rtf1 a\\u128512?b}")).toEqual([{ kind: "line", runs: [text("a😀b")] }]);
  });

  it("reads a long paragraph of characters beyond ASCII written as they are", () => {
    const long = "Жд".repeat(75_000);
    expect(parseRtf(`{\\rtf1 ${long}}`)).toEqual([{ kind: "line", runs: [text(long)] }]);
  });

  it.each([
    ["a bad hex escape", "{\\rtf1 caf\\'zz}"],
    ["binary data past the end", "{\\rtf1 a\\bin999999999 b}"],
    ["an unknown code page", "{\\rtf1\\ansi\\ansicpg12345 \\'80}"],
    ["nothing", ""],
  ])("refuses %s with invalid_letter_input on the body", (_name, body) => {
    let error: unknown;
    try {
      parseRtf(body);
    } catch (caught) {
      error = caught;
    }
    expect(TypesetterError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ code: "invalid_letter_input", field: "body" });
  });

  it.each([
    ["plain text", "Dear Ann"],
    ["another format", "<p>Dear Ann</p>"],
    ["a wrong version", "{\\rtf2 Dear Ann}"],
  ])("refuses %s with invalid_letter_input on the body", (_name, body) => {
    let error: unknown;
    try {
      parseRtf(body);
    } catch (caught) {
      error = caught;
    }
    expect(TypesetterError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ code: "invalid_letter_input", field: "body" });
  });
});
