import { createSchemaCheck } from "@mailpiece/orders";
import { describe, expect, it } from "vitest";
import { HandwrittenMessage } from "./handwritten.ts";
import { mergeTemplate } from "./merge-template.ts";
import { TemplateBody, TemplatePatchBody, TemplateValues, TemplateVersionObject } from "./template-schema.ts";
import { parseTemplateBody } from "./template-version.ts";

describe("schemas", () => {
  it("compile under Ajv's strict mode and carry a title for the OpenAPI components", () => {
    for (const schema of [
      TemplateBody,
      TemplatePatchBody,
      TemplateValues,
      TemplateVersionObject,
      HandwrittenMessage,
    ]) {
      expect(() => createSchemaCheck(schema)).not.toThrow();
      expect(typeof (schema as { title?: unknown }).title).toBe("string");
    }
  });

  it("describe what the parsers make and take", () => {
    const parsed = parseTemplateBody({
      name: "Note",
      body: "Hi {{name}}, {{n}}",
      variables: [{ name: "name" }, { name: "n", default: "1" }],
    });
    if (!parsed.ok) throw new Error(JSON.stringify(parsed.issues));
    expect(createSchemaCheck(TemplateVersionObject)(parsed.value)).toEqual([]);
    const values = { name: "Al", n: 2 };
    expect(createSchemaCheck(TemplateValues)(values)).toEqual([]);
    expect(mergeTemplate(parsed.value, values).ok).toBe(true);
    expect(createSchemaCheck(TemplateValues)({ name: true }).map((issue) => issue.path)).toEqual(["name"]);
  });
});
