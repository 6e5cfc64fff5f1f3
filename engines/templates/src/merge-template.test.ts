import type { LetterFormat } from "@mailpiece/orders";
import { describe, expect, it } from "vitest";
import { TemplatesError } from "./errors.ts";
import { TEMPLATE_LIMITS } from "./limits.ts";
import { mergeTemplate } from "./merge-template.ts";
import type { TemplateVersion } from "./template-version.ts";
import { parseTemplateBody } from "./template-version.ts";

function template(body: string, format: LetterFormat = "text", variables: unknown[] = []): TemplateVersion {
  const parsed = parseTemplateBody({ name: "t", body, format, variables });
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.issues));
  return parsed.value;
}

const NOTE = template(
  "Dear {{ first_name }},\nYour order of {{count}} {{item}} is ready.\n{{closing}}",
  "text",
  [
    { name: "first_name" },
    { name: "count" },
    { name: "item" },
    { name: "closing", default: "Kind regards" },
    { name: "ps", required: false },
  ],
);

function refusals(merged: ReturnType<typeof mergeTemplate>): string[] {
  expect(merged.ok).toBe(false);
  return merged.ok ? [] : merged.issues.map((issue) => `${issue.path} ${issue.code}`);
}

describe("mergeTemplate", () => {
  it("fills every placeholder, numbers in their shortest form, defaults for what is not given", () => {
    expect(mergeTemplate(NOTE, { first_name: "Zoë", count: 3, item: "notebooks" })).toEqual({
      ok: true,
      value: {
        body: "Dear Zoë,\nYour order of 3 notebooks is ready.\nKind regards",
        format: "text",
        version: 1,
      },
    });
    const merged = mergeTemplate(NOTE, {
      first_name: "Al",
      count: -0.25,
      item: "kg",
      closing: "Bye",
      ps: "",
    });
    expect(merged.ok && merged.value.body).toBe("Dear Al,\nYour order of -0.25 kg is ready.\nBye");
  });

  it("never leaves a required placeholder blank: missing or blank values are variable_missing", () => {
    expect(refusals(mergeTemplate(NOTE, { first_name: "  ", item: "x" }))).toEqual([
      "variables.first_name variable_missing",
      "variables.count variable_missing",
    ]);
    expect(refusals(mergeTemplate(NOTE, undefined))).toEqual([
      "variables.first_name variable_missing",
      "variables.count variable_missing",
      "variables.item variable_missing",
    ]);
  });

  it("refuses names the template does not declare, values of other types and values too long", () => {
    const merged = mergeTemplate(NOTE, {
      first_name: "Al",
      count: 1e21,
      item: "x".repeat(TEMPLATE_LIMITS.value_chars + 1),
      closing: true,
      nickname: "Bee",
      "first name": "Al",
    });
    expect(refusals(merged)).toEqual([
      "variables.count invalid_type",
      "variables.item too_long",
      "variables.closing invalid_type",
      "variables.nickname variable_unknown",
      'variables["first name"] variable_unknown',
    ]);
    expect(refusals(mergeTemplate(NOTE, ["Al"]))).toContain("variables invalid_type");
    expect(refusals(mergeTemplate(NOTE, { first_name: null, count: 1, item: "x" }))).toEqual([
      "variables.first_name invalid_type",
    ]);
  });

  it("counts a value's length in characters, not UTF-16 units", () => {
    const emoji = "😀".repeat(TEMPLATE_LIMITS.value_chars);
    const merged = mergeTemplate(NOTE, { first_name: emoji, count: 1, item: "x" });
    expect(merged.ok).toBe(true);
  });

  it("refuses a merge whose letter would be longer than a letter may be", () => {
    const many = template("{{v}}".repeat(25), "text", [{ name: "v" }]);
    expect(refusals(mergeTemplate(many, { v: "x".repeat(TEMPLATE_LIMITS.value_chars) }))).toEqual([
      "variables merged_letter_too_long",
    ]);
  });

  it("never expands placeholders written in a value", () => {
    const merged = mergeTemplate(NOTE, { first_name: "{{item}}", count: 1, item: "{{closing}}" });
    expect(merged.ok && merged.value.body).toBe(
      "Dear {{item}},\nYour order of 1 {{closing}} is ready.\nKind regards",
    );
  });

  it("throws template_version_invalid for a version with an undeclared placeholder", () => {
    const broken = { ...NOTE, variables: [] };
    expect(() => mergeTemplate(broken, {})).toThrow(TemplatesError);
  });
});

describe("mergeTemplate: values are escaped for the format", () => {
  const hostile = "<b>Bold</b> & **strong** [link](x) # {\\b x}";

  it("html: special characters as references, line breaks as <br>", () => {
    const merged = mergeTemplate(template("<p>Hi {{name}}</p>", "html", [{ name: "name" }]), {
      name: `${hostile}\n"Al" 'B'`,
    });
    expect(merged.ok && merged.value).toEqual({
      body: "<p>Hi &lt;b&gt;Bold&lt;/b&gt; &amp; **strong** [link](x) # {\\b x}<br>&quot;Al&quot; &#39;B&#39;</p>",
      format: "html",
      version: 1,
    });
  });

  it("markdown: punctuation escaped, HTML characters as references, indents kept from code blocks", () => {
    const merged = mergeTemplate(template("Hi {{name}}", "markdown", [{ name: "name" }]), {
      name: `${hostile}\n    1. item`,
    });
    expect(merged.ok && merged.value.body).toBe(
      "Hi &lt;b&gt;Bold&lt;\\/b&gt; &amp; \\*\\*strong\\*\\* \\[link\\]\\(x\\) \\# \\{\\\\b x\\}\\\n&#32;&#32;&#32;&#32;1\\. item",
    );
  });

  it("rtf: control characters escaped, beyond ASCII as \\u, in a group of its own", () => {
    const merged = mergeTemplate(template("{\\rtf1\\ansi \\b{{name}}\\b0}", "rtf", [{ name: "name" }]), {
      name: "{\\b0 Zoë}\t😀\nx",
    });
    expect(merged.ok && merged.value.body).toBe(
      "{\\rtf1\\ansi \\b{\\uc1 \\{\\\\b0 Zo\\u235?\\}\\tab \\u-10179?\\u-8704?\\line x}\\b0}",
    );
  });

  it("text: as written", () => {
    const merged = mergeTemplate(template("Hi {{name}}", "text", [{ name: "name" }]), { name: hostile });
    expect(merged.ok && merged.value.body).toBe(`Hi ${hostile}`);
  });
});
