import { describe, expect, it } from "vitest";
import { compileTemplate, escapeHtml, fillTemplate, templateValue } from "./campaign-template.ts";

const COLUMNS = ["recipient_name", "Venue", "note"];

describe("compileTemplate", () => {
  it("names each column once, as written in the header, matching placeholders without regard to case", () => {
    const template = compileTemplate("{{ venue }} {{RECIPIENT_NAME}} {{Venue}}", COLUMNS, { html: false });
    expect(template.columns).toEqual(["Venue", "recipient_name"]);
    expect(template.parts).toEqual([
      { column: "Venue" },
      { text: " " },
      { column: "recipient_name" },
      { text: " " },
      { column: "Venue" },
    ]);
  });

  it("keeps a placeholder that names no column as literal text", () => {
    const template = compileTemplate("Hi {{missing}}, {{note}}!", COLUMNS, { html: false });
    expect(template.columns).toEqual(["note"]);
    expect(fillTemplate(template, { note: "x" })).toBe("Hi {{missing}}, x!");
  });

  it("counts the literal characters in code points", () => {
    expect(compileTemplate("é😀 {{note}} ab", COLUMNS, { html: false }).literalChars).toBe(6);
  });
});

describe("fillTemplate", () => {
  it("puts each row's values in place, empty for a value the row lacks", () => {
    const template = compileTemplate("Dear {{recipient_name}},\n{{note}}/{{Venue}}", COLUMNS, {
      html: false,
    });
    expect(fillTemplate(template, { recipient_name: "Grace", Venue: "the park" })).toBe(
      "Dear Grace,\n/the park",
    );
  });

  it("escapes values in an html template, never the template itself", () => {
    const template = compileTemplate("<p>{{note}}</p>", COLUMNS, { html: true });
    expect(fillTemplate(template, { note: `<b>"Tom" & 'Jerry'</b>` })).toBe(
      "<p>&lt;b&gt;&quot;Tom&quot; &amp; &#39;Jerry&#39;&lt;/b&gt;</p>",
    );
    const text = compileTemplate("{{note}}", COLUMNS, { html: false });
    expect(fillTemplate(text, { note: "<b>" })).toBe("<b>");
  });

  it("reads only the row's own values, not inherited ones", () => {
    const template = compileTemplate("[{{constructor}}]", ["constructor"], { html: false });
    expect(fillTemplate(template, {})).toBe("[]");
  });
});

describe("templateValue and escapeHtml", () => {
  it("escape only in html templates", () => {
    expect(templateValue(compileTemplate("", [], { html: true }), "a<b")).toBe("a&lt;b");
    expect(templateValue(compileTemplate("", [], { html: false }), "a<b")).toBe("a<b");
    expect(templateValue(compileTemplate("", [], { html: true }), undefined)).toBe("");
    expect(escapeHtml("plain text")).toBe("plain text");
  });
});
