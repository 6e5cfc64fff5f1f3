import type { FieldDefinition, Rule, WorkflowDefinition } from "./definition-schema.ts";
import { COMPLIANCE_STAGES } from "./definition-schema.ts";
import { checkAnswer } from "./field-answer.ts";
import type { FormIssue } from "./issues.ts";
import { ruleParts } from "./rules.ts";
import type { WorkflowField } from "./workflow.ts";

/** Ids that name a statement the sender makes: they must be declarations (or consents). */
const DECLARATION_ID = /_(acknowledged|confirmed)$/;
const PLACEHOLDER = /\{\{\s*([a-z][a-z0-9_]*)\s*\}\}/g;

/**
 * The rules of the definition format that JSON Schema cannot state: unique ids, references between fields,
 * rules and slots, bounds in order, and the guarantee that eligibility answers, declarations, consents and
 * signatures have no default. Returns every problem with its path.
 */
export function checkDefinition(def: WorkflowDefinition): FormIssue[] {
  const issues: FormIssue[] = [];
  const add = (path: string, code: string, message: string) => issues.push({ path, code, message });
  const index = new Map<string, number>();
  def.fields.forEach((field, i) => {
    if (index.has(field.id)) add(`fields[${i}].id`, "duplicate", `The field id "${field.id}" is used twice.`);
    else index.set(field.id, i);
  });

  if (def.aliases.includes(def.slug)) add("aliases", "duplicate", "An alias repeats the slug.");

  for (const [i, field] of def.fields.entries()) checkField(field, i, def, index, add);

  // Eligibility rules: each reads one eligibility answer that is always asked and never defaulted.
  const codes = new Set<string>();
  const tests = new Set<string>();
  def.eligibility.forEach((rule, i) => {
    const path = `eligibility[${i}]`;
    if (codes.has(rule.code))
      add(`${path}.code`, "duplicate", `The eligibility code "${rule.code}" is used twice.`);
    codes.add(rule.code);
    const key = JSON.stringify(ruleParts(rule.when));
    if (tests.has(key)) add(`${path}.when`, "duplicate", "Another eligibility rule tests the same answer.");
    tests.add(key);
    const target = checkRuleReference(rule.when, `${path}.when`, def, index, def.fields.length, add);
    if (target === undefined) return;
    if (target.role !== "eligibility") {
      add(
        `${path}.when`,
        "inconsistent",
        `Eligibility rules read eligibility fields; "${target.id}" has role ${target.role ?? "fact"}.`,
      );
    }
    if (target.required !== true || target.visible_when !== undefined) {
      add(
        `${path}.when`,
        "inconsistent",
        `The eligibility field "${target.id}" must be required and always visible.`,
      );
    }
  });

  const { policy, stages } = def.compliance;
  if (policy === null && stages.length > 0) {
    add("compliance.stages", "inconsistent", "Stages are listed but no compliance policy is named.");
  }
  if (policy !== null && stages.length === 0) {
    add(
      "compliance.stages",
      "inconsistent",
      `The compliance policy must list the stages it is re-checked at: ${COMPLIANCE_STAGES.join(", ")}.`,
    );
  }
  if (def.eligibility.length > 0 && policy === null) {
    add(
      "compliance.policy",
      "inconsistent",
      "A workflow with eligibility rules names its compliance policy.",
    );
  }
  if (def.certified === "required" && !def.envelope.certified) {
    add(
      "envelope.certified",
      "inconsistent",
      "Certified Mail is required, so the envelope defaults to certified true.",
    );
  }

  checkSlots(def, add);
  checkPacket(def, index, add);
  return issues;
}

type Add = (path: string, code: string, message: string) => void;

function checkField(
  field: FieldDefinition,
  i: number,
  def: WorkflowDefinition,
  index: ReadonlyMap<string, number>,
  add: Add,
): void {
  const path = `fields[${i}]`;
  const role = field.role ?? "fact";
  const only = (key: keyof FieldDefinition, types: readonly string[]) => {
    if (field[key] !== undefined && !types.includes(field.type)) {
      add(`${path}.${key}`, "inconsistent", `${key} applies to ${types.join(" and ")} fields only.`);
    }
  };
  only("choices", ["select"]);
  only("text_class", ["text"]);
  only("min_length", ["text", "textarea"]);
  only("max_length", ["text", "textarea"]);
  only("pattern", ["text"]);
  only("pattern_description", ["text"]);
  only("not_in_future", ["date"]);
  only("not_in_past", ["date"]);
  if (field.type === "select") {
    if (field.choices === undefined) add(`${path}.choices`, "required", "A select field lists its choices.");
    else if (new Set(field.choices).size !== field.choices.length) {
      add(`${path}.choices`, "duplicate", "A choice is listed twice.");
    }
  }
  if (
    field.min_length !== undefined &&
    field.max_length !== undefined &&
    field.min_length > field.max_length
  ) {
    add(`${path}.min_length`, "inconsistent", "min_length is greater than max_length.");
  }
  if (field.pattern_description !== undefined && field.pattern === undefined) {
    add(
      `${path}.pattern_description`,
      "inconsistent",
      "pattern_description describes a pattern; none is given.",
    );
  }
  if (field.pattern !== undefined && field.text_class !== undefined) {
    add(`${path}.pattern`, "inconsistent", "A text field has a class or a pattern, not both.");
  }
  if (field.pattern !== undefined) {
    try {
      new RegExp(field.pattern, "u");
    } catch {
      add(
        `${path}.pattern`,
        "invalid_value",
        "The pattern is not a valid regular expression (Unicode mode).",
      );
    }
  }
  if (DECLARATION_ID.test(field.id) && role !== "declaration" && role !== "consent") {
    add(
      `${path}.role`,
      "inconsistent",
      `"${field.id}" is a statement of the sender: its role is declaration or consent.`,
    );
  }
  if (field.required === "when_active" && field.visible_when === undefined) {
    add(`${path}.required`, "inconsistent", '"when_active" needs a visibility rule (visible_when).');
  }
  if (field.required === true && field.visible_when !== undefined) {
    add(
      `${path}.required`,
      "inconsistent",
      'A field with a visibility rule is required "when_active", not always.',
    );
  }
  if (field.visible_when !== undefined) {
    checkRuleReference(field.visible_when, `${path}.visible_when`, def, index, i, add);
  }
  if (field.default !== undefined) {
    if (role !== "fact" || field.type === "signature" || field.type === "address") {
      add(
        `${path}.default`,
        "inconsistent",
        "Signatures, addresses, eligibility answers, declarations and consents are never taken from a default.",
      );
    } else {
      const check = checkAnswer(field as WorkflowField, field.default, `${path}.default`);
      if (check.status !== "valid") {
        add(`${path}.default`, "invalid_value", `The default is not a valid answer to "${field.id}".`);
      }
    }
  }
}

/**
 * Checks that a rule reads a known field declared before `before` (visibility reads earlier fields only, so
 * rules never form a cycle), that truthy reads a checkbox and that equals compares a select with one of its
 * choices, character for character. Returns the field read, when it exists.
 */
function checkRuleReference(
  rule: Rule,
  path: string,
  def: WorkflowDefinition,
  index: ReadonlyMap<string, number>,
  before: number,
  add: Add,
): FieldDefinition | undefined {
  const parts = ruleParts(rule);
  const at = index.get(parts.field);
  const target = at === undefined ? undefined : def.fields[at];
  if (at === undefined || target === undefined) {
    add(path, "unknown_reference", `The rule reads "${parts.field}", which is not a field of this workflow.`);
    return undefined;
  }
  if (at >= before) {
    add(
      path,
      "unknown_reference",
      `The rule reads "${parts.field}", which is not declared before this field.`,
    );
  }
  if (parts.operator === "truthy" && target.type !== "checkbox") {
    add(path, "inconsistent", `Truthy rules read checkboxes; "${parts.field}" is a ${target.type} field.`);
  }
  if (parts.operator === "equals") {
    if (target.type !== "select") {
      add(
        path,
        "inconsistent",
        `Equals rules read select fields; "${parts.field}" is a ${target.type} field.`,
      );
    } else if (!(target.choices ?? []).includes(parts.value)) {
      add(path, "unknown_reference", `"${parts.value}" is not a choice of "${parts.field}".`);
    }
  }
  return target;
}

function checkSlots(def: WorkflowDefinition, add: Add): void {
  const ids = new Set<string>();
  const orders = new Set<number>();
  def.attachments.slots.forEach((slot, i) => {
    const path = `attachments.slots[${i}]`;
    if (ids.has(slot.id)) add(`${path}.id`, "duplicate", `The slot id "${slot.id}" is used twice.`);
    ids.add(slot.id);
    if (orders.has(slot.order))
      add(`${path}.order`, "duplicate", `Another slot prints at order ${slot.order}.`);
    orders.add(slot.order);
    if (slot.required !== slot.min_files > 0) {
      add(
        `${path}.min_files`,
        "inconsistent",
        "A required slot takes at least one file; an optional one takes zero or more.",
      );
    }
    if (slot.min_files > slot.max_files)
      add(`${path}.min_files`, "inconsistent", "min_files is greater than max_files.");
    if (slot.max_file_bytes > def.attachments.max_total_bytes) {
      add(
        `${path}.max_file_bytes`,
        "inconsistent",
        "A file may not be larger than all attachments together.",
      );
    }
  });
}

function checkPacket(def: WorkflowDefinition, index: ReadonlyMap<string, number>, add: Add): void {
  const packet = def.packet;
  const fieldAt = (id: string) => {
    const at = index.get(id);
    return at === undefined ? undefined : def.fields[at];
  };
  const template = (text: string, path: string) => {
    for (const match of text.matchAll(PLACEHOLDER)) {
      const id = match[1] ?? "";
      const field = fieldAt(id);
      if (field === undefined) add(path, "unknown_reference", `{{${id}}} is not a field of this workflow.`);
      else if (field.type === "signature")
        add(path, "inconsistent", `{{${id}}} is a signature; it prints through signature_field.`);
    }
    const rest = text.replace(PLACEHOLDER, "");
    if (rest.includes("{{") || rest.includes("}}"))
      add(path, "invalid_value", "A placeholder is written {{field_id}}.");
  };
  const rule = (value: Rule | undefined, path: string) => {
    if (value !== undefined) checkRuleReference(value, path, def, index, def.fields.length, add);
  };
  packet.titles.forEach((title, i) => {
    rule(title.when, `packet.titles[${i}].when`);
    template(title.text, `packet.titles[${i}].text`);
  });
  const last = packet.titles[packet.titles.length - 1];
  if (last?.when !== undefined) {
    add(
      `packet.titles[${packet.titles.length - 1}].when`,
      "inconsistent",
      "The last title has no rule: it is the fallback.",
    );
  }
  packet.sections.forEach((section, i) => {
    rule(section.when, `packet.sections[${i}].when`);
    if (section.heading !== undefined) template(section.heading, `packet.sections[${i}].heading`);
    for (const [j, line] of section.lines.entries()) template(line, `packet.sections[${i}].lines[${j}]`);
    section.attachments?.forEach((slot, j) => {
      if (!def.attachments.slots.some((s) => s.id === slot)) {
        add(
          `packet.sections[${i}].attachments[${j}]`,
          "unknown_reference",
          `"${slot}" is not an attachment slot.`,
        );
      }
    });
  });
  if (packet.closing !== undefined) template(packet.closing, "packet.closing");
  if (/\{\{|\}\}/.test(packet.footer))
    add("packet.footer", "invalid_value", "The footer is fixed text, without placeholders.");
  if (packet.signature_field !== undefined) {
    const field = fieldAt(packet.signature_field);
    if (field?.type !== "signature") {
      add(
        "packet.signature_field",
        "unknown_reference",
        `"${packet.signature_field}" is not a signature field.`,
      );
    }
  }
}
