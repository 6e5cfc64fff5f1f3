import { describe, expect, it } from "vitest";
import { loadWorkflow } from "./load-workflow.ts";
import { workflowSchema } from "./schema-view.ts";
import { BANK, builtin, COURT, MORTGAGE } from "./test-support.ts";

describe("workflowSchema", () => {
  it("gives the fields with their validation, in order", () => {
    const schema = workflowSchema(builtin(BANK));
    expect(schema.fields.map((f) => f.id)).toEqual(builtin(BANK).fields.map((f) => f.id));
    expect(schema.fields.find((f) => f.id === "account_last_4")).toMatchObject({
      type: "text",
      required: true,
      min_length: 4,
      max_length: 4,
      pattern: "^[0-9]{4}$",
      pattern_description: "exactly four digits",
    });
    expect(schema.fields.find((f) => f.id === "sender_name")).toMatchObject({ max_length: 1000 });
    expect(schema.fields.find((f) => f.id === "sender_address")?.subfields).toEqual([
      "line1",
      "line2",
      "city",
      "state",
      "zip",
      "countryCode",
    ]);
    expect(schema.fields.find((f) => f.id === "facts_acknowledged")?.role).toBe("declaration");
  });

  it("states the date bounds: not_in_future and not_in_past", () => {
    expect(workflowSchema(builtin(BANK)).fields.find((f) => f.id === "statement_date")).toMatchObject({
      not_in_future: true,
    });
    const definition = structuredClone(builtin(COURT)) as unknown as {
      fields: Array<Record<string, unknown>>;
    };
    for (const field of definition.fields) if (field.id === "filing_deadline") field.not_in_past = true;
    const court = workflowSchema(loadWorkflow(definition));
    expect(court.fields.find((f) => f.id === "filing_deadline")).toMatchObject({ not_in_past: true });
  });

  it("lists the visibility rules as dependencies", () => {
    expect(
      workflowSchema(builtin(MORTGAGE)).dependencies.map((d) => [d.field, d.depends_on, d.operator]),
    ).toEqual([
      ["co_borrower_names", "include_co_borrowers", "truthy"],
      ["amount_in_dispute", "include_amount_in_dispute", "truthy"],
      ["prior_contact_details", "include_prior_contact", "truthy"],
      ["information_requested", "include_information_request", "truthy"],
      ["attachment_summary", "include_attachment_summary", "truthy"],
    ]);
    expect(workflowSchema(builtin(COURT)).dependencies).toEqual([
      {
        field: "case_number",
        depends_on: "case_status",
        operator: "equals",
        value: "Yes — an existing case",
        visible_when: { "==": [{ var: "case_status" }, "Yes — an existing case"] },
      },
    ]);
  });

  it("gives attachments, the 12 MB total, checkout flow, certified policy and versions", () => {
    const schema = workflowSchema(builtin(COURT));
    expect(
      schema.attachments.map((a) => [a.id, a.required, a.min_files, a.max_files, a.max_file_size_mb]),
    ).toEqual([
      ["primary_document", true, 1, 1, 12],
      ["supporting_documents", false, 0, 20, 12],
    ]);
    expect(schema.attachments_max_total_size_mb).toBe(12);
    expect(schema.checkout_flow).toBe("forms_order");
    expect(schema.certified).toBe("optional");
    expect(schema.certified_required).toBe(false);
    expect(schema.versions).toEqual({ schema_version: 1, workflow_version: 1 });
    expect(workflowSchema(builtin(MORTGAGE)).certified_required).toBe(true);
  });

  it("gives the eligibility rules with their codes and reasons", () => {
    const rule = workflowSchema(builtin(MORTGAGE)).eligibility.find(
      (r) => r.code === "out_of_scope_payment_enclosed",
    );
    expect(rule).toMatchObject({
      field: "payment_enclosed",
      when: { "==": [{ var: "payment_enclosed" }, "Yes"] },
    });
  });

  it("is plain JSON", () => {
    const schema = workflowSchema(builtin(BANK));
    expect(JSON.parse(JSON.stringify(schema))).toEqual(schema);
  });
});
