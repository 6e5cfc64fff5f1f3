import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import PDFDocument from "pdfkit";
import type { LetterInput } from "../engines/typesetter/src/index.ts";
import { typesetLetter } from "../engines/typesetter/src/index.ts";
import { table } from "./lib.ts";

const PROSE =
  "It is a truth universally acknowledged, that a single man in possession of a good fortune, must be in want of a " +
  "wife. However little known the feelings or views of such a man may be on his first entering a neighbourhood, " +
  "this truth is so well fixed in the minds of the surrounding families, that he is considered the rightful " +
  "property of some one or other of their daughters.";

const RENDER: LetterInput["render"] = { font: "times", font_size: 12, margin_in: 1, paper: "letter" };
const LEADING = 1.2;

/** Tinos, the face the typesetter sets "times" in, read from the typesetter's font package. */
const TINOS = readFileSync(
  createRequire(new URL("../engines/typesetter/package.json", import.meta.url)).resolve(
    "@expo-google-fonts/tinos/400Regular/Tinos_400Regular.ttf",
  ),
);

function letterBody(paragraphs: number): string {
  const lines = ["Dear Ms Bennet,", ""];
  for (let index = 0; index < paragraphs; index++) lines.push(PROSE, "");
  lines.push("Sincerely,");
  return lines.join("\n");
}

/** The plain-text body with the fewest paragraphs that the typesetter sets on `pages` pages. */
async function bodyOf(pages: number): Promise<string> {
  for (let paragraphs = 1; ; paragraphs++) {
    const body = letterBody(paragraphs);
    const { page_count } = await typesetLetter({ body, format: "text", render: RENDER });
    if (page_count >= pages) return body;
  }
}

function typeset(body: string): Promise<number> {
  return typesetLetter({ body, format: "text", render: RENDER }).then((result) => result.page_count);
}

/** The same text with pdfkit: Tinos embedded as a subset, the same margins, size and line distance. */
function pdfkit(body: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const doc = new PDFDocument({
      size: "LETTER",
      margin: 72,
      bufferPages: true,
      info: { Producer: "bench" },
    });
    const chunks: Buffer[] = [];
    doc.on("data", (chunk: Buffer) => chunks.push(chunk));
    doc.on("error", reject);
    doc.font(TINOS).fontSize(RENDER.font_size);
    const lineGap = RENDER.font_size * LEADING - doc.currentLineHeight(false);
    doc.text(body, { lineGap });
    const pages = doc.bufferedPageRange().count;
    doc.on("end", () => resolve(pages));
    doc.end();
  });
}

/** Letters per second over `count` runs after `warmUp` runs, and the page count of the last. */
async function rate(render: (body: string) => Promise<number>, body: string, warmUp: number, count: number) {
  let pages = 0;
  for (let index = 0; index < warmUp; index++) pages = await render(body);
  const start = process.hrtime.bigint();
  for (let index = 0; index < count; index++) pages = await render(body);
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  return { perSecond: count / seconds, pages };
}

/**
 * Letters per second of `typesetLetter` for a 1-page and a 20-page plain-text letter, against pdfkit setting the same
 * text in the same face (Tinos) in the same run; the ratio is typesetter over pdfkit (above 1: faster than pdfkit).
 */
export async function benchLetters(): Promise<string> {
  const cases: [string, string, number, number][] = [
    ["1-page letter", await bodyOf(1), 30, 400],
    ["20-page letter", await bodyOf(20), 5, 40],
  ];
  const rows: (string | number)[][] = [
    ["case", "typesetter letters/s", "pdfkit letters/s", "ratio", "pages (typesetter / pdfkit)"],
  ];
  for (const [name, body, warmUp, count] of cases) {
    const ours = await rate(typeset, body, warmUp, count);
    const theirs = await rate(pdfkit, body, warmUp, count);
    rows.push([
      name,
      ours.perSecond.toFixed(1),
      theirs.perSecond.toFixed(1),
      (ours.perSecond / theirs.perSecond).toFixed(2),
      `${ours.pages} / ${theirs.pages}`,
    ]);
  }
  return [
    "plain-text letters, Tinos 12 pt, 1 in margins; fixed runs after a warm-up, one process, one at a time",
    table(rows),
  ].join("\n");
}
