import { describe, expect, it } from "vitest";
import { BANK, BANK_DENIED, bankAnswers, builtin, evaluate, keys } from "./test-support.ts";

const workflow = builtin(BANK);
const CONFIRMATION = "Written confirmation requested by the bank";

function withChange(change: (fields: Record<string, unknown>) => void) {
  const fields = bankAnswers();
  change(fields);
  return evaluate(workflow, fields);
}

function onlyIssue(change: (fields: Record<string, unknown>) => void, path: string, code: string): void {
  expect(keys(withChange(change).issues)).toEqual([`${path} ${code}`]);
}

/** The answers of the denied-claim stage, complete. */
function denied(f: Record<string, unknown>): void {
  f.claim_stage = BANK_DENIED;
  f.bank_response_date = "2026-03-05";
  f.bank_response_details = "The bank denied the claim on March 5 and reversed the provisional credit.";
  f.investigation_records_requested = "Copies of the documents the bank relied on in its investigation.";
}

describe("bank-fraud-unauthorized-transfer-dispute", () => {
  it("accepts the complete answer set", () => {
    const result = evaluate(workflow, bankAnswers());
    expect(result.issues).toEqual([]);
    expect(result.warnings).toEqual([]);
    expect(result.ok).toBe(true);
    expect(result.certified_required).toBe(true);
  });

  describe("required fields", () => {
    const required = workflow.fields.filter((f) => f.required === true).map((f) => f.id);
    it.each(required)("%s is required", (id) => {
      onlyIssue((f) => delete f[id], `form.fields.${id}`, "required");
    });
  });

  describe("visibility rules", () => {
    it("include_bank_claim_number shows bank_claim_number", () => {
      onlyIssue((f) => delete f.bank_claim_number, "form.fields.bank_claim_number", "required");
      const hidden = withChange((f) => (f.include_bank_claim_number = false));
      expect(hidden.ok).toBe(true);
      expect(keys(hidden.warnings)).toEqual(["form.fields.bank_claim_number hidden_field_ignored"]);
    });

    it("include_attachment_summary shows attachment_summary", () => {
      onlyIssue((f) => (f.include_attachment_summary = true), "form.fields.attachment_summary", "required");
      expect(
        withChange((f) => {
          f.include_attachment_summary = true;
          f.attachment_summary = "Statement copy.";
        }).ok,
      ).toBe(true);
    });

    it("claim_stage 'Written confirmation requested by the bank' shows written_confirmation_due_date", () => {
      onlyIssue(
        (f) => (f.claim_stage = CONFIRMATION),
        "form.fields.written_confirmation_due_date",
        "required",
      );
      const shown = withChange((f) => {
        f.claim_stage = CONFIRMATION;
        f.written_confirmation_due_date = "2026-03-25";
      });
      expect(shown.ok).toBe(true);
      expect(shown.active_fields).toContain("written_confirmation_due_date");
      expect(shown.active_fields).not.toContain("bank_response_date");
      const hidden = withChange((f) => (f.written_confirmation_due_date = "2026-03-25"));
      expect(hidden.ok).toBe(true);
      expect(keys(hidden.warnings)).toEqual([
        "form.fields.written_confirmation_due_date hidden_field_ignored",
      ]);
    });

    it("the denied-or-reversed stage shows bank_response_date, bank_response_details and investigation_records_requested", () => {
      expect(keys(withChange((f) => (f.claim_stage = BANK_DENIED)).issues)).toEqual([
        "form.fields.bank_response_date required",
        "form.fields.bank_response_details required",
        "form.fields.investigation_records_requested required",
      ]);
      const shown = withChange(denied);
      expect(shown.ok).toBe(true);
      expect(shown.active_fields).not.toContain("written_confirmation_due_date");
      const hidden = withChange((f) => {
        denied(f);
        f.claim_stage = "Initial written error notice after reporting the transfer";
      });
      expect(hidden.ok).toBe(true);
      expect(hidden.warnings.map((w) => w.path)).toEqual([
        "form.fields.bank_response_date",
        "form.fields.bank_response_details",
        "form.fields.investigation_records_requested",
      ]);
    });
  });

  describe("account_last_4 is exactly four digits", () => {
    it.each([
      ["482", "too_short"],
      ["48210", "too_long"],
      ["48a1", "invalid_format"],
      ["４８２１", "invalid_format"],
    ])("%s: %s", (value, code) => {
      onlyIssue((f) => (f.account_last_4 = value), "form.fields.account_last_4", code);
    });
    it("0042 is four digits", () => {
      expect(withChange((f) => (f.account_last_4 = "0042")).ok).toBe(true);
    });
  });

  describe("length bounds", () => {
    it.each([
      ["disputed_transactions", 20, 6000],
      ["why_error", 20, 5000],
      ["chronology", 20, 5000],
      ["requested_correction", 10, 4000],
    ])("%s takes %i to %i characters", (id, min, max) => {
      onlyIssue((f) => (f[id] = "7".repeat(min - 1)), `form.fields.${id}`, "too_short");
      expect(withChange((f) => (f[id] = "7".repeat(min))).ok).toBe(true);
      expect(withChange((f) => (f[id] = "7".repeat(max))).ok).toBe(true);
      onlyIssue((f) => (f[id] = "7".repeat(max + 1)), `form.fields.${id}`, "too_long");
    });

    it.each([
      ["bank_response_details", 10, 4000],
      ["investigation_records_requested", 10, 4000],
    ])("%s takes %i to %i characters while shown", (id, min, max) => {
      const set = (value: string) =>
        withChange((f) => {
          denied(f);
          f[id] = value;
        });
      expect(keys(set("7".repeat(min - 1)).issues)).toEqual([`form.fields.${id} too_short`]);
      expect(set("7".repeat(max)).ok).toBe(true);
      expect(keys(set("7".repeat(max + 1)).issues)).toEqual([`form.fields.${id} too_long`]);
    });

    it("bank_claim_number takes at most 80 characters", () => {
      expect(withChange((f) => (f.bank_claim_number = "C".repeat(80))).ok).toBe(true);
      onlyIssue((f) => (f.bank_claim_number = "C".repeat(81)), "form.fields.bank_claim_number", "too_long");
    });

    it("attachment_summary takes at most 2500 characters", () => {
      const set = (value: string) =>
        withChange((f) => {
          f.include_attachment_summary = true;
          f.attachment_summary = value;
        });
      expect(set("s".repeat(2500)).ok).toBe(true);
      expect(keys(set("s".repeat(2501)).issues)).toEqual(["form.fields.attachment_summary too_long"]);
    });
  });

  describe("dates of past events are not in the future", () => {
    it.each(["statement_date", "bank_contact_date"])("%s", (id) => {
      expect(withChange((f) => (f[id] = "2026-03-10")).ok).toBe(true);
      onlyIssue((f) => (f[id] = "2026-03-11"), `form.fields.${id}`, "date_in_future");
    });
    it("bank_response_date", () => {
      const result = withChange((f) => {
        denied(f);
        f.bank_response_date = "2026-04-01";
      });
      expect(keys(result.issues)).toEqual(["form.fields.bank_response_date date_in_future"]);
    });
    it("the written confirmation date may be in the future", () => {
      const result = withChange((f) => {
        f.claim_stage = CONFIRMATION;
        f.written_confirmation_due_date = "2026-04-01";
      });
      expect(result.ok).toBe(true);
    });
  });

  describe("select fields take exactly one of their choices", () => {
    const selects = workflow.fields.filter((f) => f.type === "select");
    it.each(selects.map((f) => [f.id, f.choices?.[0] ?? ""]))("%s", (id, first) => {
      onlyIssue((f) => (f[id] = first.toLowerCase()), `form.fields.${id}`, "invalid_choice");
      onlyIssue(
        (f) => (f[id] = first.replace("—", "-") + (first.includes("—") ? "" : "!")),
        `form.fields.${id}`,
        "invalid_choice",
      );
    });
  });

  describe("out-of-scope answers are refused with a code naming the answer", () => {
    it.each([
      [
        "relationship_to_account",
        "Authorized representative",
        "out_of_scope_relationship_authorized_representative",
      ],
      [
        "relationship_to_account",
        "Estate, successor, or other relationship",
        "out_of_scope_relationship_estate_or_successor",
      ],
      [
        "relationship_to_account",
        "Another relationship or unsure",
        "out_of_scope_relationship_other_or_unsure",
      ],
      ["account_use", "Business or commercial account", "out_of_scope_business_account"],
      ["account_use", "Another use or unsure", "out_of_scope_account_use_other_or_unsure"],
      ["transaction_scope", "Credit-card charge", "out_of_scope_credit_card_charge"],
      ["transaction_scope", "Paper check", "out_of_scope_paper_check"],
      ["transaction_scope", "Wire transfer", "out_of_scope_wire_transfer"],
      ["transaction_scope", "Cryptocurrency transfer", "out_of_scope_cryptocurrency_transfer"],
      ["transaction_scope", "Another transaction or unsure", "out_of_scope_transaction_other_or_unsure"],
      ["already_reported_to_bank", "No — I have not reported it yet", "out_of_scope_not_reported_to_bank"],
      ["already_reported_to_bank", "Unsure", "out_of_scope_report_to_bank_unsure"],
      ["active_legal_matter", "Yes", "out_of_scope_active_legal_matter"],
      ["active_legal_matter", "Unsure", "out_of_scope_legal_matter_unsure"],
      ["physical_enclosure", "Yes", "out_of_scope_physical_enclosure"],
      [
        "authorization_scope",
        "I knowingly sent or approved the transfer",
        "out_of_scope_knowingly_sent_transfer",
      ],
    ])("%s %s: %s", (id, value, code) => {
      const result = withChange((f) => (f[id] = value));
      expect(keys(result.issues)).toEqual([`form.fields.${id} ${code}`]);
      expect(keys(result.eligibility.refusals)).toEqual([`form.fields.${id} ${code}`]);
    });

    it.each([
      ["authorization_scope", "Unsure"],
      ["authorization_scope", "I authorized a transfer, but its amount was wrong or it was duplicated"],
      ["consumer_received_benefit", "Yes"],
      ["consumer_received_benefit", "Unsure"],
      ["transfer_rail", "Fraudster-initiated P2P transfer"],
    ])("%s %s stays in scope", (id, value) => {
      expect(withChange((f) => (f[id] = value)).ok).toBe(true);
    });
  });

  it("validates the contact classes and the total amount", () => {
    onlyIssue((f) => (f.phone = "555"), "form.fields.phone", "invalid_phone");
    onlyIssue((f) => (f.email = "morgan@"), "form.fields.email", "invalid_email");
    onlyIssue(
      (f) => (f.total_disputed_amount = "$0.00"),
      "form.fields.total_disputed_amount",
      "invalid_currency",
    );
  });
});
