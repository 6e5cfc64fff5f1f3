import { describe, expect, it } from "vitest";
import { builtin, drawnSignature, evaluate, keys, MORTGAGE, mortgageAnswers } from "./test-support.ts";

const workflow = builtin(MORTGAGE);

/** The valid answer set with one change. */
function withChange(change: (fields: Record<string, unknown>) => void) {
  const fields = mortgageAnswers();
  change(fields);
  return evaluate(workflow, fields);
}

function onlyIssue(change: (fields: Record<string, unknown>) => void, path: string, code: string): void {
  expect(keys(withChange(change).issues)).toEqual([`${path} ${code}`]);
}

describe("mortgage-servicing-error-packet", () => {
  it("accepts the complete answer set", () => {
    const result = evaluate(workflow, mortgageAnswers());
    expect(result.issues).toEqual([]);
    expect(result.warnings).toEqual([]);
    expect(result.ok).toBe(true);
    expect(result.eligibility).toEqual({ eligible: true, refusals: [] });
    expect(result.certified_required).toBe(true);
  });

  it("accepts it with every optional part left out", () => {
    const result = withChange((f) => {
      for (const id of ["phone", "email"]) delete f[id];
      for (const id of [
        "include_co_borrowers",
        "include_amount_in_dispute",
        "include_prior_contact",
        "include_information_request",
        "include_attachment_summary",
      ]) {
        f[id] = false;
      }
      for (const id of [
        "co_borrower_names",
        "amount_in_dispute",
        "prior_contact_details",
        "information_requested",
        "attachment_summary",
      ]) {
        delete f[id];
      }
    });
    expect(result.ok).toBe(true);
  });

  describe("required fields", () => {
    const required = workflow.fields.filter((f) => f.required === true).map((f) => f.id);
    it.each(required)("%s is required", (id) => {
      onlyIssue((f) => delete f[id], `form.fields.${id}`, "required");
    });
  });

  describe("visibility rules", () => {
    it.each([
      ["include_co_borrowers", "co_borrower_names", "Casey Public"],
      ["include_amount_in_dispute", "amount_in_dispute", "74.11"],
      ["include_prior_contact", "prior_contact_details", "I called on February 24."],
      ["include_information_request", "information_requested", "The payment history for 2026."],
      ["include_attachment_summary", "attachment_summary", "A copy of my statement."],
    ])("%s shows %s, which is then required", (toggle, dependent, value) => {
      onlyIssue((f) => delete f[dependent], `form.fields.${dependent}`, "required");
      const hidden = withChange((f) => {
        f[toggle] = false;
        f[dependent] = value;
      });
      expect(hidden.ok).toBe(true);
      expect(hidden.active_fields).not.toContain(dependent);
      expect(keys(hidden.warnings)).toEqual([`form.fields.${dependent} hidden_field_ignored`]);
      const absent = withChange((f) => {
        delete f[toggle];
        delete f[dependent];
      });
      expect(absent.ok).toBe(true);
    });
  });

  describe("length bounds", () => {
    it.each([
      ["mortgage_account_number", 3, 64],
      ["error_description", 20, 5000],
      ["relevant_dates", 6, 2000],
      ["requested_correction", 10, 3000],
      ["information_requested", 10, 3000],
    ])("%s takes %i to %i characters", (id, min, max) => {
      onlyIssue((f) => (f[id] = "7".repeat(min - 1)), `form.fields.${id}`, "too_short");
      expect(withChange((f) => (f[id] = "7".repeat(min))).ok).toBe(true);
      expect(withChange((f) => (f[id] = "7".repeat(max))).ok).toBe(true);
      onlyIssue((f) => (f[id] = "7".repeat(max + 1)), `form.fields.${id}`, "too_long");
    });

    it.each([
      ["prior_contact_details", 2500],
      ["attachment_summary", 2000],
    ])("%s takes at most %i characters", (id, max) => {
      expect(withChange((f) => (f[id] = "y".repeat(max))).ok).toBe(true);
      onlyIssue((f) => (f[id] = "y".repeat(max + 1)), `form.fields.${id}`, "too_long");
    });

    it("counts characters, not UTF-16 units, and trims surrounding space", () => {
      expect(withChange((f) => (f.relevant_dates = "😀".repeat(6))).ok).toBe(true);
      onlyIssue((f) => (f.relevant_dates = "  12345  "), "form.fields.relevant_dates", "too_short");
    });
  });

  describe("select fields take exactly one of their choices", () => {
    const selects = workflow.fields.filter((f) => f.type === "select");
    it.each(selects.map((f) => [f.id, f.choices?.[0] ?? ""]))("%s", (id, first) => {
      onlyIssue((f) => (f[id] = first.toUpperCase()), `form.fields.${id}`, "invalid_choice");
      onlyIssue((f) => (f[id] = ` ${first}`), `form.fields.${id}`, "invalid_choice");
      onlyIssue((f) => (f[id] = 1), `form.fields.${id}`, "invalid_type");
    });
  });

  describe("out-of-scope answers are refused with a code naming the answer", () => {
    it.each([
      [
        "relationship_to_loan",
        "Authorized representative",
        "out_of_scope_relationship_authorized_representative",
      ],
      [
        "relationship_to_loan",
        "Successor, heir, or estate representative",
        "out_of_scope_relationship_successor_or_estate",
      ],
      ["relationship_to_loan", "Another relationship or unsure", "out_of_scope_relationship_other_or_unsure"],
      ["loan_type", "Home equity line of credit (HELOC)", "out_of_scope_loan_type_heloc"],
      ["loan_type", "Reverse mortgage", "out_of_scope_loan_type_reverse_mortgage"],
      ["loan_type", "Another loan type or unsure", "out_of_scope_loan_type_other_or_unsure"],
      ["request_scope", "Origination or underwriting", "out_of_scope_request_origination_or_underwriting"],
      [
        "request_scope",
        "Loss mitigation or foreclosure",
        "out_of_scope_request_loss_mitigation_or_foreclosure",
      ],
      ["request_scope", "Another issue or unsure", "out_of_scope_request_other_or_unsure"],
      ["foreclosure_sale_scheduled", "Yes", "out_of_scope_foreclosure_sale_scheduled"],
      ["foreclosure_sale_scheduled", "Unsure", "out_of_scope_foreclosure_sale_unsure"],
      ["active_bankruptcy_or_litigation", "Yes", "out_of_scope_active_bankruptcy_or_litigation"],
      ["active_bankruptcy_or_litigation", "Unsure", "out_of_scope_bankruptcy_or_litigation_unsure"],
      ["payment_enclosed", "Yes", "out_of_scope_payment_enclosed"],
    ])("%s %s: %s", (id, value, code) => {
      const result = withChange((f) => (f[id] = value));
      expect(keys(result.issues)).toEqual([`form.fields.${id} ${code}`]);
      expect(keys(result.eligibility.refusals)).toEqual([`form.fields.${id} ${code}`]);
      expect(result.eligibility.eligible).toBe(false);
      expect(result.eligibility.refusals[0]?.message).toMatch(/\w/);
    });

    it("reports every refusal at once", () => {
      const result = withChange((f) => {
        f.payment_enclosed = "Yes";
        f.loan_type = "Reverse mortgage";
      });
      expect(result.eligibility.refusals.map((r) => r.code).sort()).toEqual([
        "out_of_scope_loan_type_reverse_mortgage",
        "out_of_scope_payment_enclosed",
      ]);
    });
  });

  describe("value classes", () => {
    it("phone", () => {
      onlyIssue((f) => (f.phone = "call me"), "form.fields.phone", "invalid_phone");
      onlyIssue((f) => (f.phone = "12345"), "form.fields.phone", "invalid_phone");
      onlyIssue((f) => (f.phone = "+999 1234567"), "form.fields.phone", "invalid_phone");
      onlyIssue((f) => (f.phone = "217 555 0142 5"), "form.fields.phone", "invalid_phone");
      expect(withChange((f) => (f.phone = "217.555.0142 ext. 12")).answers.phone).toBe(
        "+12175550142 ext. 12",
      );
    });
    it.each(["(217) 555-0142", "217-555-0142", "217.555.0142", "+1 217 555 0142"])(
      "phone %s is accepted and kept in E.164",
      (phone) => {
        const result = withChange((f) => (f.phone = phone));
        expect(result.issues).toEqual([]);
        expect(result.answers.phone).toBe("+12175550142");
      },
    );
    it("phone: international numbers, and national ones in the country of the sender's address", () => {
      expect(withChange((f) => (f.phone = "+44 20 7946 0958")).answers.phone).toBe("+442079460958");
      const uk = { line1: "10 Example Road", city: "London", zip: "SW1A 1AA", countryCode: "GB" };
      const fromUk = withChange((f) => {
        f.sender_address = uk;
        f.phone = "020 7946 0958";
      });
      expect(fromUk.issues).toEqual([]);
      expect(fromUk.answers.phone).toBe("+442079460958");
      onlyIssue((f) => (f.phone = "020 7946 0958"), "form.fields.phone", "invalid_phone");
    });
    it("email", () => {
      onlyIssue((f) => (f.email = "jordan@example"), "form.fields.email", "invalid_email");
      onlyIssue((f) => (f.email = "jordan at example.com"), "form.fields.email", "invalid_email");
    });
    it("currency: a positive amount like 1234.56 or $1,234.56", () => {
      for (const good of ["1234.56", "$1,234.56", "$74", "0.01"]) {
        expect(withChange((f) => (f.amount_in_dispute = good)).ok).toBe(true);
      }
      for (const bad of ["0", "-5.00", "12.345", "1,23.00", "€12", "twelve"]) {
        onlyIssue((f) => (f.amount_in_dispute = bad), "form.fields.amount_in_dispute", "invalid_currency");
      }
    });
    it("date: YYYY-MM-DD and a real calendar date", () => {
      onlyIssue((f) => (f.letter_date = "2026-02-30"), "form.fields.letter_date", "invalid_date");
      onlyIssue((f) => (f.letter_date = "03/09/2026"), "form.fields.letter_date", "invalid_date");
      expect(withChange((f) => (f.letter_date = "2028-02-29")).ok).toBe(true);
    });
    it("text fields are single lines", () => {
      onlyIssue((f) => (f.sender_name = "Jordan\nPublic"), "form.fields.sender_name", "invalid_format");
    });
  });

  describe("address fields follow the manual-address rules", () => {
    it("state for US addresses", () => {
      onlyIssue(
        (f) => (f.sender_address = { line1: "1 Main", city: "Springfield", zip: "62701" }),
        "form.fields.sender_address.state",
        "state_required",
      );
    });
    it("a US ZIP code", () => {
      onlyIssue(
        (f) => (f.recipient_address = { line1: "1 Main", city: "Dallas", state: "TX", zip: "7520" }),
        "form.fields.recipient_address.zip",
        "invalid_postal_code",
      );
    });
    it("an allowed country, and no other properties", () => {
      onlyIssue(
        (f) => (f.sender_address = { line1: "1 Main", city: "Oslo", zip: "0150", countryCode: "NO" }),
        "form.fields.sender_address.countryCode",
        "invalid_country",
      );
      onlyIssue(
        (f) =>
          (f.sender_address = { line1: "1 Main", city: "Springfield", state: "IL", zip: "62701", apt: "2" }),
        "form.fields.sender_address.apt",
        "unknown_property",
      );
    });
    it("line1, city and zip", () => {
      onlyIssue(
        (f) => (f.sender_address = { line1: " ", city: "Springfield", state: "IL", zip: "62701" }),
        "form.fields.sender_address.line1",
        "required",
      );
    });
    it("a blank address is not an answer", () => {
      onlyIssue(
        (f) => (f.sender_address = { line1: "", city: " " }),
        "form.fields.sender_address",
        "required",
      );
    });
  });

  describe("the signature", () => {
    it("takes a drawn PNG signature", () => {
      expect(withChange((f) => (f.signature = drawnSignature())).ok).toBe(true);
    });
    it("refuses another shape", () => {
      onlyIssue((f) => (f.signature = "Jordan"), "form.fields.signature", "invalid_signature");
      onlyIssue(
        (f) => (f.signature = { mode: "stamp", text: "J" }),
        "form.fields.signature",
        "invalid_signature",
      );
    });
    it("a blank typed signature is not a signature", () => {
      onlyIssue((f) => (f.signature = { mode: "typed", text: "  " }), "form.fields.signature", "required");
    });
  });

  it("refuses an unknown field id", () => {
    onlyIssue((f) => (f.loan_number = "1"), "form.fields.loan_number", "unknown_field");
  });
});
