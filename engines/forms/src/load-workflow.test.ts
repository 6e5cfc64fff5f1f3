import { describe, expect, it } from "vitest";
import { FormsError } from "./errors.ts";
import type { FormIssue } from "./issues.ts";
import { loadWorkflow } from "./load-workflow.ts";
import { BANK, builtin, COURT, MORTGAGE } from "./test-support.ts";

/** A small, valid definition; each test breaks one thing in it. */
function minimal(): Record<string, unknown> & {
  fields: Record<string, unknown>[];
  eligibility: Record<string, unknown>[];
  attachments: { max_total_bytes: number; slots: Record<string, unknown>[] };
  packet: Record<string, unknown> & {
    titles: Record<string, unknown>[];
    sections: Record<string, unknown>[];
  };
  envelope: Record<string, unknown>;
  compliance: Record<string, unknown>;
} {
  return {
    slug: "test-letter",
    name: "Test letter",
    aliases: ["test-alias"],
    schema_version: 1,
    workflow_version: 3,
    purpose: "A letter for tests.",
    certified: "optional",
    recipient_mode: "user",
    envelope: {
      mailpiece_type: "letter",
      mail_class: "standard",
      double_sided: true,
      color: false,
      certified: false,
    },
    compliance: { policy: "test-scope", stages: ["preview", "payment"] },
    fields: [
      {
        id: "kind",
        type: "select",
        label: "Kind",
        required: true,
        role: "eligibility",
        choices: ["Good", "Bad — out"],
      },
      { id: "add_note", type: "checkbox", label: "Add a note", required: false },
      {
        id: "note",
        type: "textarea",
        label: "Note",
        required: "when_active",
        max_length: 100,
        visible_when: { "!!": [{ var: "add_note" }] },
      },
      { id: "signature", type: "signature", label: "Signature", required: true },
      { id: "facts_acknowledged", type: "checkbox", label: "Facts", required: true, role: "declaration" },
    ],
    attachments: {
      max_total_bytes: 1000,
      slots: [
        {
          id: "files",
          label: "Files",
          required: false,
          types: ["pdf"],
          min_files: 0,
          max_files: 2,
          max_file_bytes: 500,
          order: 1,
        },
      ],
    },
    eligibility: [
      {
        code: "out_of_scope_bad_kind",
        when: { "==": [{ var: "kind" }, "Bad — out"] },
        reason: "Not for bad kinds.",
      },
    ],
    packet: {
      kind: "letter",
      titles: [{ when: { "!!": [{ var: "add_note" }] }, text: "With note" }, { text: "Letter" }],
      sections: [{ heading: "Note", lines: ["{{note}}"], attachments: ["files"] }],
      closing: "Sincerely,",
      signature_field: "signature",
      footer: "Printed by Mailpiece.",
    },
  };
}

function issuesOf(definition: unknown): FormIssue[] {
  try {
    loadWorkflow(definition);
  } catch (error) {
    expect(FormsError.isInstance(error)).toBe(true);
    expect((error as FormsError).code).toBe("invalid_workflow");
    return [...(error as FormsError).issues];
  }
  throw new Error("the definition loaded");
}

function expectIssue(definition: unknown, path: string, code: string): void {
  expect(issuesOf(definition)).toContainEqual(expect.objectContaining({ path, code }));
}

describe("loadWorkflow", () => {
  it("loads the minimal definition, deeply frozen, as a copy", () => {
    const definition = minimal();
    const workflow = loadWorkflow(definition);
    expect(workflow.slug).toBe("test-letter");
    expect(Object.isFrozen(workflow)).toBe(true);
    expect(Object.isFrozen(workflow.fields[0]?.choices)).toBe(true);
    definition.name = "Changed";
    expect(workflow.name).toBe("Test letter");
  });

  it("loads the three built-in workflows", () => {
    expect([builtin(MORTGAGE), builtin(BANK), builtin(COURT)].map((w) => w.workflow_version)).toEqual([
      1, 1, 1,
    ]);
  });

  it("refuses what is not an object", () => {
    expectIssue(null, "", "invalid_type");
    expectIssue("a workflow", "", "invalid_type");
  });

  describe("the schema of the format (Ajv, with paths)", () => {
    it("a missing property", () => {
      const d = minimal();
      delete d.slug;
      expectIssue(d, "slug", "required");
    });
    it("an unknown property, deep in a field", () => {
      const d = minimal();
      d.fields[1] = { ...d.fields[1], colour: "red" };
      expectIssue(d, "fields[1].colour", "unknown_property");
    });
    it("an unknown field type", () => {
      const d = minimal();
      d.fields[1] = { ...d.fields[1], type: "radio" };
      expectIssue(d, "fields[1].type", "invalid_value");
    });
    it("a slug that is not kebab-case", () => {
      const d = minimal();
      d.slug = "Test Letter";
      expectIssue(d, "slug", "invalid_value");
    });
    it("a schema version this engine does not read", () => {
      const d = minimal();
      d.schema_version = 2;
      expectIssue(d, "schema_version", "invalid_value");
    });
    it("a visibility rule with an operator spec 2 does not allow", () => {
      const d = minimal();
      d.fields[2] = { ...d.fields[2], visible_when: { "!=": [{ var: "add_note" }, false] } };
      expectIssue(d, "fields[2].visible_when", "invalid_value");
    });
    it("a visibility rule combining conditions (and / or are not allowed)", () => {
      const d = minimal();
      d.fields[2] = {
        ...d.fields[2],
        visible_when: { or: [{ "!!": [{ var: "add_note" }] }, { "==": [{ var: "kind" }, "Good"] }] },
      };
      expectIssue(d, "fields[2].visible_when", "invalid_value");
    });
    it("a required value that is neither a boolean nor when_active", () => {
      const d = minimal();
      d.fields[1] = { ...d.fields[1], required: "yes" };
      expectIssue(d, "fields[1].required", "invalid_value");
    });
    it("a pattern that is not a regular expression", () => {
      const d = minimal();
      d.fields.push({ id: "code", type: "text", label: "Code", required: false, pattern: "([0-9]" });
      expectIssue(d, "fields[5].pattern", "invalid_value");
    });
    it("an eligibility code that does not start with out_of_scope_", () => {
      const d = minimal();
      d.eligibility[0] = { ...d.eligibility[0], code: "bad_kind" };
      expectIssue(d, "eligibility[0].code", "invalid_value");
    });
    it("an unknown attachment type", () => {
      const d = minimal();
      d.attachments.slots[0] = { ...d.attachments.slots[0], types: ["pdf", "docx"] };
      expectIssue(d, "attachments.slots[0].types[1]", "invalid_value");
    });
  });

  describe("the rules a schema cannot state", () => {
    it("duplicate field ids", () => {
      const d = minimal();
      d.fields.push({ id: "note", type: "text", label: "Again", required: false });
      expectIssue(d, "fields[5].id", "duplicate");
    });
    it("choices on a field that is not a select", () => {
      const d = minimal();
      d.fields[1] = { ...d.fields[1], choices: ["a"] };
      expectIssue(d, "fields[1].choices", "inconsistent");
    });
    it("a select without choices", () => {
      const d = minimal();
      d.fields.push({ id: "colour", type: "select", label: "Colour", required: false });
      expectIssue(d, "fields[5].choices", "required");
    });
    it("a choice listed twice", () => {
      const d = minimal();
      d.fields.push({
        id: "colour",
        type: "select",
        label: "Colour",
        required: false,
        choices: ["Red", "Red"],
      });
      expectIssue(d, "fields[5].choices", "duplicate");
    });
    it("min_length above max_length", () => {
      const d = minimal();
      d.fields[2] = { ...d.fields[2], min_length: 200 };
      expectIssue(d, "fields[2].min_length", "inconsistent");
    });
    it("a text class on a textarea", () => {
      const d = minimal();
      d.fields[2] = { ...d.fields[2], text_class: "email" };
      expectIssue(d, "fields[2].text_class", "inconsistent");
    });
    it("a pattern on a field that is not text, a class and a pattern together, a description without a pattern", () => {
      const textarea = minimal();
      textarea.fields[2] = { ...textarea.fields[2], pattern: "^x$" };
      expectIssue(textarea, "fields[2].pattern", "inconsistent");
      const both = minimal();
      both.fields.push({
        id: "code",
        type: "text",
        label: "Code",
        required: false,
        text_class: "phone",
        pattern: "^1$",
      });
      expectIssue(both, "fields[5].pattern", "inconsistent");
      const described = minimal();
      described.fields.push({
        id: "code",
        type: "text",
        label: "Code",
        required: false,
        pattern_description: "a code",
      });
      expectIssue(described, "fields[5].pattern_description", "inconsistent");
    });
    it("length bounds on a field that is not text", () => {
      const d = minimal();
      d.fields[1] = { ...d.fields[1], max_length: 5 };
      expectIssue(d, "fields[1].max_length", "inconsistent");
    });
    it("not_in_future on a field that is not a date", () => {
      const d = minimal();
      d.fields[2] = { ...d.fields[2], not_in_future: true };
      expectIssue(d, "fields[2].not_in_future", "inconsistent");
    });
    it("not_in_past on a field that is not a date", () => {
      const d = minimal();
      d.fields[2] = { ...d.fields[2], not_in_past: true };
      expectIssue(d, "fields[2].not_in_past", "inconsistent");
    });
    it("a visibility rule reading an unknown field", () => {
      const d = minimal();
      d.fields[2] = { ...d.fields[2], visible_when: { "!!": [{ var: "add_notes" }] } };
      expectIssue(d, "fields[2].visible_when", "unknown_reference");
    });
    it("a visibility rule reading a field declared after it", () => {
      const d = minimal();
      d.fields[2] = { ...d.fields[2], visible_when: { "!!": [{ var: "facts_acknowledged" }] } };
      expectIssue(d, "fields[2].visible_when", "unknown_reference");
    });
    it("an equals rule comparing with text that is not exactly a choice", () => {
      const d = minimal();
      d.fields.push({
        id: "why",
        type: "text",
        label: "Why",
        required: "when_active",
        visible_when: { "==": [{ var: "kind" }, "Bad - out"] },
      });
      expectIssue(d, "fields[5].visible_when", "unknown_reference");
    });
    it("a truthy rule reading a select", () => {
      const d = minimal();
      d.fields[2] = { ...d.fields[2], visible_when: { "!!": [{ var: "kind" }] } };
      expectIssue(d, "fields[2].visible_when", "inconsistent");
    });
    it("when_active without a visibility rule", () => {
      const d = minimal();
      d.fields[1] = { ...d.fields[1], required: "when_active" };
      expectIssue(d, "fields[1].required", "inconsistent");
    });
    it("required true with a visibility rule", () => {
      const d = minimal();
      d.fields[2] = { ...d.fields[2], required: true };
      expectIssue(d, "fields[2].required", "inconsistent");
    });
    it("a default on a declaration, an eligibility answer or a signature", () => {
      const declaration = minimal();
      declaration.fields[4] = { ...declaration.fields[4], default: true };
      expectIssue(declaration, "fields[4].default", "inconsistent");
      const eligibility = minimal();
      eligibility.fields[0] = { ...eligibility.fields[0], default: "Good" };
      expectIssue(eligibility, "fields[0].default", "inconsistent");
      const signature = minimal();
      signature.fields[3] = { ...signature.fields[3], default: "Jane" };
      expectIssue(signature, "fields[3].default", "inconsistent");
      const consent = minimal();
      consent.fields.push({
        id: "marketing",
        type: "checkbox",
        label: "OK",
        required: false,
        role: "consent",
        default: true,
      });
      expectIssue(consent, "fields[5].default", "inconsistent");
    });
    it("a default that is not a valid answer", () => {
      const d = minimal();
      d.fields.push({
        id: "colour",
        type: "select",
        label: "Colour",
        required: false,
        choices: ["Red"],
        default: "Blue",
      });
      expectIssue(d, "fields[5].default", "invalid_value");
    });
    it("a field named as a declaration (…_acknowledged, …_confirmed) with another role", () => {
      const d = minimal();
      d.fields[4] = { ...d.fields[4], role: "fact" };
      expectIssue(d, "fields[4].role", "inconsistent");
      const confirmed = minimal();
      confirmed.fields.push({ id: "address_confirmed", type: "checkbox", label: "OK", required: true });
      expectIssue(confirmed, "fields[5].role", "inconsistent");
    });
    it("an eligibility rule reading a field that is not an eligibility answer", () => {
      const d = minimal();
      d.fields[0] = { ...d.fields[0], role: "fact" };
      expectIssue(d, "eligibility[0].when", "inconsistent");
    });
    it("an eligibility rule reading an optional answer", () => {
      const d = minimal();
      d.fields[0] = { ...d.fields[0], required: false };
      expectIssue(d, "eligibility[0].when", "inconsistent");
    });
    it("two eligibility rules with the same code", () => {
      const d = minimal();
      d.fields[0] = { ...d.fields[0], choices: ["Good", "Bad — out", "Worse"] };
      d.eligibility.push({
        code: "out_of_scope_bad_kind",
        when: { "==": [{ var: "kind" }, "Worse"] },
        reason: "No.",
      });
      expectIssue(d, "eligibility[1].code", "duplicate");
    });
    it("eligibility rules without a compliance policy", () => {
      const d = minimal();
      d.compliance = { policy: null, stages: [] };
      expectIssue(d, "compliance.policy", "inconsistent");
    });
    it("a compliance policy without stages", () => {
      const d = minimal();
      d.compliance = { policy: "test-scope", stages: [] };
      expectIssue(d, "compliance.stages", "inconsistent");
    });
    it("Certified Mail required but the envelope defaults to certified false", () => {
      const d = minimal();
      d.certified = "required";
      expectIssue(d, "envelope.certified", "inconsistent");
    });
    it("an alias that repeats the slug", () => {
      const d = minimal();
      d.aliases = ["test-letter"];
      expectIssue(d, "aliases", "duplicate");
    });
    it("a required slot that takes zero files, and min_files above max_files", () => {
      const required = minimal();
      required.attachments.slots[0] = { ...required.attachments.slots[0], required: true };
      expectIssue(required, "attachments.slots[0].min_files", "inconsistent");
      const bounds = minimal();
      bounds.attachments.slots[0] = { ...bounds.attachments.slots[0], min_files: 3, required: true };
      expectIssue(bounds, "attachments.slots[0].min_files", "inconsistent");
    });
    it("a per-file limit above the total limit", () => {
      const d = minimal();
      d.attachments.slots[0] = { ...d.attachments.slots[0], max_file_bytes: 2000 };
      expectIssue(d, "attachments.slots[0].max_file_bytes", "inconsistent");
    });
    it("two slots with the same id or print order", () => {
      const d = minimal();
      d.attachments.slots.push({ ...d.attachments.slots[0] });
      expectIssue(d, "attachments.slots[1].id", "duplicate");
      expectIssue(d, "attachments.slots[1].order", "duplicate");
    });
    it("a packet placeholder naming an unknown field", () => {
      const d = minimal();
      d.packet.sections[0] = { lines: ["{{notes}}"] };
      expectIssue(d, "packet.sections[0].lines[0]", "unknown_reference");
    });
    it("a packet listing an unknown slot", () => {
      const d = minimal();
      d.packet.sections[0] = { lines: [], attachments: ["records"] };
      expectIssue(d, "packet.sections[0].attachments[0]", "unknown_reference");
    });
    it("a packet signature field that is not a signature", () => {
      const d = minimal();
      d.packet.signature_field = "note";
      expectIssue(d, "packet.signature_field", "unknown_reference");
    });
    it("a packet whose last title has a rule (no fallback)", () => {
      const d = minimal();
      d.packet.titles = [{ when: { "!!": [{ var: "add_note" }] }, text: "With note" }];
      expectIssue(d, "packet.titles[0].when", "inconsistent");
    });
    it("a footer with placeholders", () => {
      const d = minimal();
      d.packet.footer = "Sent by {{note}}";
      expectIssue(d, "packet.footer", "invalid_value");
    });
  });

  it("reports every problem at once, each with its path", () => {
    const d = minimal();
    d.fields.push({ id: "note", type: "text", label: "Again", required: false });
    d.packet.signature_field = "note";
    const issues = issuesOf(d);
    expect(issues.map((i) => i.path)).toEqual(
      expect.arrayContaining(["fields[5].id", "packet.signature_field"]),
    );
  });
});
