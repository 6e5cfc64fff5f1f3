import { describe, expect, it } from "vitest";
import { EXAMPLE_ORDER_REQUESTS } from "./examples.ts";
import {
  formatPath,
  ISSUE_CODES,
  type IssueCode,
  IssueList,
  isIssueCode,
  pathSegments,
  tooDeepPath,
  WARNING_CODES,
} from "./issues.ts";
import { MAX_ATTACHMENT_BYTES, MAX_CAMPAIGN_ROWS, MAX_CSV_BYTES, MAX_PDF_BYTES } from "./limits.ts";
import { validateOrderRequest } from "./validate-order-request.ts";

const letter = (patch: Record<string, unknown>) => ({
  ...structuredClone(EXAMPLE_ORDER_REQUESTS.letter),
  ...patch,
});
const postcard = (patch: Record<string, unknown>) => ({
  ...structuredClone(EXAMPLE_ORDER_REQUESTS.postcard),
  ...patch,
});
const bulk = (patch: Record<string, unknown>, top: Record<string, unknown> = {}) => ({
  ...structuredClone(EXAMPLE_ORDER_REQUESTS.bulk),
  ...top,
  bulk: { ...EXAMPLE_ORDER_REQUESTS.bulk.bulk, ...patch },
});
const proof = { certified: true, certified_return_receipt: true };
const csv = "recipient_name,line1,city,state,zip,venue\n";

/** One request that raises each code. */
const TRIGGERS: Record<IssueCode, () => unknown> = {
  unknown_property: () => letter({ colour: 1 }),
  required: () => letter({ request_id: undefined }),
  invalid_type: () => letter({ color: "yes" }),
  too_short: () => letter({ letter: "" }),
  too_long: () => letter({ file_name: "f".repeat(256) }),
  invalid_enum: () => letter({ mail_class: "first" }),
  invalid_format: () => letter({ buyer_email: "x" }),
  out_of_range: () => letter({ letter: { body: "b", render: { font_size: 2 } } }),
  document_source_required: () => letter({ letter: undefined }),
  document_source_conflict: () => letter({ pdf: { upload_token: "t" } }),
  format_requires_letter: () => ({ ...structuredClone(EXAMPLE_ORDER_REQUESTS.pdf), format: "html" }),
  format_conflict: () => letter({ letter: { body: "b", format: "html" }, format: "text" }),
  invalid_pdf_source: () => letter({ letter: undefined, pdf: "a.pdf" }),
  pdf_url_not_https: () => letter({ letter: undefined, pdf: "http://example.com/a.pdf" }),
  invalid_data_url: () => letter({ letter: undefined, pdf: "data:application/pdf;base64,@" }),
  invalid_base64: () => ({
    ...structuredClone(EXAMPLE_ORDER_REQUESTS.form),
    form: { slug: "s", fields: {}, attachments: [{ id: "a", base64: "@" }] },
  }),
  pdf_too_large: () =>
    letter({
      letter: undefined,
      pdf: `data:application/pdf;base64,${"A".repeat(Math.ceil((MAX_PDF_BYTES + 3) / 3) * 4)}`,
    }),
  attachments_too_large: () => ({
    ...structuredClone(EXAMPLE_ORDER_REQUESTS.form),
    form: {
      slug: "s",
      fields: {},
      attachments: [{ id: "a", base64: "A".repeat(Math.ceil((MAX_ATTACHMENT_BYTES + 3) / 3) * 4) }],
    },
  }),
  attachment_content_mismatch: () => ({
    ...structuredClone(EXAMPLE_ORDER_REQUESTS.form),
    form: {
      slug: "s",
      fields: {},
      attachments: [{ id: "a", content_type: "application/pdf", base64: "data:image/png;base64,SGk=" }],
    },
  }),
  form_not_postcard: () => postcard({ pdf: undefined, form: { slug: "s", fields: {} } }),
  signature_text_required: () => letter({ letter: { body: "b", signature: " " } }),
  signature_image_required: () => letter({ letter: { body: "b", signature: { mode: "drawn" } } }),
  address_strategy_conflict: () => letter({ recipient_address_id: "US|1" }),
  invalid_address_id: () =>
    letter({
      recipient_address_type: "Address",
      recipient_address_manual: undefined,
      recipient_address_id: "US-1",
      recipient_address_text: "x",
    }),
  address_country_not_allowed: () =>
    letter({
      recipient_address_type: "Address",
      recipient_address_manual: undefined,
      recipient_address_id: "BR|1",
      recipient_address_text: "x",
    }),
  state_required: () => letter({ recipient_address_manual: { line1: "1 St", city: "X", zip: "62701" } }),
  invalid_postal_code: () =>
    letter({ recipient_address_manual: { line1: "1 St", city: "X", state: "IL", zip: "1" } }),
  invalid_state: () =>
    letter({ recipient_address_manual: { line1: "1 St", city: "X", state: "ZZ", zip: "62701" } }),
  country_code_required: () =>
    letter({ recipient_address_manual: { line1: "1 St", city: "Ottawa", state: "ON", zip: "K1A 0A9" } }),
  character_unsupported: () => letter({ sender_name: "Ada 🎉" }),
  requires_certified: () => letter({ certified_return_receipt: true }),
  requires_certified_return_receipt: () => letter({ certified: true, restricted_delivery: true }),
  err_email_physical_conflict: () =>
    letter({ ...proof, return_receipt_format: "physical", err_delivery: "email" }),
  mail_class_certified_conflict: () => letter({ certified: true, mail_class: "express" }),
  restricted_delivery_unavailable: () =>
    letter({
      ...proof,
      restricted_delivery: true,
      recipient_address_manual: { line1: "1 Rue", city: "Paris", zip: "75001", countryCode: "FR" },
    }),
  postcard_size_required: () => postcard({ postcard_size: undefined }),
  postcard_size_requires_postcard: () => letter({ postcard_size: "4x6" }),
  postcard_requires_pdf: () => postcard({ pdf: undefined, letter: "Hi" }),
  bulk_field_conflict: () => bulk({}, { recipient_name: "R" }),
  bulk_content_required: () => bulk({ template_text: undefined }),
  bulk_content_conflict: () => bulk({ template_html: "<p/>" }),
  template_unknown_placeholder: () => bulk({ template_text: "{{nope}}" }),
  campaign_no_valid_rows: () => bulk({ csv_content: `${csv}A,1 St,X,IL,1,v` }),
  campaign_too_many_rows: () =>
    bulk({ csv_content: `${csv}${"A,1 St,X,IL,62701,v\n".repeat(MAX_CAMPAIGN_ROWS + 1)}` }),
  csv_too_large: () => bulk({ csv_content: `${csv}${"é".repeat(MAX_CSV_BYTES / 2)}` }),
  csv_missing_column: () => bulk({ csv_content: "recipient_name,venue\nA,v" }),
  csv_duplicate_column: () =>
    bulk({ csv_content: "recipient_name,line1,city,state,zip,venue,Zip\nA,1 St,X,IL,62701,v,1" }),
  invalid_csv_row: () => bulk({ csv_content: `${csv}A,1 St,X,IL,62701,v\nB,1 St,X,IL,62701,v,extra` }),
  option_normalised: () => postcard({ color: false }),
  option_ignored: () => letter({ signature_required: true }),
  err_email_unused: () => letter({ err_email: "a@example.com" }),
  campaign_rows_invalid: () => bulk({ csv_content: `${csv}A,1 St,X,IL,62701,v\nB,1 St,X,IL,1,v` }),
};

describe("ISSUE_CODES", () => {
  it("are distinct snake_case codes", () => {
    expect(new Set(ISSUE_CODES).size).toBe(ISSUE_CODES.length);
    for (const code of ISSUE_CODES) expect(code).toMatch(/^[a-z][a-z0-9_]*$/);
    expect(isIssueCode("required")).toBe(true);
    expect(isIssueCode("nope")).toBe(false);
  });

  it("warning codes are issue codes", () => {
    for (const code of WARNING_CODES) expect(ISSUE_CODES).toContain(code);
  });

  for (const code of ISSUE_CODES) {
    // Some triggers are requests at the size limits: slow on a loaded machine, hence the generous timeout.
    it(`${code} is raised by the rules`, { timeout: 120_000 }, () => {
      const result = validateOrderRequest(TRIGGERS[code]());
      const warning = WARNING_CODES.includes(code);
      if (code === "invalid_csv_row" || code === "campaign_rows_invalid") {
        expect(result.ok).toBe(true);
        if (!result.ok) return;
        if (code === "invalid_csv_row") {
          expect(result.order.bulk?.rows[1]?.errors.map((e) => e.code)).toEqual(["invalid_csv_row"]);
          return;
        }
      }
      const found = result.ok ? result.warnings : result.issues;
      expect(result.ok).toBe(warning);
      expect(found.map((i) => i.code)).toContain(code);
    });
  }
});

describe("IssueList", () => {
  it("keeps the first of identical path and code pairs", () => {
    const list = new IssueList();
    list.add("a", "required", "first");
    list.add("a", "required", "second");
    list.add("a", "too_long", "third");
    expect(list.items).toEqual([
      { path: "a", code: "required", message: "first" },
      { path: "a", code: "too_long", message: "third" },
    ]);
    expect(list.length).toBe(2);
  });
});

describe("pathSegments and formatPath", () => {
  it("read back every path joinPath writes, quoted keys with dots, brackets and quotes whole", () => {
    const cases: Array<Array<string | number>> = [
      [],
      ["recipient_name"],
      ["form", "attachments", 0, "base64"],
      ["svc.mailpiece", "recipient_address_id"],
      ["line_items", 0, 'a"b]c', 3],
      ["a", "0", "b"],
      ["", "x.y[1]"],
    ];
    for (const segments of cases) {
      const path = formatPath(segments);
      expect(pathSegments(path)).toEqual(segments.length === 0 ? [] : segments);
    }
    expect(formatPath(["svc.mailpiece", "recipient_address_id"])).toBe(
      '["svc.mailpiece"].recipient_address_id',
    );
  });

  it("keeps what it cannot read as one name instead of throwing", () => {
    expect(pathSegments('a["b')).toEqual(["a", '["b']);
    expect(pathSegments("a[x]")).toEqual(["a", "[x]"]);
  });
});

describe("tooDeepPath", () => {
  const nested = (depth: number): unknown => {
    let value: unknown = 1;
    for (let i = 0; i < depth; i++) value = i % 2 === 0 ? { "a.b": value } : [value];
    return value;
  };

  it("names the first value past the depth, and nothing within it", () => {
    expect(tooDeepPath(nested(3), 3)).toBeUndefined();
    expect(tooDeepPath(nested(4), 3)).toBe('[0]["a.b"][0]');
    expect(tooDeepPath({ ok: 1, list: [{ deep: { deeper: {} } }] }, 3)).toBe("list[0].deep");
    expect(tooDeepPath("text", 0)).toBeUndefined();
  });

  it("answers for a value far deeper than the stack allows recursion", () => {
    expect(tooDeepPath(nested(200_000))).toMatch(/^\[0\]/);
  });
});
