import { describe, expect, it } from "vitest";
import { EXAMPLE_ORDER_REQUESTS } from "./examples.ts";
import { ISSUE_CODES } from "./issues.ts";
import { validateOrderRequest } from "./validate-order-request.ts";

type Kind = keyof typeof EXAMPLE_ORDER_REQUESTS;
const example = (kind: Kind, patch: Record<string, unknown> = {}): Record<string, unknown> => ({
  ...structuredClone(EXAMPLE_ORDER_REQUESTS[kind]),
  ...patch,
});

function accepted(body: unknown) {
  const result = validateOrderRequest(body);
  if (!result.ok) throw new Error(`expected a valid order, got ${JSON.stringify(result.issues)}`);
  return result;
}

function issuesOf(body: unknown) {
  const result = validateOrderRequest(body);
  return result.ok ? [] : result.issues.map(({ path, code }) => ({ path, code }));
}

const DEFAULT_OPTIONS = {
  double_sided: true,
  color: false,
  mail_class: "standard",
  certified: false,
  certified_return_receipt: false,
  return_receipt_format: "electronic",
  restricted_delivery: false,
  err_delivery: "manual",
  signature_required: false,
};

describe("valid minimal orders", () => {
  it("a PDF data URL order", () => {
    const { order, warnings } = accepted(example("pdf"));
    expect(warnings).toEqual([]);
    expect(order.document).toEqual({
      kind: "pdf",
      source: { type: "data_url", base64: "JVBERi0xLjQKJSVFT0YK" },
    });
    expect(order.mailpiece_type).toBe("letter");
    expect(order.options).toEqual(DEFAULT_OPTIONS);
    expect(order.sender).toEqual({
      name: "Ada Lovelace",
      country: "US",
      address: {
        type: "Manual",
        line1: "350 Fifth Avenue",
        city: "New York",
        state: "NY",
        zip: "10118",
        countryCode: "US",
      },
    });
    expect(order.recipient?.address.type).toBe("Manual");
    expect(order.bulk).toBeUndefined();
  });

  it("a PDF upload token order with an address-search recipient", () => {
    const { order } = accepted(example("pdfUpload"));
    expect(order.document).toEqual({
      kind: "pdf",
      source: { type: "upload_token", upload_token: "upl_7f3c2a" },
    });
    expect(order.recipient).toEqual({
      name: "Grace Hopper",
      country: "US",
      address: {
        type: "Address",
        id: "US|US|DEF|1600-PENNSYLVANIA-AVE-NW",
        text: "1600 Pennsylvania Ave NW, Washington DC 20500",
      },
    });
  });

  it("a PDF download reference and an HTTPS URL", () => {
    const download = accepted(
      example("pdf", { pdf: { download_url: "https://files.example.com/a.pdf", file_id: "f1", size: 10 } }),
    );
    expect(download.order.document).toEqual({
      kind: "pdf",
      source: { type: "download", download_url: "https://files.example.com/a.pdf", file_id: "f1" },
    });
    const url = accepted(example("pdf", { pdf: "https://files.example.com/b.pdf" }));
    expect(url.order.document).toEqual({
      kind: "pdf",
      source: { type: "url", url: "https://files.example.com/b.pdf" },
    });
  });

  it("a letter string, with the render defaults and format text", () => {
    const { order } = accepted(example("letter"));
    expect(order.document).toEqual({
      kind: "letter",
      body: EXAMPLE_ORDER_REQUESTS.letter.letter,
      format: "text",
      render: { paper: "letter", font_size: 11, margin_in: 1, font: "times" },
    });
  });

  it("a letter string takes the top-level format", () => {
    const { order } = accepted(example("letter", { format: "html" }));
    expect(order.document).toMatchObject({ kind: "letter", format: "html" });
  });

  it("a letter object: title, format, typed signature string, partial render", () => {
    const { order } = accepted(example("letterObject"));
    expect(order.document).toEqual({
      kind: "letter",
      title: "A note of thanks",
      body: "# Dear Grace\n\nThank you for the **kind** note.",
      format: "markdown",
      signature: { mode: "typed", text: "Ada Lovelace" },
      render: { paper: "letter", font_size: 12, margin_in: 1, font: "helvetica" },
    });
  });

  it("a form order", () => {
    const { order } = accepted(example("form"));
    expect(order.document).toEqual({
      kind: "form",
      slug: "mortgage-servicing-error-packet",
      fields: { letter_date: "2026-01-15", sender_name: "Ada Lovelace", payment_enclosed: "No" },
      attachments: [
        { id: "supporting_documents", file_name: "statement.pdf", base64: "JVBERi0xLjQKJSVFT0YK" },
      ],
    });
  });

  it("a bulk order: no recipient, no document, rows read from the CSV", () => {
    const { order, warnings } = accepted(example("bulk"));
    expect(warnings).toEqual([]);
    expect(order.recipient).toBeUndefined();
    expect(order.document).toBeUndefined();
    expect(order.bulk).toMatchObject({
      campaign_name: "Spring newsletter",
      content_mode: "text",
      recipient_count: 1,
      columns: ["recipient_name", "line1", "city", "state", "zip", "venue"],
    });
    expect(order.bulk?.rows[0]).toEqual({
      row_number: 1,
      status: "valid",
      recipient: {
        name: "Grace Hopper",
        country: "US",
        address: {
          type: "Manual",
          line1: "1600 Pennsylvania Ave NW",
          city: "Washington",
          state: "DC",
          zip: "20500",
          countryCode: "US",
        },
      },
      fields: {
        recipient_name: "Grace Hopper",
        line1: "1600 Pennsylvania Ave NW",
        city: "Washington",
        state: "DC",
        zip: "20500",
        venue: "the park",
      },
      errors: [],
    });
  });

  it("a postcard, mailed in color", () => {
    const { order, warnings } = accepted(example("postcard"));
    expect(warnings).toEqual([]);
    expect(order.mailpiece_type).toBe("postcard");
    expect(order.postcard_size).toBe("4x6");
    expect(order.options).toEqual({ ...DEFAULT_OPTIONS, color: true });
  });

  it("keeps buyer_name and file_name", () => {
    const { order } = accepted(example("pdf", { buyer_name: "Ada", file_name: "note.pdf" }));
    expect(order.buyer_name).toBe("Ada");
    expect(order.file_name).toBe("note.pdf");
    expect(order.request_id).toBe(EXAMPLE_ORDER_REQUESTS.pdf.request_id);
    expect(order.buyer_email).toBe("ada@example.com");
  });
});

describe("defaults", () => {
  it("applies every option default when nothing is sent", () => {
    expect(accepted(example("letter")).order.options).toEqual(DEFAULT_OPTIONS);
  });

  it("keeps options the client sets", () => {
    const { order } = accepted(
      example("letter", {
        double_sided: false,
        color: true,
        certified: true,
        certified_return_receipt: true,
        return_receipt_format: "physical",
        restricted_delivery: true,
      }),
    );
    expect(order.options).toEqual({
      ...DEFAULT_OPTIONS,
      double_sided: false,
      color: true,
      certified: true,
      certified_return_receipt: true,
      return_receipt_format: "physical",
      restricted_delivery: true,
    });
  });
});

describe("every problem at once", () => {
  it("reports schema and rule problems of many fields together", () => {
    const issues = issuesOf(
      example("letter", {
        request_id: "not-a-uuid",
        buyer_email: undefined,
        surprise: true,
        recipient_address_manual: {
          line1: "1 Main St",
          city: "Springfield",
          zip: "62701",
          countryCode: "US",
        },
        certified: true,
        mail_class: "express",
        pdf: "ftp://example.com/a.pdf",
        postcard_size: "4x6",
      }),
    );
    expect(issues).toEqual(
      expect.arrayContaining([
        { path: "request_id", code: "invalid_format" },
        { path: "buyer_email", code: "required" },
        { path: "surprise", code: "unknown_property" },
        { path: "recipient_address_manual.state", code: "state_required" },
        { path: "mail_class", code: "mail_class_certified_conflict" },
        { path: "", code: "document_source_conflict" },
        { path: "pdf", code: "pdf_url_not_https" },
        { path: "postcard_size", code: "postcard_size_requires_postcard" },
      ]),
    );
    expect(issues).toHaveLength(8);
  });

  it("every issue has a code from ISSUE_CODES, a path and a message", () => {
    const result = validateOrderRequest({
      bulk: 1,
      letter: 2,
      sender_address_manual: {},
      recipient_address_id: "x",
    });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.issues.length).toBeGreaterThan(5);
    for (const issue of result.issues) {
      expect(ISSUE_CODES).toContain(issue.code);
      expect(typeof issue.path).toBe("string");
      expect(issue.message.length).toBeGreaterThan(0);
    }
  });

  it("a rule does not repeat what the schema already said about the same field", () => {
    expect(
      issuesOf(
        example("letter", {
          recipient_address_manual: { line1: "1 Main St", city: "X", zip: 62701, state: "IL" },
        }),
      ),
    ).toEqual([{ path: "recipient_address_manual.zip", code: "invalid_type" }]);
  });
});

describe("the body itself", () => {
  it("a body that is not an object is one invalid_type at the empty path", () => {
    for (const body of [null, [], "order", 42, true, undefined]) {
      expect(issuesOf(body)).toEqual([{ path: "", code: "invalid_type" }]);
    }
  });

  it("an empty object lists the required fields and the missing document", () => {
    expect(issuesOf({})).toEqual([
      { path: "request_id", code: "required" },
      { path: "buyer_email", code: "required" },
      { path: "sender_name", code: "required" },
      { path: "sender_address_id", code: "required" },
      { path: "sender_address_text", code: "required" },
      { path: "recipient_name", code: "required" },
      { path: "recipient_address_id", code: "required" },
      { path: "recipient_address_text", code: "required" },
      { path: "", code: "document_source_required" },
    ]);
  });
});

describe("request fields", () => {
  it("request_id is required and a uuid", () => {
    expect(issuesOf(example("letter", { request_id: undefined }))).toEqual([
      { path: "request_id", code: "required" },
    ]);
    expect(issuesOf(example("letter", { request_id: "42" }))).toEqual([
      { path: "request_id", code: "invalid_format" },
    ]);
  });

  it("request_id is a canonical UUID: no prefix, no NUL, lone surrogate, emoji or line break", () => {
    const id = "0b0e6a51-6c5e-4d0e-9a55-6f1f5e2b7c03";
    for (const request_id of [
      `urn:uuid:${id}`,
      `${id}\u0000`,
      `\u0000${id}`,
      `${id.slice(0, -1)}\ud800`,
      `${id}\udc00`,
      `${id.slice(0, -2)}🎉`,
      `${id}\n`,
      `{${id}}`,
      ` ${id}`,
    ]) {
      const result = validateOrderRequest(example("letter", { request_id }));
      expect(result.ok, JSON.stringify(request_id)).toBe(false);
      expect(result.ok ? [] : result.issues).toEqual([
        { path: "request_id", code: "invalid_format", message: expect.stringContaining("must be a UUID") },
      ]);
    }
    expect(accepted(example("letter", { request_id: id.toUpperCase() })).order.request_id).toBe(
      id.toUpperCase(),
    );
  });

  it("buyer_email is required, an email and at most 256 characters", () => {
    expect(issuesOf(example("letter", { buyer_email: undefined }))).toEqual([
      { path: "buyer_email", code: "required" },
    ]);
    expect(issuesOf(example("letter", { buyer_email: "nope" }))).toEqual([
      { path: "buyer_email", code: "invalid_format" },
    ]);
    expect(issuesOf(example("letter", { buyer_email: `${"a".repeat(250)}@example.com` }))).toEqual([
      { path: "buyer_email", code: "too_long" },
    ]);
  });

  it("buyer_name is 1 to 256 characters", () => {
    expect(issuesOf(example("letter", { buyer_name: "" }))).toEqual([
      { path: "buyer_name", code: "too_short" },
    ]);
    expect(issuesOf(example("letter", { buyer_name: "b".repeat(257) }))).toEqual([
      { path: "buyer_name", code: "too_long" },
    ]);
    accepted(example("letter", { buyer_name: "b".repeat(256) }));
  });

  it("file_name is 1 to 255 characters", () => {
    expect(issuesOf(example("letter", { file_name: "" }))).toEqual([
      { path: "file_name", code: "too_short" },
    ]);
    expect(issuesOf(example("letter", { file_name: "f".repeat(256) }))).toEqual([
      { path: "file_name", code: "too_long" },
    ]);
    accepted(example("letter", { file_name: "f".repeat(255) }));
  });

  it("unknown top-level properties are refused by name", () => {
    expect(issuesOf(example("letter", { colour: true }))).toEqual([
      { path: "colour", code: "unknown_property" },
    ]);
  });

  it("mailpiece_type is letter or postcard", () => {
    expect(issuesOf(example("letter", { mailpiece_type: "parcel" }))).toEqual([
      { path: "mailpiece_type", code: "invalid_enum" },
    ]);
  });
});

describe("order drafts", () => {
  it("take the buyer later: buyer_email may be absent from a draft, never from an order", () => {
    const { buyer_email: _email, buyer_name: _name, ...draft } = example("letter");
    expect(issuesOf(draft)).toContainEqual({ path: "buyer_email", code: "required" });
    const result = validateOrderRequest(draft, { draft: true });
    expect(result.ok).toBe(true);
    if (result.ok) expect(result.order.buyer_email).toBe("");
  });

  it("keep every other rule of an order", () => {
    const { buyer_email: _email, ...draft } = example("letter", { unknown_field: 1, buyer_email: "x" });
    const result = validateOrderRequest({ ...draft, buyer_email: "not an email" }, { draft: true });
    expect(result.ok ? [] : result.issues.map((i) => i.path).sort()).toEqual([
      "buyer_email",
      "unknown_field",
    ]);
  });
});
