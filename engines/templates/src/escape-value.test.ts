import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { LetterFormat } from "@mailpiece/orders";
import { typesetLetter } from "@mailpiece/typesetter";
import { afterAll, describe, expect, it } from "vitest";
import { escapeValue } from "./escape-value.ts";
import { mergeTemplate } from "./merge-template.ts";
import { parseTemplateBody } from "./template-version.ts";

const dir = mkdtempSync(join(tmpdir(), "mailpiece-templates-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The printed lines of a letter, as pdftotext reads them back, trimmed, blank ones left out. */
async function printed(body: string, format: LetterFormat): Promise<string[]> {
  const { pdf } = await typesetLetter({
    body,
    format,
    furniture: "none",
    render: { font: "times", font_size: 11, margin_in: 1, paper: "letter" },
  });
  const file = join(dir, `${format}.pdf`);
  writeFileSync(file, pdf);
  return execFileSync("pdftotext", ["-enc", "UTF-8", file, "-"], { encoding: "utf8" })
    .split("\n")
    .map((line) => line.replace(/\f/g, "").trim())
    .filter((line) => line !== "");
}

/** Markup of every format, and lines that would start blocks in markdown. */
const HOSTILE = [
  "**not bold** _not italic_ `not code` [not a link](https://x.test)",
  "<b>not bold</b> &amp; {\\b not bold} \\par",
  "# not a heading",
  "> not a quote",
  "- not a list",
  "1. not a list",
  "    not code",
  "| not | a table |",
];

const TEMPLATES: Record<Exclude<LetterFormat, "text">, string> = {
  markdown: "Dear Zoë,\n\nYou wrote: {{quote}}\n\nRegards",
  html: "<p>Dear Zoë,</p><p>You wrote: {{quote}}</p><p>Regards</p>",
  rtf: "{\\rtf1\\ansi{\\fonttbl{\\f0 Times;}}\\f0 Dear Zo\\'eb,\\par\\par You wrote: \\b{{quote}}\\b0\\par\\par Regards}",
};

describe("escapeValue: a merged value prints as written, in every format", () => {
  it.each(Object.keys(TEMPLATES) as (keyof typeof TEMPLATES)[])("%s", async (format) => {
    const version = parseTemplateBody({
      name: "quote",
      body: TEMPLATES[format],
      format,
      variables: [{ name: "quote" }],
    });
    if (!version.ok) throw new Error(JSON.stringify(version.issues));
    const merged = mergeTemplate(version.value, { quote: HOSTILE.join("\n") });
    if (!merged.ok) throw new Error(JSON.stringify(merged.issues));
    const lines = await printed(merged.value.body, format);
    expect(lines[0]).toBe("Dear Zoë,");
    expect(lines.at(-1)).toBe("Regards");
    // The value's lines, each as written (the first after "You wrote:"); leading spaces of a line are not printed.
    const value = lines.slice(1, -1).join("\n");
    expect(value).toBe(`You wrote: ${HOSTILE.map((line) => line.trim()).join("\n")}`);
  });
});

describe("escapeValue", () => {
  it("leaves text as written and escapes nothing beyond its format's markup", () => {
    expect(escapeValue("a * b\n<c>", "text")).toBe("a * b\n<c>");
    expect(escapeValue("Zoë Łukasz 42", "markdown")).toBe("Zoë Łukasz 42");
    expect(escapeValue("Zoë Łukasz, 42", "markdown")).toBe("Zoë Łukasz\\, 42");
    expect(escapeValue("Zoë Łukasz, 42", "html")).toBe("Zoë Łukasz, 42");
    expect(escapeValue("", "rtf")).toBe("");
  });

  it("writes every kind of line break as one line break", () => {
    expect(escapeValue("a\r\nb\rc\u2028d", "html")).toBe("a<br>b<br>c<br>d");
    expect(escapeValue("a\r\nb", "rtf")).toBe("{\\uc1 a\\line b}");
    expect(escapeValue("a\r\nb", "markdown")).toBe("a\\\nb");
  });
});
