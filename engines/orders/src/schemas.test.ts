import Ajv2020 from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { describe, expect, it } from "vitest";
import { BulkObject } from "./bulk-schema.ts";
import { EXAMPLE_ORDER_REQUESTS } from "./examples.ts";
import { FormAttachment, FormPayload } from "./form-schema.ts";
import { ISSUE_CODES } from "./issues.ts";
import { LetterObject, LetterRender, LetterSignature } from "./letter-schema.ts";
import { ManualAddress } from "./manual-address-schema.ts";
import { OrderRequest } from "./order-request-schema.ts";
import { PdfSource } from "./pdf-source-schema.ts";
import { ValidationErrorBody, ValidationIssue, validationErrorBody } from "./validation-issue-schema.ts";

const COMPONENTS = {
  OrderRequest,
  ManualAddress,
  LetterObject,
  LetterSignature,
  LetterRender,
  PdfSource,
  FormPayload,
  FormAttachment,
  BulkObject,
  ValidationIssue,
  ValidationErrorBody,
};

/** The JSON Schema keywords the components may use. */
const KEYWORDS = new Set([
  "type",
  "title",
  "description",
  "default",
  "examples",
  "properties",
  "required",
  "additionalProperties",
  "items",
  "anyOf",
  "enum",
  "const",
  "format",
  "pattern",
  "minLength",
  "maxLength",
  "minimum",
  "maximum",
  "minItems",
  "maxItems",
]);

/** Every keyword of a schema and its subschemas; fails on anything that is not a JSON Schema keyword. */
function keywordsOf(schema: unknown, at: string, found: Set<string>): void {
  expect(
    typeof schema === "object" && schema !== null && !Array.isArray(schema),
    `${at} is a schema object`,
  ).toBe(true);
  const node = schema as Record<string, unknown>;
  expect(Object.getOwnPropertySymbols(node), `${at} has no symbol keys`).toEqual([]);
  for (const [key, value] of Object.entries(node)) {
    expect(KEYWORDS.has(key), `${at}: "${key}" is a JSON Schema keyword`).toBe(true);
    found.add(key);
    if (key === "properties") {
      for (const [name, sub] of Object.entries(value as Record<string, unknown>))
        keywordsOf(sub, `${at}.${name}`, found);
    } else if (key === "items" || (key === "additionalProperties" && typeof value === "object")) {
      keywordsOf(value, `${at}/${key}`, found);
    } else if (key === "anyOf") {
      (value as unknown[]).forEach((sub, i) => {
        keywordsOf(sub, `${at}/anyOf/${i}`, found);
      });
    }
  }
}

describe("component schemas", () => {
  for (const [name, schema] of Object.entries(COMPONENTS)) {
    it(`${name} is plain JSON Schema with a title and description, and no $id`, () => {
      const json = JSON.parse(JSON.stringify(schema)) as Record<string, unknown>;
      expect(json.title).toBe(name);
      expect(typeof json.description).toBe("string");
      expect(JSON.stringify(schema)).not.toMatch(/"\$id"|"~|"\[Kind\]"/);
      const found = new Set<string>();
      keywordsOf(json, name, found);
      keywordsOf(schema, name, new Set());
    });
  }

  it("the JSON form validates exactly like the schema objects", () => {
    const ajv = new Ajv2020.default({ allErrors: true, strict: true });
    addFormats.default(ajv, ["uuid", "email", "uri", "date"]);
    const fromJson = ajv.compile(JSON.parse(JSON.stringify(OrderRequest)));
    for (const body of Object.values(EXAMPLE_ORDER_REQUESTS)) expect(fromJson(body)).toBe(true);
    expect(fromJson({ ...EXAMPLE_ORDER_REQUESTS.letter, colour: true })).toBe(false);
  });

  it("OrderRequest rejects unknown properties and describes every field", () => {
    const json = JSON.parse(JSON.stringify(OrderRequest));
    expect(json.additionalProperties).toBe(false);
    expect(json.required).toEqual(["request_id", "buyer_email", "sender_name"]);
    for (const [name, property] of Object.entries(
      json.properties as Record<string, Record<string, unknown>>,
    )) {
      expect(typeof property.description, `${name} has a description`).toBe("string");
    }
  });

  it("the manual address country list includes ES", () => {
    expect(JSON.parse(JSON.stringify(ManualAddress)).properties.countryCode.enum).toContain("ES");
  });

  it("validationErrorBody fits ValidationErrorBody", () => {
    const ajv = new Ajv2020.default({ allErrors: true, strict: true });
    const check = ajv.compile(ValidationErrorBody);
    const body = validationErrorBody([
      { path: "request_id", code: "required", message: "request_id is required." },
    ]);
    expect(check(body)).toBe(true);
    expect(body).toEqual({
      error: "validation_failed",
      message: expect.stringContaining("1 problem"),
      issues: [{ path: "request_id", code: "required", message: "request_id is required." }],
    });
    expect(check({ ...body, issues: [] })).toBe(false);
  });

  it("ValidationIssue documents every issue code", () => {
    const description = String(JSON.parse(JSON.stringify(ValidationIssue)).properties.code.description);
    for (const code of ISSUE_CODES) expect(description).toContain(code);
  });
});
