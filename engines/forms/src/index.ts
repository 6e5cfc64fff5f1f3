export type { AddressAnswer } from "./address.ts";
export { ADDRESS_COUNTRIES } from "./address.ts";
export type { CheckedAttachment, FormAttachmentInput } from "./attachments.ts";
export { BUILTIN_WORKFLOWS } from "./builtin-workflows.ts";
export type { WorkflowQuery, WorkflowSummary } from "./catalog.ts";
export { DEFAULT_PAGE_SIZE, findWorkflow, listWorkflows, MAX_PAGE_SIZE } from "./catalog.ts";
export { checkCertified, requiresCertified } from "./certified.ts";
export type { Clock } from "./dates.ts";
export type {
  AttachmentSlot,
  AttachmentType,
  ComplianceStage,
  EligibilityRule,
  FieldDefinition,
  FieldRole,
  FieldType,
  PacketSection,
  PacketTemplate,
  Rule,
  TextClass,
} from "./definition-schema.ts";
export { COMPLIANCE_STAGES, WorkflowDefinition } from "./definition-schema.ts";
export type { FormsErrorCode } from "./errors.ts";
export { FormsError } from "./errors.ts";
export type { EvaluateOptions, FormEvaluation, FormInput } from "./evaluate-form.ts";
export { evaluateForm } from "./evaluate-form.ts";
export type { AnswerValue } from "./field-answer.ts";
export type { FormIssue, FormIssueCode } from "./issues.ts";
export { FORM_ISSUE_CODES, FORM_WARNING_CODES } from "./issues.ts";
export { loadWorkflow } from "./load-workflow.ts";
export type {
  SchemaAttachmentSlot,
  SchemaDependency,
  SchemaField,
  WorkflowSchemaView,
} from "./schema-view.ts";
export { workflowSchema } from "./schema-view.ts";
export type { SignatureAnswer } from "./signature.ts";
export { MAX_SIGNATURE_IMAGE_BYTES, MAX_SIGNATURE_TEXT_CHARS } from "./signature.ts";
export type { DeepReadonly, Workflow, WorkflowField, WorkflowSlot } from "./workflow.ts";
export { DEFAULT_TEXT_MAX_CHARS, DEFAULT_TEXTAREA_MAX_CHARS } from "./workflow.ts";
