import { readdirSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { BUILTIN_WORKFLOWS } from "./builtin-workflows.ts";
import { requiresCertified } from "./certified.ts";
import { ruleParts } from "./rules.ts";
import { BANK, builtin, COURT, MORTGAGE } from "./test-support.ts";
import type { Workflow } from "./workflow.ts";

/**
 * Document 2, table by table. Each row: id, type, required, and the rules the spec states (choices, bounds,
 * class, visibility). The workflows must say exactly this; nothing is read back from the JSON to build it.
 */
type Row = {
  id: string;
  type: string;
  required: boolean | "when_active";
  choices?: string[];
  min?: number;
  max?: number;
  text_class?: string;
  visible?: { truthy: string } | { field: string; equals: string };
};

const YES_NO_UNSURE = ["No", "Yes", "Unsure"];
const BANK_CONFIRMATION = "Written confirmation requested by the bank";
const BANK_DENIED = "Claim denied or provisional credit reversed — request investigation records";

const MORTGAGE_ROWS: Row[] = [
  {
    id: "relationship_to_loan",
    type: "select",
    required: true,
    choices: [
      "Borrower or co-borrower",
      "Authorized representative",
      "Successor, heir, or estate representative",
      "Another relationship or unsure",
    ],
  },
  {
    id: "loan_type",
    type: "select",
    required: true,
    choices: [
      "Closed-end residential mortgage",
      "Home equity line of credit (HELOC)",
      "Reverse mortgage",
      "Another loan type or unsure",
    ],
  },
  {
    id: "request_scope",
    type: "select",
    required: true,
    choices: [
      "Mortgage servicing after closing",
      "Origination or underwriting",
      "Loss mitigation or foreclosure",
      "Another issue or unsure",
    ],
  },
  { id: "foreclosure_sale_scheduled", type: "select", required: true, choices: YES_NO_UNSURE },
  { id: "active_bankruptcy_or_litigation", type: "select", required: true, choices: YES_NO_UNSURE },
  { id: "payment_enclosed", type: "select", required: true, choices: ["No", "Yes"] },
  {
    id: "designated_address_source",
    type: "select",
    required: true,
    choices: [
      "Current mortgage statement",
      "Current servicer website",
      "Written servicer instructions",
      "Another current servicer source",
    ],
  },
  {
    id: "primary_issue",
    type: "select",
    required: true,
    choices: [
      "Payment rejected or not accepted",
      "Payment misapplied or credited on the wrong date",
      "Escrow tax or insurance payment not made",
      "Incorrect escrow analysis or escrow balance",
      "Unsupported or incorrect fee",
      "Force-placed insurance error",
      "Incorrect periodic statement or account balance",
      "Incorrect payoff balance",
      "Servicing transfer error",
      "Another specific mortgage-servicing error",
    ],
  },
  { id: "letter_date", type: "date", required: true },
  { id: "sender_name", type: "text", required: true },
  { id: "include_co_borrowers", type: "checkbox", required: false },
  {
    id: "co_borrower_names",
    type: "text",
    required: "when_active",
    visible: { truthy: "include_co_borrowers" },
  },
  { id: "sender_address", type: "address", required: true },
  { id: "property_address", type: "text", required: true },
  { id: "mortgage_account_number", type: "text", required: true, min: 3, max: 64 },
  { id: "phone", type: "text", required: false, text_class: "phone" },
  { id: "email", type: "text", required: false, text_class: "email" },
  { id: "recipient_name", type: "text", required: true },
  { id: "recipient_address", type: "address", required: true },
  { id: "designated_address_confirmed", type: "checkbox", required: true },
  { id: "error_description", type: "textarea", required: true, min: 20, max: 5000 },
  { id: "relevant_dates", type: "textarea", required: true, min: 6, max: 2000 },
  { id: "include_amount_in_dispute", type: "checkbox", required: false },
  {
    id: "amount_in_dispute",
    type: "text",
    required: "when_active",
    text_class: "currency",
    visible: { truthy: "include_amount_in_dispute" },
  },
  { id: "include_prior_contact", type: "checkbox", required: false },
  {
    id: "prior_contact_details",
    type: "textarea",
    required: "when_active",
    max: 2500,
    visible: { truthy: "include_prior_contact" },
  },
  { id: "requested_correction", type: "textarea", required: true, min: 10, max: 3000 },
  { id: "include_information_request", type: "checkbox", required: false },
  {
    id: "information_requested",
    type: "textarea",
    required: "when_active",
    min: 10,
    max: 3000,
    visible: { truthy: "include_information_request" },
  },
  { id: "include_attachment_summary", type: "checkbox", required: false },
  {
    id: "attachment_summary",
    type: "textarea",
    required: "when_active",
    max: 2000,
    visible: { truthy: "include_attachment_summary" },
  },
  { id: "signature", type: "signature", required: true },
  { id: "facts_acknowledged", type: "checkbox", required: true },
  { id: "product_limits_acknowledged", type: "checkbox", required: true },
];

const BANK_ROWS: Row[] = [
  {
    id: "relationship_to_account",
    type: "select",
    required: true,
    choices: [
      "Account holder or joint account holder",
      "Authorized representative",
      "Estate, successor, or other relationship",
      "Another relationship or unsure",
    ],
  },
  {
    id: "account_use",
    type: "select",
    required: true,
    choices: ["Personal consumer account", "Business or commercial account", "Another use or unsure"],
  },
  {
    id: "transaction_scope",
    type: "select",
    required: true,
    choices: [
      "Electronic fund transfer from a deposit or prepaid account",
      "Credit-card charge",
      "Paper check",
      "Wire transfer",
      "Cryptocurrency transfer",
      "Another transaction or unsure",
    ],
  },
  {
    id: "already_reported_to_bank",
    type: "select",
    required: true,
    choices: [
      "Yes — I already reported it through an immediate channel",
      "No — I have not reported it yet",
      "Unsure",
    ],
  },
  { id: "active_legal_matter", type: "select", required: true, choices: YES_NO_UNSURE },
  { id: "physical_enclosure", type: "select", required: true, choices: ["No", "Yes"] },
  {
    id: "claim_stage",
    type: "select",
    required: true,
    choices: ["Initial written error notice after reporting the transfer", BANK_CONFIRMATION, BANK_DENIED],
  },
  {
    id: "error_type",
    type: "select",
    required: true,
    choices: [
      "Unauthorized electronic transfer",
      "Incorrect transfer amount",
      "Duplicate electronic transfer",
      "Incorrect ATM cash amount",
      "Unidentified electronic transfer or request for clarification",
    ],
  },
  {
    id: "transfer_rail",
    type: "select",
    required: true,
    choices: [
      "Debit card purchase",
      "ATM withdrawal",
      "ACH debit",
      "Online bank transfer",
      "Fraudster-initiated P2P transfer",
      "Another electronic fund transfer",
    ],
  },
  {
    id: "authorization_scope",
    type: "select",
    required: true,
    choices: [
      "I did not initiate or authorize the disputed transfer",
      "I authorized a transfer, but its amount was wrong or it was duplicated",
      "I knowingly sent or approved the transfer",
      "Unsure",
    ],
  },
  { id: "consumer_received_benefit", type: "select", required: true, choices: YES_NO_UNSURE },
  {
    id: "dispute_address_source",
    type: "select",
    required: true,
    choices: [
      "Bank written-confirmation or denial notice",
      "Current account statement",
      "Current account agreement or error-resolution notice",
      "Current bank website or written instructions",
    ],
  },
  {
    id: "bank_contact_channel",
    type: "select",
    required: true,
    choices: ["Phone", "Bank mobile app", "Bank website", "In person", "Another immediate bank channel"],
  },
  { id: "letter_date", type: "date", required: true },
  { id: "sender_name", type: "text", required: true },
  { id: "sender_address", type: "address", required: true },
  { id: "account_last_4", type: "text", required: true, min: 4, max: 4 },
  { id: "phone", type: "text", required: false, text_class: "phone" },
  { id: "email", type: "text", required: false, text_class: "email" },
  { id: "recipient_name", type: "text", required: true },
  { id: "recipient_address", type: "address", required: true },
  { id: "dispute_address_confirmed", type: "checkbox", required: true },
  { id: "statement_date", type: "date", required: true },
  { id: "disputed_transactions", type: "textarea", required: true, min: 20, max: 6000 },
  { id: "total_disputed_amount", type: "text", required: true, text_class: "currency" },
  { id: "why_error", type: "textarea", required: true, min: 20, max: 5000 },
  { id: "chronology", type: "textarea", required: true, min: 20, max: 5000 },
  { id: "bank_contact_date", type: "date", required: true },
  { id: "include_bank_claim_number", type: "checkbox", required: false },
  {
    id: "bank_claim_number",
    type: "text",
    required: "when_active",
    max: 80,
    visible: { truthy: "include_bank_claim_number" },
  },
  {
    id: "written_confirmation_due_date",
    type: "date",
    required: "when_active",
    visible: { field: "claim_stage", equals: BANK_CONFIRMATION },
  },
  {
    id: "bank_response_date",
    type: "date",
    required: "when_active",
    visible: { field: "claim_stage", equals: BANK_DENIED },
  },
  {
    id: "bank_response_details",
    type: "textarea",
    required: "when_active",
    min: 10,
    max: 4000,
    visible: { field: "claim_stage", equals: BANK_DENIED },
  },
  {
    id: "investigation_records_requested",
    type: "textarea",
    required: "when_active",
    min: 10,
    max: 4000,
    visible: { field: "claim_stage", equals: BANK_DENIED },
  },
  { id: "requested_correction", type: "textarea", required: true, min: 10, max: 4000 },
  { id: "include_attachment_summary", type: "checkbox", required: false },
  {
    id: "attachment_summary",
    type: "textarea",
    required: "when_active",
    max: 2500,
    visible: { truthy: "include_attachment_summary" },
  },
  { id: "signature", type: "signature", required: true },
  { id: "facts_acknowledged", type: "checkbox", required: true },
  { id: "immediate_notice_acknowledged", type: "checkbox", required: true },
  { id: "product_limits_acknowledged", type: "checkbox", required: true },
];

const EXISTING_CASE = "Yes — an existing case";

const COURT_ROWS: Row[] = [
  {
    id: "document_type",
    type: "select",
    required: true,
    choices: [
      "Complaint or petition",
      "Motion or application",
      "Answer, response, or opposition",
      "Notice or declaration",
      "Appeal-related document",
      "Evidence or exhibits",
      "Correspondence to a court or clerk",
      "Other completed court document",
    ],
  },
  { id: "document_title", type: "text", required: true },
  {
    id: "case_status",
    type: "select",
    required: true,
    choices: [
      EXISTING_CASE,
      "No — this may start a new case or matter",
      "Not applicable — correspondence or another recipient",
    ],
  },
  { id: "case_caption", type: "text", required: false },
  {
    id: "case_number",
    type: "text",
    required: "when_active",
    visible: { field: "case_status", equals: EXISTING_CASE },
  },
  { id: "sender_name", type: "text", required: true },
  { id: "sender_role", type: "text", required: false },
  { id: "sender_address", type: "address", required: true },
  { id: "recipient_company_name", type: "text", required: true },
  { id: "recipient_name", type: "text", required: true },
  { id: "recipient_address", type: "address", required: true },
  { id: "filing_deadline", type: "date", required: false },
  { id: "packet_notes", type: "textarea", required: false },
  { id: "mail_acceptance_acknowledged", type: "checkbox", required: true },
  { id: "filing_requirements_acknowledged", type: "checkbox", required: true },
  { id: "no_physical_enclosures_acknowledged", type: "checkbox", required: true },
  { id: "service_acknowledged", type: "checkbox", required: true },
  { id: "not_filed_acknowledged", type: "checkbox", required: true },
  { id: "not_legal_advice_acknowledged", type: "checkbox", required: true },
];

function rowOf(workflow: Workflow, id: string): Row {
  const field = workflow.fields.find((f) => f.id === id);
  if (field === undefined) throw new Error(`no field ${id}`);
  const visible =
    field.visible_when === undefined
      ? undefined
      : (() => {
          const parts = ruleParts(field.visible_when);
          return parts.operator === "truthy"
            ? { truthy: parts.field }
            : { field: parts.field, equals: parts.value };
        })();
  return {
    id: field.id,
    type: field.type,
    required: field.required,
    ...(field.choices === undefined ? {} : { choices: [...field.choices] }),
    ...(field.min_length === undefined ? {} : { min: field.min_length }),
    ...(field.max_length === undefined ? {} : { max: field.max_length }),
    ...(field.text_class === undefined ? {} : { text_class: field.text_class }),
    ...(visible === undefined ? {} : { visible }),
  };
}

const MB12 = 12 * 1024 * 1024;

describe.each([
  {
    slug: MORTGAGE,
    rows: MORTGAGE_ROWS,
    aliases: ["mortgage-notice-of-error", "mortgage-request-for-information", "respa-notice-of-error"],
    certified: "required",
    envelopeCertified: true,
    slots: [
      {
        id: "supporting_records",
        required: false,
        types: ["pdf", "png", "jpg", "jpeg"],
        min: 0,
        max: 20,
        order: 1,
      },
    ],
  },
  {
    slug: BANK,
    rows: BANK_ROWS,
    aliases: ["regulation-e-bank-dispute", "unauthorized-transfer-dispute-letter", "bank-fraud-claim-packet"],
    certified: "required",
    envelopeCertified: true,
    slots: [
      {
        id: "supporting_records",
        required: false,
        types: ["pdf", "png", "jpg", "jpeg"],
        min: 0,
        max: 20,
        order: 1,
      },
    ],
  },
  {
    slug: COURT,
    rows: COURT_ROWS,
    aliases: ["mail-court-documents", "court-filing-mailing-packet", "mail-legal-documents-to-court"],
    certified: "optional",
    envelopeCertified: false,
    slots: [
      { id: "primary_document", required: true, types: ["pdf"], min: 1, max: 1, order: 1 },
      {
        id: "supporting_documents",
        required: false,
        types: ["pdf", "jpg", "jpeg", "png"],
        min: 0,
        max: 20,
        order: 2,
      },
    ],
  },
])("$slug as document 2 states it", ({ slug, rows, aliases, certified, envelopeCertified, slots }) => {
  const workflow = builtin(slug);

  it("has exactly the fields of the spec, with their types, requirement, choices, bounds, classes and rules", () => {
    expect(workflow.fields.map((f) => f.id).sort()).toEqual(rows.map((r) => r.id).sort());
    for (const row of rows) expect(rowOf(workflow, row.id)).toEqual(row);
  });

  it("has its aliases, versions, certified policy and envelope", () => {
    expect([...workflow.aliases]).toEqual(aliases);
    expect(workflow.schema_version).toBe(1);
    expect(workflow.workflow_version).toBe(1);
    expect(workflow.certified).toBe(certified);
    expect(requiresCertified(workflow)).toBe(certified === "required");
    expect(workflow.recipient_mode).toBe("user");
    expect(workflow.envelope).toEqual({
      mailpiece_type: "letter",
      mail_class: "standard",
      double_sided: true,
      color: false,
      certified: envelopeCertified,
    });
  });

  it("has its attachment slots, 12 MB per file and 12 MB in total", () => {
    expect(workflow.attachments.max_total_bytes).toBe(MB12);
    expect(
      workflow.attachments.slots.map((s) => ({
        id: s.id,
        required: s.required,
        types: [...s.types],
        min: s.min_files,
        max: s.max_files,
        order: s.order,
      })),
    ).toEqual(slots);
    for (const slot of workflow.attachments.slots) expect(slot.max_file_bytes).toBe(MB12);
  });

  it("has no default on any field (nothing is inferred)", () => {
    expect(workflow.fields.filter((f) => f.default !== undefined)).toEqual([]);
  });

  it("marks every …_acknowledged and …_confirmed field as a declaration", () => {
    for (const field of workflow.fields.filter((f) => /_(acknowledged|confirmed)$/.test(f.id))) {
      expect(field.role).toBe("declaration");
    }
  });
});

describe("compliance policies", () => {
  it("mortgage and bank re-check their policy at the six stages; the court packet names none", () => {
    const stages = ["preview", "approval", "checkout", "payment", "fulfillment", "machine"];
    expect([...builtin(MORTGAGE).compliance.stages]).toEqual(stages);
    expect([...builtin(BANK).compliance.stages]).toEqual(stages);
    expect(builtin(COURT).compliance).toEqual({ policy: null, stages: [] });
    expect(builtin(COURT).eligibility).toEqual([]);
  });
});

describe("BUILTIN_WORKFLOWS", () => {
  it("holds one workflow per JSON file in src/workflows, loaded in the same order", () => {
    const files = readdirSync(new URL("./workflows/", import.meta.url)).filter((f) => f.endsWith(".json"));
    expect(BUILTIN_WORKFLOWS.map((w) => `${w.slug}.json`).sort()).toEqual(files.sort());
    expect(Object.isFrozen(BUILTIN_WORKFLOWS)).toBe(true);
  });
});
