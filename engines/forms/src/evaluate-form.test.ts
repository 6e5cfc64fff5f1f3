import { describe, expect, it } from "vitest";
import { FormsError } from "./errors.ts";
import { evaluateForm } from "./evaluate-form.ts";
import { loadWorkflow } from "./load-workflow.ts";
import {
  BANK,
  bankAnswers,
  builtin,
  COURT,
  courtAnswers,
  MORTGAGE,
  mortgageAnswers,
  TODAY,
} from "./test-support.ts";

/** A workflow with a visibility chain, a fact default and a declaration, to test the interpreter itself. */
const chain = loadWorkflow({
  slug: "chain-test",
  name: "Chain test",
  aliases: [],
  schema_version: 1,
  workflow_version: 1,
  purpose: "Tests.",
  certified: "optional",
  recipient_mode: "user",
  envelope: {
    mailpiece_type: "letter",
    mail_class: "standard",
    double_sided: true,
    color: false,
    certified: false,
  },
  compliance: { policy: null, stages: [] },
  fields: [
    { id: "first", type: "checkbox", label: "First", required: false },
    {
      id: "second",
      type: "checkbox",
      label: "Second",
      required: false,
      visible_when: { "!!": [{ var: "first" }] },
    },
    {
      id: "third",
      type: "text",
      label: "Third",
      required: "when_active",
      visible_when: { "!!": { var: "second" } },
    },
    {
      id: "colour",
      type: "select",
      label: "Colour",
      required: true,
      choices: ["Red", "Blue"],
      default: "Red",
    },
    { id: "subscribe", type: "checkbox", label: "Subscribe", required: true, default: true },
    { id: "terms_acknowledged", type: "checkbox", label: "Terms", required: true, role: "declaration" },
  ],
  attachments: { max_total_bytes: 1000, slots: [] },
  eligibility: [],
  packet: {
    kind: "letter",
    titles: [{ text: "Chain" }],
    sections: [{ lines: ["{{third}}"] }],
    footer: "Printed by Mailpiece.",
  },
});

/** The start of a PDF file, base64: enough for the attachment checks, which read a file's first bytes. */
const PDF_BYTES = Buffer.from("%PDF-1.7\n%%EOF\n", "latin1").toString("base64");

const codes = (issues: { path: string; code: string }[]) => issues.map((i) => `${i.path} ${i.code}`);

describe("evaluateForm: activity and visibility", () => {
  it("a field is active unless its rule hides it; rules read earlier valid answers", () => {
    const none = evaluateForm(chain, { fields: { terms_acknowledged: true } }, { stage: "preview" });
    expect(none.active_fields).toEqual(["first", "colour", "subscribe", "terms_acknowledged"]);
    const all = evaluateForm(
      chain,
      { fields: { first: true, second: true, third: "x", terms_acknowledged: true } },
      { stage: "preview" },
    );
    expect(all.active_fields).toEqual([
      "first",
      "second",
      "third",
      "colour",
      "subscribe",
      "terms_acknowledged",
    ]);
    expect(all.ok).toBe(true);
  });

  it("a required field counts only while active", () => {
    const hidden = evaluateForm(
      chain,
      { fields: { first: true, terms_acknowledged: true } },
      { stage: "preview" },
    );
    expect(hidden.ok).toBe(true);
    const shown = evaluateForm(
      chain,
      { fields: { first: true, second: true, terms_acknowledged: true } },
      { stage: "preview" },
    );
    expect(codes(shown.issues)).toEqual(["form.fields.third required"]);
  });

  it("answers to hidden fields are ignored, not validated, and reported as warnings", () => {
    const result = evaluateForm(
      chain,
      { fields: { first: false, second: true, third: 42, terms_acknowledged: true } },
      { stage: "preview" },
    );
    expect(result.ok).toBe(true);
    expect(result.answers).not.toHaveProperty("second");
    expect(result.answers).not.toHaveProperty("third");
    expect(codes(result.warnings)).toEqual([
      "form.fields.second hidden_field_ignored",
      "form.fields.third hidden_field_ignored",
    ]);
  });

  it("a hidden field's answer never shows another field (no chain through hidden answers)", () => {
    const result = evaluateForm(
      chain,
      { fields: { second: true, terms_acknowledged: true } },
      { stage: "preview" },
    );
    expect(result.active_fields).not.toContain("third");
  });

  it("an invalid answer does not satisfy a rule", () => {
    const result = evaluateForm(
      chain,
      { fields: { first: "yes", second: true, terms_acknowledged: true } },
      { stage: "preview" },
    );
    expect(codes(result.issues)).toEqual(["form.fields.first invalid_type"]);
    expect(result.active_fields).not.toContain("second");
  });
});

describe("evaluateForm: what counts as an answer", () => {
  it.each([
    ["an empty string", ""],
    ["a whitespace-only string", " \n\t "],
    ["null", null],
  ])("%s is not an answer", (_, value) => {
    const result = evaluateForm(
      chain,
      { fields: { first: true, second: true, third: value, terms_acknowledged: true } },
      { stage: "preview" },
    );
    expect(codes(result.issues)).toEqual(["form.fields.third required"]);
  });

  it("an unchecked box is not an answer", () => {
    const result = evaluateForm(chain, { fields: { terms_acknowledged: false } }, { stage: "preview" });
    expect(codes(result.issues)).toEqual(["form.fields.terms_acknowledged required"]);
  });

  it("fact fields take their default when unanswered", () => {
    const result = evaluateForm(chain, { fields: { terms_acknowledged: true } }, { stage: "preview" });
    expect(result.answers).toMatchObject({ colour: "Red", subscribe: true });
    expect(result.ok).toBe(true);
  });

  it("a declaration is never taken from a default or inferred", () => {
    const result = evaluateForm(chain, { fields: {} }, { stage: "preview" });
    expect(codes(result.issues)).toEqual(["form.fields.terms_acknowledged required"]);
    expect(result.answers).not.toHaveProperty("terms_acknowledged");
  });

  it("signatures, eligibility answers and declarations of the built-in workflows are never inferred", () => {
    const mortgage = builtin(MORTGAGE);
    const answers = mortgageAnswers();
    for (const id of ["signature", "facts_acknowledged", "product_limits_acknowledged", "payment_enclosed"]) {
      delete answers[id];
    }
    const result = evaluateForm(mortgage, { fields: answers }, { stage: "preview" });
    expect(codes(result.issues).sort()).toEqual(
      [
        "form.fields.facts_acknowledged required",
        "form.fields.payment_enclosed required",
        "form.fields.product_limits_acknowledged required",
        "form.fields.signature required",
      ].sort(),
    );
    expect(result.eligibility.eligible).toBe(true);
  });

  it("refuses unknown field ids", () => {
    const result = evaluateForm(
      chain,
      { fields: { terms_acknowledged: true, fourth: "x" } },
      { stage: "preview" },
    );
    expect(codes(result.issues)).toEqual(["form.fields.fourth unknown_field"]);
  });

  it("answers the shape of the input with issues, never by throwing", () => {
    expect(codes(evaluateForm(chain, { fields: [] as never }, { stage: "preview" }).issues)).toContain(
      "form.fields invalid_type",
    );
    expect(codes(evaluateForm(chain, {} as never, { stage: "preview" }).issues)).toContain(
      "form.fields required",
    );
    expect(codes(evaluateForm(chain, null as never, { stage: "preview" }).issues)).toContain(
      "form invalid_type",
    );
  });

  it("does not change the input", () => {
    const fields = mortgageAnswers();
    const copy = structuredClone(fields);
    evaluateForm(builtin(MORTGAGE), { fields }, { stage: "preview" });
    expect(fields).toEqual(copy);
  });
});

describe("evaluateForm: stages and options", () => {
  it("re-runs every rule at each stage: fine at preview, refused at payment after a change", () => {
    const mortgage = builtin(MORTGAGE);
    const fields = mortgageAnswers();
    const preview = evaluateForm(mortgage, { fields }, { stage: "preview" });
    expect(preview.ok).toBe(true);
    fields.foreclosure_sale_scheduled = "Yes";
    const payment = evaluateForm(mortgage, { fields }, { stage: "payment" });
    expect(payment.ok).toBe(false);
    expect(codes(payment.eligibility.refusals)).toEqual([
      "form.fields.foreclosure_sale_scheduled out_of_scope_foreclosure_sale_scheduled",
    ]);
  });

  it("a field changed after approval is checked again at fulfillment", () => {
    const bank = builtin(BANK);
    const fields = bankAnswers();
    expect(evaluateForm(bank, { fields }, { stage: "approval", today: TODAY }).ok).toBe(true);
    fields.account_last_4 = "48";
    const later = evaluateForm(bank, { fields }, { stage: "fulfillment", today: TODAY });
    expect(codes(later.issues)).toEqual(["form.fields.account_last_4 too_short"]);
  });

  it("a deadline valid at payment is refused at fulfillment once the clock has passed it", () => {
    const definition = structuredClone(builtin(COURT)) as unknown as {
      fields: Array<Record<string, unknown>>;
    };
    for (const field of definition.fields) {
      if (field.id === "filing_deadline") field.not_in_past = true;
    }
    const court = loadWorkflow(definition);
    const motion = { id: "primary_document", file_name: "motion.pdf", base64: PDF_BYTES };
    const input = { fields: { ...courtAnswers(), filing_deadline: "2026-04-01" }, attachments: [motion] };
    const atPayment = { now: () => Date.parse("2026-03-31T23:00:00Z") };
    const atFulfillment = { now: () => Date.parse("2026-04-02T09:00:00Z") };
    const paid = evaluateForm(court, input, { stage: "payment", clock: atPayment });
    expect(paid.issues).toEqual([]);
    expect(paid.ok).toBe(true);
    const deadlineDay = evaluateForm(court, input, {
      stage: "fulfillment",
      clock: { now: () => Date.parse("2026-04-01T23:59:59Z") },
    });
    expect(deadlineDay.ok).toBe(true);
    const fulfilled = evaluateForm(court, input, { stage: "fulfillment", clock: atFulfillment });
    expect(fulfilled.ok).toBe(false);
    expect(fulfilled.stage).toBe("fulfillment");
    expect(codes(fulfilled.issues)).toEqual(["form.fields.filing_deadline date_in_past"]);
    expect(fulfilled.issues[0]?.message).toContain("2026-04-02");
  });

  it("needs today (or a clock) for a workflow with a date that must not be in the past", () => {
    const definition = structuredClone(builtin(COURT)) as unknown as {
      fields: Array<Record<string, unknown>>;
    };
    for (const field of definition.fields) {
      if (field.id === "filing_deadline") field.not_in_past = true;
    }
    expect(() =>
      evaluateForm(loadWorkflow(definition), { fields: courtAnswers() }, { stage: "fulfillment" }),
    ).toThrow(expect.objectContaining({ code: "invalid_options" }));
  });

  it.each(["preview", "approval", "checkout", "payment", "fulfillment", "machine"] as const)(
    "gives the same answer at stage %s and says whether the policy lists it",
    (stage) => {
      const result = evaluateForm(builtin(MORTGAGE), { fields: mortgageAnswers() }, { stage });
      expect(result.ok).toBe(true);
      expect(result.stage).toBe(stage);
      expect(result.compliance).toEqual({ policy: "mortgage-servicing-scope", stage_listed: true });
      const court = evaluateForm(builtin(COURT), { fields: courtAnswers() }, { stage });
      expect(court.compliance).toEqual({ policy: null, stage_listed: false });
    },
  );

  it("refuses an unknown stage", () => {
    expect(() => evaluateForm(chain, { fields: {} }, { stage: "shipping" as never })).toThrow(
      expect.objectContaining({ code: "invalid_options" }),
    );
  });

  it("refuses a today that is not a calendar date", () => {
    expect(() => evaluateForm(chain, { fields: {} }, { stage: "preview", today: "2026-02-30" })).toThrow(
      FormsError,
    );
  });

  it("needs today (or a clock) for a workflow that compares dates with it", () => {
    expect(() => evaluateForm(builtin(BANK), { fields: bankAnswers() }, { stage: "preview" })).toThrow(
      expect.objectContaining({ code: "invalid_options" }),
    );
    const clock = { now: () => Date.parse("2026-03-10T12:00:00Z") };
    expect(evaluateForm(builtin(BANK), { fields: bankAnswers() }, { stage: "preview", clock }).ok).toBe(true);
    const early = { now: () => Date.parse("2026-02-20T12:00:00Z") };
    const result = evaluateForm(builtin(BANK), { fields: bankAnswers() }, { stage: "preview", clock: early });
    expect(codes(result.issues)).toEqual(["form.fields.statement_date date_in_future"]);
  });

  it("reports whether Certified Mail is required", () => {
    expect(evaluateForm(builtin(MORTGAGE), { fields: {} }, { stage: "preview" }).certified_required).toBe(
      true,
    );
    expect(evaluateForm(builtin(COURT), { fields: {} }, { stage: "preview" }).certified_required).toBe(false);
  });
});
