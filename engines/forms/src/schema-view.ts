import type { ComplianceStage, FieldRole, FieldType, Rule, TextClass } from "./definition-schema.ts";
import { ruleParts } from "./rules.ts";
import type { DeepReadonly, Workflow } from "./workflow.ts";
import { fieldRole, maxLength } from "./workflow.ts";

export interface SchemaField {
  id: string;
  type: FieldType;
  label: string;
  help?: string;
  /** true, false, or "when_active": required while the field is visible. */
  required: boolean | "when_active";
  role: FieldRole;
  text_class?: TextClass;
  min_length?: number;
  max_length?: number;
  pattern?: string;
  pattern_description?: string;
  choices?: string[];
  visible_when?: DeepReadonly<Rule>;
  not_in_future?: boolean;
  not_in_past?: boolean;
  default?: string | boolean;
  /** The parts of an address or signature answer. */
  subfields?: string[];
}

/** A field shown only when another field has a value: the visibility rules, field by field. */
export interface SchemaDependency {
  field: string;
  depends_on: string;
  operator: "truthy" | "equals";
  value?: string;
  visible_when: DeepReadonly<Rule>;
}

export interface SchemaAttachmentSlot {
  id: string;
  label: string;
  help?: string;
  required: boolean;
  types: string[];
  min_files: number;
  max_files: number;
  max_file_bytes: number;
  max_file_size_mb: number;
  order: number;
}

/** What GET /api/machine/forms/{slug}/schema returns for a workflow. */
export interface WorkflowSchemaView {
  slug: string;
  name: string;
  aliases: string[];
  purpose: string;
  schema_version: number;
  workflow_version: number;
  versions: { schema_version: number; workflow_version: number };
  certified: "required" | "optional";
  certified_required: boolean;
  checkout_flow?: "home" | "forms_order";
  recipient_mode: "user";
  envelope: Workflow["envelope"];
  fields: SchemaField[];
  dependencies: SchemaDependency[];
  attachments: SchemaAttachmentSlot[];
  attachments_max_total_bytes: number;
  attachments_max_total_size_mb: number;
  eligibility: { code: string; field: string; when: DeepReadonly<Rule>; reason: string }[];
  compliance: { policy: string | null; stages: ComplianceStage[] };
}

const MB = 1024 * 1024;

/** The live schema of a workflow: fields, visibility rules, validation bounds, attachments, eligibility rules. */
export function workflowSchema(workflow: Workflow): WorkflowSchemaView {
  return {
    slug: workflow.slug,
    name: workflow.name,
    aliases: [...workflow.aliases],
    purpose: workflow.purpose,
    schema_version: workflow.schema_version,
    workflow_version: workflow.workflow_version,
    versions: { schema_version: workflow.schema_version, workflow_version: workflow.workflow_version },
    certified: workflow.certified,
    certified_required: workflow.certified === "required",
    ...(workflow.checkout_flow === undefined ? {} : { checkout_flow: workflow.checkout_flow }),
    recipient_mode: workflow.recipient_mode,
    envelope: { ...workflow.envelope },
    fields: workflow.fields.map((field) => ({
      id: field.id,
      type: field.type,
      label: field.label,
      ...(field.help === undefined ? {} : { help: field.help }),
      required: field.required,
      role: fieldRole(field),
      ...(field.text_class === undefined ? {} : { text_class: field.text_class }),
      ...(field.min_length === undefined ? {} : { min_length: field.min_length }),
      ...(field.type === "text" || field.type === "textarea" ? { max_length: maxLength(field) } : {}),
      ...(field.pattern === undefined ? {} : { pattern: field.pattern }),
      ...(field.pattern_description === undefined ? {} : { pattern_description: field.pattern_description }),
      ...(field.choices === undefined ? {} : { choices: [...field.choices] }),
      ...(field.visible_when === undefined ? {} : { visible_when: field.visible_when }),
      ...(field.not_in_future === undefined ? {} : { not_in_future: field.not_in_future }),
      ...(field.not_in_past === undefined ? {} : { not_in_past: field.not_in_past }),
      ...(field.default === undefined ? {} : { default: field.default }),
      ...(field.type === "address"
        ? { subfields: ["line1", "line2", "city", "state", "zip", "countryCode"] }
        : {}),
      ...(field.type === "signature" ? { subfields: ["mode", "text", "dataUrl", "printDataUrl"] } : {}),
    })),
    dependencies: workflow.fields.flatMap((field) => {
      if (field.visible_when === undefined) return [];
      const parts = ruleParts(field.visible_when);
      return [
        {
          field: field.id,
          depends_on: parts.field,
          operator: parts.operator,
          ...(parts.operator === "equals" ? { value: parts.value } : {}),
          visible_when: field.visible_when,
        },
      ];
    }),
    attachments: [...workflow.attachments.slots]
      .sort((a, b) => a.order - b.order)
      .map((slot) => ({
        id: slot.id,
        label: slot.label,
        ...(slot.help === undefined ? {} : { help: slot.help }),
        required: slot.required,
        types: [...slot.types],
        min_files: slot.min_files,
        max_files: slot.max_files,
        max_file_bytes: slot.max_file_bytes,
        max_file_size_mb: slot.max_file_bytes / MB,
        order: slot.order,
      })),
    attachments_max_total_bytes: workflow.attachments.max_total_bytes,
    attachments_max_total_size_mb: workflow.attachments.max_total_bytes / MB,
    eligibility: workflow.eligibility.map((rule) => ({
      code: rule.code,
      field: ruleParts(rule.when).field,
      when: rule.when,
      reason: rule.reason,
    })),
    compliance: { policy: workflow.compliance.policy, stages: [...workflow.compliance.stages] },
  };
}
