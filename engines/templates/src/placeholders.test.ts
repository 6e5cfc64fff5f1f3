import { describe, expect, it } from "vitest";
import { scanBody } from "./placeholders.ts";

describe("scanBody", () => {
  it("splits a body into text and variables, spaces allowed inside the braces", () => {
    expect(scanBody("Dear {{first_name}},\n{{ city }} and {{\tcity\t}}!")).toEqual({
      parts: [
        { text: "Dear " },
        { variable: "first_name" },
        { text: ",\n" },
        { variable: "city" },
        { text: " and " },
        { variable: "city" },
        { text: "!" },
      ],
      placeholders: ["first_name", "city"],
      invalid: [],
    });
  });

  it("keeps names case-sensitive and takes names up to 64 characters", () => {
    const long = `_${"a".repeat(63)}`;
    expect(scanBody(`{{Name}}{{name}}{{${long}}}`).placeholders).toEqual(["Name", "name", long]);
  });

  it.each([
    ["a name with a space", "Hi {{first name}}", ["{{first name}}"]],
    ["a name starting with a digit", "{{1st}}", ["{{1st}}"]],
    ["triple braces", "{{{name}}}", ["{{{name}}}"]],
    ["a name of 65 characters", `{{${"a".repeat(65)}}}`, [`{{${"a".repeat(38)}`]],
    ["an unclosed placeholder", "Hello {{name", ["{{name"]],
    ["an empty placeholder", "{{ }}", ["{{ }}"]],
  ])("reports %s as invalid and keeps it as text", (_name, body, invalid) => {
    const scanned = scanBody(body);
    expect(scanned.invalid).toEqual(invalid);
    expect(scanned.placeholders).toEqual([]);
    expect(scanned.parts.map((part) => ("text" in part ? part.text : "")).join("")).toBe(body);
  });

  it("reads single braces and a lone }} as text", () => {
    expect(scanBody("p { color: red } }} done")).toEqual({
      parts: [{ text: "p { color: red } }} done" }],
      placeholders: [],
      invalid: [],
    });
  });

  it("reports every {{ that opens nothing, and still finds the placeholders after them", () => {
    const body = `${"{{ ".repeat(5_000)}${" ".repeat(5_000)}{{x}}`;
    const scanned = scanBody(body);
    expect(scanned.invalid.length).toBe(5_000);
    expect(scanned.invalid[0]).toBe("{{ {{ {{ {{ {{ {{ {{ {{ {{ {{ {{ {{ {{ {");
    expect(scanned.placeholders).toEqual(["x"]);
  });
});

describe("scanBody: RTF", () => {
  it("takes placeholders with plain or escaped braces, and reads {{\\ and {{{ as RTF groups", () => {
    const body = "{\\rtf1{{\\*\\generator x;}}{{{\\b Dear}}} {{name}}, \\{\\{ city \\}\\}\\par}";
    expect(scanBody(body, "rtf")).toEqual({
      parts: [
        { text: "{\\rtf1{{\\*\\generator x;}}{{{\\b Dear}}} " },
        { variable: "name" },
        { text: ", " },
        { variable: "city" },
        { text: "\\par}" },
      ],
      placeholders: ["name", "city"],
      invalid: [],
    });
  });

  it("still reports a placeholder it cannot read, in either spelling", () => {
    expect(scanBody("{\\rtf1 {{first name}} \\{\\{last name\\}\\}}", "rtf").invalid).toEqual([
      "{{first name}} \\{\\{last name\\}\\}}",
      "\\{\\{last name\\}\\}}",
    ]);
  });

  it("reads escaped braces as text in the other formats", () => {
    expect(scanBody("\\{\\{name\\}\\}", "markdown")).toEqual({
      parts: [{ text: "\\{\\{name\\}\\}" }],
      placeholders: [],
      invalid: [],
    });
  });
});
