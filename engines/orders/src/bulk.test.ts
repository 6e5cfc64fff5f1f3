import { describe, expect, it } from "vitest";
import { templatePlaceholders, unknownPlaceholders } from "./bulk.ts";
import { EXAMPLE_ORDER_REQUESTS } from "./examples.ts";
import { MAX_CAMPAIGN_ROWS, MAX_CSV_BYTES } from "./limits.ts";
import { validateOrderRequest } from "./validate-order-request.ts";

const HEADER = "recipient_name,line1,city,state,zip";

const order = (patch: Record<string, unknown> = {}) => {
  const body: Record<string, unknown> = { ...structuredClone(EXAMPLE_ORDER_REQUESTS.bulk), ...patch };
  for (const key of Object.keys(body)) if (body[key] === undefined) delete body[key];
  return body;
};
const withBulk = (bulk: Record<string, unknown>, patch: Record<string, unknown> = {}) => {
  const merged: Record<string, unknown> = { ...EXAMPLE_ORDER_REQUESTS.bulk.bulk, ...bulk };
  for (const key of Object.keys(merged)) if (merged[key] === undefined) delete merged[key];
  return order({ ...patch, bulk: merged });
};

function issuesOf(body: unknown) {
  const result = validateOrderRequest(body);
  return result.ok ? [] : result.issues.map(({ path, code }) => ({ path, code }));
}

function accepted(body: unknown) {
  const result = validateOrderRequest(body);
  if (!result.ok) throw new Error(`expected a valid order, got ${JSON.stringify(result.issues)}`);
  return result;
}

describe("bulk orders", () => {
  it("exclude the recipient fields and the document source", () => {
    const excluded: Record<string, unknown> = {
      recipient_name: "Grace",
      recipient_address_type: "Manual",
      recipient_address_id: "US|1",
      recipient_address_text: "1 Main St",
      recipient_address_manual: { line1: "1 Main St", city: "X", state: "IL", zip: "62701" },
      pdf: { upload_token: "t" },
      form: { slug: "s", fields: {} },
      letter: "Hi",
      format: "text",
    };
    for (const [key, value] of Object.entries(excluded)) {
      expect(issuesOf(order({ [key]: value }))).toEqual([{ path: key, code: "bulk_field_conflict" }]);
    }
  });

  it("still require the sender", () => {
    expect(issuesOf(order({ sender_name: undefined }))).toEqual([{ path: "sender_name", code: "required" }]);
    expect(issuesOf(order({ sender_address_manual: undefined }))).toEqual([
      { path: "sender_address_manual", code: "required" },
    ]);
  });

  it("need csv_content and content_mode; take no other properties", () => {
    expect(issuesOf(withBulk({ csv_content: undefined }))).toEqual([
      { path: "bulk.csv_content", code: "required" },
    ]);
    expect(issuesOf(withBulk({ content_mode: undefined }))).toEqual([
      { path: "bulk.content_mode", code: "required" },
    ]);
    expect(issuesOf(withBulk({ content_mode: "docx" }))).toEqual([
      { path: "bulk.content_mode", code: "invalid_enum" },
    ]);
    expect(issuesOf(withBulk({ rows: [] }))).toEqual([{ path: "bulk.rows", code: "unknown_property" }]);
    expect(issuesOf(withBulk({ campaign_name: "" }))).toEqual([
      { path: "bulk.campaign_name", code: "too_short" },
    ]);
  });

  it("need the content of their mode", () => {
    expect(issuesOf(withBulk({ template_text: undefined }))).toEqual([
      { path: "bulk.template_text", code: "bulk_content_required" },
    ]);
    expect(issuesOf(withBulk({ content_mode: "html", template_text: undefined }))).toEqual([
      { path: "bulk.template_html", code: "bulk_content_required" },
    ]);
    expect(issuesOf(withBulk({ content_mode: "pdf", template_text: undefined }))).toEqual([
      { path: "bulk.pdf", code: "bulk_content_required" },
    ]);
  });

  it("take no content of another mode", () => {
    expect(issuesOf(withBulk({ template_html: "<p>Hi {{recipient_name}}</p>" }))).toEqual([
      { path: "bulk.template_html", code: "bulk_content_conflict" },
    ]);
  });

  it("html and pdf modes", () => {
    const html = accepted(
      withBulk({ content_mode: "html", template_text: undefined, template_html: "<p>{{venue}}</p>" }),
    );
    expect(html.order.bulk).toMatchObject({ content_mode: "html", template_html: "<p>{{venue}}</p>" });
    const pdf = accepted(
      withBulk({ content_mode: "pdf", template_text: undefined, pdf: { upload_token: "t" } }),
    );
    expect(pdf.order.bulk?.pdf).toEqual({ type: "upload_token", upload_token: "t" });
    expect(
      issuesOf(withBulk({ content_mode: "pdf", template_text: undefined, pdf: "http://example.com/a.pdf" })),
    ).toEqual([{ path: "bulk.pdf", code: "pdf_url_not_https" }]);
  });

  it("template placeholders must name CSV columns", () => {
    const result = validateOrderRequest(
      withBulk({ template_text: "Dear {{recipient_name}}, see {{ place }} {{Venue}}" }),
    );
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.issues.map(({ path, code }) => ({ path, code }))).toEqual([
      { path: "bulk.template_text", code: "template_unknown_placeholder" },
    ]);
    expect(result.issues[0]?.message).toContain("{{place}}");
    expect(result.issues[0]?.message).not.toContain("Venue");
  });

  it("html template placeholders must name CSV columns too", () => {
    expect(
      issuesOf(
        withBulk({
          content_mode: "html",
          template_text: undefined,
          template_html: "<p>{{venue}} {{missing}}</p>",
        }),
      ),
    ).toEqual([{ path: "bulk.template_html", code: "template_unknown_placeholder" }]);
  });

  it("are refused when no row is valid", () => {
    expect(
      issuesOf(withBulk({ csv_content: `${HEADER},venue\nA,1 Main St,Springfield,IL,6270,park\n` })),
    ).toEqual([{ path: "bulk.csv_content", code: "campaign_no_valid_rows" }]);
    expect(issuesOf(withBulk({ csv_content: `${HEADER},venue\n` }))).toEqual([
      { path: "bulk.csv_content", code: "campaign_no_valid_rows" },
    ]);
  });

  it("are accepted with some invalid rows, kept as invalid and reported as a warning", () => {
    const { order: o, warnings } = accepted(
      withBulk({
        template_text: "Hi {{recipient_name}}",
        csv_content: `${HEADER}\nA,1 Main St,Springfield,IL,62701\nB,2 Main St,Springfield,IL,627\nC,3 Main St,Springfield,IL,62702`,
      }),
    );
    expect(o.bulk?.recipient_count).toBe(2);
    expect(o.bulk?.rows.map((r) => r.status)).toEqual(["valid", "invalid", "valid"]);
    expect(warnings.map(({ path, code }) => ({ path, code }))).toEqual([
      { path: "bulk.csv_content", code: "campaign_rows_invalid" },
    ]);
    expect(warnings[0]?.message).toContain("row 2 (zip: invalid_postal_code)");
  });

  it("report missing and repeated columns", () => {
    expect(
      issuesOf(
        withBulk({ csv_content: "recipient_name,line1,city,state,venue\nA,1 Main St,Springfield,IL,park" }),
      ),
    ).toEqual([{ path: "bulk.csv_content", code: "csv_missing_column" }]);
    expect(
      issuesOf(withBulk({ csv_content: `${HEADER},venue,ZIP\nA,1 Main St,Springfield,IL,62701,park,1` })),
    ).toEqual([{ path: "bulk.csv_content", code: "csv_duplicate_column" }]);
  });

  it("refuse more than MAX_CAMPAIGN_ROWS rows", { timeout: 120_000 }, () => {
    const rows = "A,1 Main St,Springfield,IL,62701,x\n".repeat(MAX_CAMPAIGN_ROWS + 1);
    expect(issuesOf(withBulk({ csv_content: `${HEADER},venue\n${rows}` }))).toEqual([
      { path: "bulk.csv_content", code: "campaign_too_many_rows" },
    ]);
  });

  it("refuse a CSV over MAX_CSV_BYTES", { timeout: 120_000 }, () => {
    const csv = `${HEADER},venue\n${"é".repeat(MAX_CSV_BYTES / 2)}`;
    expect(issuesOf(withBulk({ csv_content: csv }))).toEqual([
      { path: "bulk.csv_content", code: "csv_too_large" },
    ]);
  });

  it("rows without a country are US rows, also when the sender is abroad", () => {
    const abroad = {
      sender_address_type: "Address",
      sender_address_manual: undefined,
      sender_address_id: "GB|1",
      sender_address_text: "10 Downing St, London SW1A 2AA",
    };
    const result = accepted(order(abroad));
    expect(result.order.bulk?.rows[0]?.recipient?.country).toBe("US");
  });

  it("a US manual sender may leave its country out when a row is abroad", () => {
    const { countryCode: _, ...sender } = EXAMPLE_ORDER_REQUESTS.bulk.sender_address_manual;
    const csv = "recipient_name,line1,city,zip,country,venue\nHans,Unter den Linden 77,Berlin,10117,DE,park";
    expect(
      accepted(withBulk({ csv_content: csv }, { sender_address_manual: sender })).order.sender.country,
    ).toBe("US");
  });

  it("rows with a state that is not a US state are invalid, at the row and column", () => {
    const csv = `${HEADER},venue\nA,1 Main St,Springfield,ZZ,62701,park\nB,1 Main St,Springfield,Illinois,62701,park`;
    const result = accepted(withBulk({ csv_content: csv }));
    expect(
      result.order.bulk?.rows.map((row) => [
        row.row_number,
        row.status,
        row.errors.map((e) => [e.column, e.code]),
      ]),
    ).toEqual([
      [1, "invalid", [["state", "invalid_state"]]],
      [2, "valid", []],
    ]);
    expect(result.order.bulk?.rows[1]?.recipient?.address).toMatchObject({ state: "IL" });
    expect(result.warnings).toEqual([
      {
        path: "bulk.csv_content",
        code: "campaign_rows_invalid",
        message: expect.stringContaining("row 1 (state: invalid_state)"),
      },
    ]);
  });
});

describe("template placeholders", () => {
  it("are the distinct names inside double braces", () => {
    expect(templatePlaceholders("{{a}} {{ b }} {{a}} {x} {{}}")).toEqual(["a", "b", ""]);
  });
  it("are compared with the columns without regard to case", () => {
    expect(unknownPlaceholders("{{Name}} {{city}} {{x}}", ["name", "City"])).toEqual(["x"]);
  });
});
