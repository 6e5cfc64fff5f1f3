import Ajv2020 from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import Type from "typebox";
import { describe, expect, it } from "vitest";
import { EXAMPLE_ORDER_REQUESTS } from "./examples.ts";
import { joinPath } from "./issues.ts";
import { OrderRequest } from "./order-request-schema.ts";
import { createSchemaCheck, pointerToPath } from "./schema-check.ts";

const check = createSchemaCheck(OrderRequest);
const letter = (patch: Record<string, unknown>) => ({
  ...structuredClone(EXAMPLE_ORDER_REQUESTS.letter),
  ...patch,
});
const short = (body: unknown) => check(body).map(({ path, code }) => ({ path, code }));

/** Ajv's own errors, to show what the mapping removes. */
function rawErrors(body: unknown) {
  const ajv = new Ajv2020.default({ allErrors: true, strict: true });
  addFormats.default(ajv, ["uuid", "email", "uri", "date"]);
  const validate = ajv.compile(OrderRequest);
  validate(body);
  return validate.errors ?? [];
}

describe("Ajv errors as issues", () => {
  it("maps each keyword to its code and path", () => {
    expect(
      short(
        letter({
          request_id: "x",
          buyer_email: undefined,
          surprise: 1,
          color: "no",
          sender_name: "",
          recipient_name: "r".repeat(257),
          mail_class: "fast",
          letter: { body: "b", render: { font_size: 30 } },
        }),
      ),
    ).toEqual([
      { path: "buyer_email", code: "required" },
      { path: "surprise", code: "unknown_property" },
      { path: "request_id", code: "invalid_format" },
      { path: "letter.render.font_size", code: "out_of_range" },
      { path: "sender_name", code: "too_short" },
      { path: "recipient_name", code: "too_long" },
      { path: "color", code: "invalid_type" },
      { path: "mail_class", code: "invalid_enum" },
    ]);
  });

  it("the uuid format is the canonical form, also in other schemas", () => {
    const id = "3f0c6a1e-5b7d-4c2a-9e8f-1a2b3c4d5e6f";
    const other = createSchemaCheck(
      Type.Object({ order_id: Type.String({ format: "uuid" }) }, { additionalProperties: false }),
    );
    expect(other({ order_id: id })).toEqual([]);
    expect(other({ order_id: `urn:uuid:${id}` })).toEqual([
      { path: "order_id", code: "invalid_format", message: expect.stringContaining("must be a UUID") },
    ]);
  });

  it("writes readable messages", () => {
    const messages = Object.fromEntries(
      check(letter({ mail_class: "fast", letter: { body: "b", render: { margin_in: 3 } }, colour: 1 })).map(
        (i) => [i.path, i.message],
      ),
    );
    expect(messages).toEqual({
      mail_class: "mail_class must be one of: standard, priority, express.",
      "letter.render.margin_in": "margin_in must be between 0.5 and 1.5.",
      colour: "colour is not a known property.",
    });
  });

  it("reports one issue for a value no branch of a union accepts", () => {
    const body = letter({ letter: undefined, pdf: 5 });
    expect(rawErrors(body).length).toBeGreaterThanOrEqual(4);
    expect(check(body)).toEqual([
      { path: "pdf", code: "invalid_type", message: "pdf must be a string or an object." },
    ]);
  });

  it("keeps the branch the value was meant for", () => {
    const download = letter({
      letter: undefined,
      pdf: { download_url: "http://example.com/a.pdf", file_id: "f" },
    });
    expect(rawErrors(download).length).toBeGreaterThan(2);
    expect(short(download)).toEqual([{ path: "pdf.download_url", code: "pdf_url_not_https" }]);
    expect(short(letter({ letter: undefined, pdf: {} }))).toEqual([
      { path: "pdf.upload_token", code: "required" },
    ]);
    expect(short(letter({ letter: "" }))).toEqual([{ path: "letter", code: "too_short" }]);
    expect(short(letter({ letter: { body: "" } }))).toEqual([{ path: "letter.body", code: "too_short" }]);
  });

  it("resolves unions nested in unions", () => {
    const body = letter({ letter: { body: "b", signature: 5 } });
    expect(rawErrors(body).length).toBeGreaterThan(3);
    expect(check(body)).toEqual([
      { path: "letter.signature", code: "invalid_type", message: "signature must be a string or an object." },
    ]);
    expect(short(letter({ letter: { body: "b", signature: { mode: "drawn", dataUrl: 1 } } }))).toEqual([
      { path: "letter.signature.dataUrl", code: "invalid_type" },
    ]);
  });

  it("keeps the most relevant of several issues on one field", () => {
    expect(rawErrors(letter({ mail_class: 5 })).length).toBe(2);
    expect(short(letter({ mail_class: 5 }))).toEqual([{ path: "mail_class", code: "invalid_type" }]);
    expect(
      short(
        letter({ sender_address_type: "Address", sender_address_manual: undefined, sender_address_id: "" }),
      ),
    ).toEqual([{ path: "sender_address_id", code: "too_short" }]);
  });

  it("array items are addressed with [i]", () => {
    const form = structuredClone(EXAMPLE_ORDER_REQUESTS.form);
    const body = { ...form, form: { ...form.form, attachments: [{ id: "a", base64: "QQ==" }, { id: "b" }] } };
    expect(short(body)).toEqual([{ path: "form.attachments[1].base64", code: "required" }]);
  });

  it("a value that is not an object is an issue on the body", () => {
    expect(short([])).toEqual([{ path: "", code: "invalid_type" }]);
    expect(check("x")[0]?.message).toBe("The request body must be an object.");
  });

  it("works for any schema, with the date format", () => {
    const dateCheck = createSchemaCheck(Type.Object({ on: Type.String({ format: "date" }) }));
    expect(dateCheck({ on: "2026-02-30" })).toEqual([
      { path: "on", code: "invalid_format", message: "on must be a date, YYYY-MM-DD." },
    ]);
    expect(dateCheck({ on: "2026-02-28" })).toEqual([]);
  });
});

describe("paths", () => {
  it("pointerToPath uses the data to tell indexes from keys", () => {
    const data = { form: { attachments: [{ base64: 1 }] }, fields: { "0": { x: 1 } } };
    expect(pointerToPath("/form/attachments/0/base64", data)).toBe("form.attachments[0].base64");
    expect(pointerToPath("/fields/0/x", data)).toBe('fields["0"].x');
    expect(pointerToPath("", data)).toBe("");
    expect(pointerToPath("/a~1b/c~0d", {})).toBe('["a/b"]["c~d"]');
  });

  it("joinPath quotes keys that are not plain names", () => {
    expect(joinPath("", "request_id")).toBe("request_id");
    expect(joinPath("form", "attachments")).toBe("form.attachments");
    expect(joinPath("form.attachments", 2)).toBe("form.attachments[2]");
    expect(joinPath("", "a.b")).toBe('["a.b"]');
    expect(joinPath("", "")).toBe('[""]');
    expect(joinPath("form.fields", "my-field")).toBe("form.fields.my-field");
  });
});
