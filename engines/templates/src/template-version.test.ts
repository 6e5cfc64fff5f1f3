import { describe, expect, it } from "vitest";
import { TemplatesError } from "./errors.ts";
import { TEMPLATE_LIMITS } from "./limits.ts";
import type { TemplateVersion } from "./template-version.ts";
import { nextTemplateVersion, parseTemplateBody } from "./template-version.ts";

const THANKS = {
  name: "Thank-you note",
  body: "Dear {{ first_name }},\n\nThank you for your order of {{item}}.\n\n{{closing}}",
  variables: [
    { name: "first_name" },
    { name: "item", required: true },
    { name: "closing", default: "Kind regards" },
    { name: "unused", required: false },
  ],
};

function first(): TemplateVersion {
  const parsed = parseTemplateBody(THANKS);
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.issues));
  return parsed.value;
}

/** The issues of a refused parse as "path code" lines. */
function refusals(parsed: { ok: boolean; issues?: { path: string; code: string }[] }): string[] {
  expect(parsed.ok).toBe(false);
  return (parsed.issues ?? []).map((issue) => `${issue.path} ${issue.code}`);
}

describe("parseTemplateBody", () => {
  it("makes version 1, format text by default, required resolved, placeholders in order of use", () => {
    expect(first()).toEqual({
      version: 1,
      name: "Thank-you note",
      body: THANKS.body,
      format: "text",
      variables: [
        { name: "first_name", required: true },
        { name: "item", required: true },
        { name: "closing", required: false, default: "Kind regards" },
        { name: "unused", required: false },
      ],
      placeholders: ["first_name", "item", "closing"],
    });
  });

  it("takes a template without variables, and each letter format", () => {
    for (const format of ["text", "markdown", "html", "rtf"] as const) {
      const parsed = parseTemplateBody({ name: "Plain", body: "No placeholders here.", format });
      expect(parsed).toMatchObject({ ok: true, value: { format, variables: [], placeholders: [] } });
    }
  });

  it("refuses a placeholder that is not declared, at body", () => {
    const parsed = parseTemplateBody({ name: "x", body: "Hi {{name}}, see {{ city }}", variables: [] });
    expect(refusals(parsed)).toEqual(["body variable_undeclared"]);
    expect(parsed.ok || parsed.issues[0]!.message).toMatch(/\{\{name\}\}, \{\{city\}\}/);
    expect(refusals(parseTemplateBody({ name: "x", body: "Hi {{name}}" }))).toEqual([
      "body variable_undeclared",
    ]);
  });

  it("refuses {{ that opens no placeholder, never printing it as written", () => {
    const parsed = parseTemplateBody({
      name: "x",
      body: "Hi {{first name}}",
      variables: [{ name: "first" }],
    });
    expect(refusals(parsed)).toEqual(["body placeholder_invalid"]);
    expect(parsed.ok || parsed.issues[0]!.message).toContain('"{{first name}}"');
  });

  it("refuses a variable declared twice, and required with a default", () => {
    const parsed = parseTemplateBody({
      name: "x",
      body: "{{a}}",
      variables: [{ name: "a" }, { name: "b", required: true, default: "B" }, { name: "a", required: false }],
    });
    expect(refusals(parsed)).toEqual([
      "variables[1].default variable_default_conflict",
      "variables[2].name variable_duplicate",
    ]);
  });

  it("reports the shape at each field: lengths, names, formats, types and unknown fields", () => {
    const parsed = parseTemplateBody({
      name: "n".repeat(TEMPLATE_LIMITS.name_chars + 1),
      body: "",
      format: "docx",
      variables: [{ name: "1st" }, { name: "ok", default: 5 }, { name: "x", colour: "red" }],
      colour: "blue",
    });
    expect(refusals(parsed).sort()).toEqual(
      [
        "name too_long",
        "body too_short",
        "format invalid_enum",
        "variables[0].name invalid_format",
        "variables[1].default invalid_type",
        "variables[2].colour unknown_field",
        "colour unknown_field",
      ].sort(),
    );
  });

  it("refuses a blank name, a missing body and a body that is not an object", () => {
    expect(refusals(parseTemplateBody({ name: "   ", body: "Hi" }))).toEqual(["name too_short"]);
    expect(refusals(parseTemplateBody({ name: "x" }))).toEqual(["body required"]);
    expect(refusals(parseTemplateBody(null))).toEqual([" invalid_type"]);
    expect(refusals(parseTemplateBody([]))).toEqual([" invalid_type"]);
  });

  it("limits the body and the number of variables", () => {
    const tooMany = Array.from({ length: TEMPLATE_LIMITS.variables + 1 }, (_, i) => ({ name: `v${i}` }));
    expect(refusals(parseTemplateBody({ name: "x", body: "Hi", variables: tooMany }))).toEqual([
      "variables too_long",
    ]);
    const long = "a".repeat(TEMPLATE_LIMITS.body_chars + 1);
    expect(refusals(parseTemplateBody({ name: "x", body: long }))).toEqual(["body too_long"]);
  });
});

describe("nextTemplateVersion", () => {
  it("makes the next version from the current one and a patch, keeping the rest", () => {
    const current = first();
    const next = nextTemplateVersion(current, { body: "Hello {{first_name}}!", format: "markdown" });
    expect(next).toEqual({
      ok: true,
      value: {
        ...current,
        version: 2,
        body: "Hello {{first_name}}!",
        format: "markdown",
        placeholders: ["first_name"],
      },
    });
    expect(current.version).toBe(1);
    expect(current.body).toBe(THANKS.body);
  });

  it("replaces the whole variable list", () => {
    const current = first();
    const next = nextTemplateVersion(current, {
      variables: [{ name: "first_name" }, { name: "item" }, { name: "closing", required: false }],
    });
    expect(next.ok && next.value.variables).toEqual([
      { name: "first_name", required: true },
      { name: "item", required: true },
      { name: "closing", required: false },
    ]);
    expect(next.ok && next.value.version).toBe(2);
  });

  it("checks the result as a whole: dropping a variable the body uses is variable_undeclared at body", () => {
    const current = first();
    expect(refusals(nextTemplateVersion(current, { variables: [{ name: "first_name" }] }))).toEqual([
      "body variable_undeclared",
    ]);
    expect(refusals(nextTemplateVersion(current, { body: "Hi {{nickname}}" }))).toEqual([
      "body variable_undeclared",
    ]);
  });

  it("gives back the current version itself when the patch changes nothing", () => {
    const current = first();
    const same = nextTemplateVersion(current, { name: current.name, format: "text" });
    expect(same).toEqual({ ok: true, value: current });
    expect(same.ok && same.value).toBe(current);
  });

  it("refuses an empty patch, unknown fields and a bad field, as a new template's", () => {
    const current = first();
    expect(refusals(nextTemplateVersion(current, {}))).toEqual([" patch_empty"]);
    expect(refusals(nextTemplateVersion(current, { title: "x" }))).toEqual(["title unknown_field"]);
    expect(refusals(nextTemplateVersion(current, { name: "" }))).toEqual(["name too_short"]);
    expect(refusals(nextTemplateVersion(current, { variables: null }))).toEqual(["variables invalid_type"]);
    expect(refusals(nextTemplateVersion(current, "name=x"))).toEqual([" invalid_type"]);
  });

  it("throws template_version_invalid for a current version it did not make", () => {
    const broken = [
      null,
      { ...first(), version: 0 },
      { ...first(), format: "docx" },
      { ...first(), variables: [{ name: "first name", required: true }] },
      { ...first(), variables: [] },
    ];
    for (const current of broken) {
      let caught: unknown;
      try {
        nextTemplateVersion(current as TemplateVersion, { name: "x" });
      } catch (error) {
        caught = error;
      }
      expect(TemplatesError.isInstance(caught)).toBe(true);
      expect(caught).toMatchObject({ code: "template_version_invalid" });
    }
  });
});
