/**
 * Test helper: reads typeset PDFs back with poppler's tools (pdftotext, pdfinfo, pdffonts, pdfimages, pdftohtml), the
 * way a print provider's software sees them, and their embedded fonts with pdf-lib. Not part of the package's API.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { inflateSync } from "node:zlib";
import type { PDFObject } from "pdf-lib";
import { PDFArray, PDFDict, PDFDocument, PDFName, type PDFNumber, PDFRawStream } from "pdf-lib";

let dir: string | undefined;
let fileCount = 0;

/** Writes the PDF to a temporary file and returns its path. */
export function save(pdf: Uint8Array): string {
  dir ??= mkdtempSync(join(tmpdir(), "mailpiece-typesetter-"));
  const path = join(dir, `letter-${fileCount++}.pdf`);
  writeFileSync(path, pdf);
  return path;
}

/** A temporary directory for other files of a test (removed by `removeProbeFiles`). */
export function probeDir(): string {
  dir ??= mkdtempSync(join(tmpdir(), "mailpiece-typesetter-"));
  return dir;
}

/** Removes the temporary files; call it in `afterAll`. */
export function removeProbeFiles(): void {
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
}

export function run(tool: string, args: string[]): string {
  return execFileSync(tool, args, { encoding: "utf8" });
}

export function pdfText(pdf: Uint8Array, page?: number, raw = false): string {
  const pages = page === undefined ? [] : ["-f", String(page), "-l", String(page)];
  return run("pdftotext", ["-enc", "UTF-8", ...(raw ? ["-raw"] : []), ...pages, save(pdf), "-"]);
}

/** The non-empty lines of the text, trimmed. */
export function textLines(pdf: Uint8Array, page?: number): string[] {
  return pdfText(pdf, page)
    .split("\n")
    .map((line) => line.replace(/\f/g, "").trim())
    .filter((line) => line !== "");
}

export interface Word {
  page: number;
  text: string;
  xMin: number;
  yMin: number;
  xMax: number;
  yMax: number;
}

function unescapeXml(text: string): string {
  return text
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, "&");
}

/** Words with their boxes from `pdftotext -bbox`: points, y measured down from the top of the page. */
export function words(pdf: Uint8Array): Word[] {
  const html = run("pdftotext", ["-bbox", save(pdf), "-"]);
  const found: Word[] = [];
  let page = 0;
  for (const line of html.split("\n")) {
    if (line.includes("<page ")) page++;
    const match = /<word xMin="([\d.]+)" yMin="([\d.]+)" xMax="([\d.]+)" yMax="([\d.]+)">(.*)<\/word>/.exec(
      line,
    );
    if (match) {
      found.push({
        page,
        xMin: Number(match[1]),
        yMin: Number(match[2]),
        xMax: Number(match[3]),
        yMax: Number(match[4]),
        text: unescapeXml(match[5]!),
      });
    }
  }
  return found;
}

/**
 * The printed lines: words on one page whose baselines lie within a point, left to right, joined by a space. Unlike
 * pdftotext's layout, table cells on one row make one line.
 */
export function printedLines(pdf: Uint8Array): string[] {
  const lines: Word[][] = [];
  for (const found of words(pdf)) {
    const line = lines.find((candidate) => {
      const first = candidate[0]!;
      return first.page === found.page && Math.abs(first.yMax - found.yMax) < 1;
    });
    if (line) line.push(found);
    else lines.push([found]);
  }
  return lines
    .sort((a, b) => a[0]!.page - b[0]!.page || a[0]!.yMax - b[0]!.yMax)
    .map((line) =>
      line
        .sort((a, b) => a.xMin - b.xMin)
        .map((found) => found.text)
        .join(" "),
    );
}

/** The first word with this text (failing the test when there is none). */
export function word(found: readonly Word[], text: string): Word {
  const hit = found.find((candidate) => candidate.text === text);
  if (hit === undefined) throw new Error(`no word "${text}" in ${found.map((w) => w.text).join(" ")}`);
  return hit;
}

export function pdfinfoPages(pdf: Uint8Array): number {
  return Number(/Pages:\s+(\d+)/.exec(run("pdfinfo", [save(pdf)]))?.[1]);
}

/** Names of the fonts, as pdffonts lists them ("ABCDEF+Tinos-Bold"). */
export function fontNames(pdf: Uint8Array): string[] {
  return run("pdffonts", [save(pdf)])
    .split("\n")
    .slice(2)
    .map((line) => line.split(/\s+/)[0] ?? "")
    .filter((name) => name !== "");
}

/** A stretch of text drawn in one font, as pdftohtml reads it, with the PostScript name of its font. */
export interface StyledRun {
  page: number;
  text: string;
  font: string;
}

/** The text runs of the PDF with their fonts, in drawing order, the subset tag dropped ("Tinos-BoldItalic"). */
export function styledRuns(pdf: Uint8Array): StyledRun[] {
  const byTag = new Map(fontNames(pdf).map((name) => [name.split("+")[0]!, name.split("+")[1] ?? name]));
  const xml = run("pdftohtml", ["-xml", "-i", "-stdout", "-q", save(pdf)]);
  const fonts = new Map<string, string>();
  const runs: StyledRun[] = [];
  let page = 0;
  for (const line of xml.split("\n")) {
    if (line.startsWith("<page ")) page++;
    const spec = /<fontspec id="(\d+)"[^>]* family="([^"+]+)\+/.exec(line);
    if (spec) fonts.set(spec[1]!, byTag.get(spec[2]!) ?? spec[2]!);
    const text = /<text [^>]*font="(\d+)">(.*)<\/text>/.exec(line);
    if (text) {
      runs.push({
        page,
        font: fonts.get(text[1]!) ?? "",
        text: unescapeXml(text[2]!.replace(/<\/?[bi]>/g, "")),
      });
    }
  }
  return runs;
}

/** The font of the run that holds `text` (failing the test when there is none). */
export function fontOf(pdf: Uint8Array | StyledRun[], text: string): string {
  const runs = Array.isArray(pdf) ? pdf : styledRuns(pdf);
  const hit = runs.find((candidate) => candidate.text.includes(text));
  if (hit === undefined) throw new Error(`no run holds "${text}": ${runs.map((r) => r.text).join(" | ")}`);
  return hit.font;
}

/** Images of the PDF as pdfimages lists them. */
export function images(pdf: Uint8Array): { width: number; height: number; type: string }[] {
  return run("pdfimages", ["-list", save(pdf)])
    .split("\n")
    .slice(2)
    .filter((line) => line.trim() !== "")
    .map((line) => {
      const columns = line.trim().split(/\s+/);
      return { type: columns[2] ?? "", width: Number(columns[3]), height: Number(columns[4]) };
    });
}

/** A Type0 font embedded in a PDF: its name, its font program, and its widths and characters by code. */
export interface EmbeddedFont {
  baseFont: string;
  /** The TrueType program (FontFile2), inflated. */
  program: Uint8Array;
  /** The advance of each code in thousandths of the font size (the CIDFont's W array, from code 0). */
  widths: number[];
  /** The characters of each code, from the ToUnicode map. */
  characters: Map<number, string>;
}

/** The Type0 fonts of the PDF, read back from its objects. */
export async function embeddedFonts(pdf: Uint8Array): Promise<EmbeddedFont[]> {
  const doc = await PDFDocument.load(pdf, { updateMetadata: false });
  const context = doc.context;
  const dict = (value: PDFObject | undefined): PDFDict => {
    const found = value === undefined ? undefined : context.lookup(value);
    if (!(found instanceof PDFDict)) throw new Error("not a dictionary");
    return found;
  };
  const streamBytes = (value: PDFObject | undefined): Uint8Array => {
    const found = value === undefined ? undefined : context.lookup(value);
    if (!(found instanceof PDFRawStream)) throw new Error("not a stream");
    return new Uint8Array(inflateSync(found.contents));
  };
  const fonts: EmbeddedFont[] = [];
  for (const [, object] of context.enumerateIndirectObjects()) {
    if (!(object instanceof PDFDict) || object.get(PDFName.of("Subtype")) !== PDFName.of("Type0")) continue;
    const descendants = context.lookup(object.get(PDFName.of("DescendantFonts")));
    if (!(descendants instanceof PDFArray)) throw new Error("no descendant fonts");
    const cidFont = dict(descendants.get(0));
    const descriptor = dict(cidFont.get(PDFName.of("FontDescriptor")));
    const w = context.lookup(cidFont.get(PDFName.of("W")));
    if (!(w instanceof PDFArray) || (w.get(0) as PDFNumber).asNumber() !== 0) throw new Error("W not from 0");
    const widths = (w.get(1) as PDFArray).asArray().map((width) => (width as PDFNumber).asNumber());
    const cmap = Buffer.from(streamBytes(object.get(PDFName.of("ToUnicode")))).toString("latin1");
    const characters = new Map<number, string>();
    for (const [, code, utf16] of cmap.matchAll(/^<([0-9a-f]{4})> <([0-9a-f]+)>$/gm)) {
      const units = utf16!.match(/.{4}/g)!.map((unit) => Number.parseInt(unit, 16));
      characters.set(Number.parseInt(code!, 16), String.fromCharCode(...units));
    }
    fonts.push({
      baseFont: (object.get(PDFName.of("BaseFont")) as PDFName).decodeText(),
      program: streamBytes(descriptor.get(PDFName.of("FontFile2"))),
      widths,
      characters,
    });
  }
  return fonts;
}
