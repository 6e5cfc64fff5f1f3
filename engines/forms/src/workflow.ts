import type {
  AttachmentSlot,
  EligibilityRule,
  FieldDefinition,
  FieldRole,
  WorkflowDefinition,
} from "./definition-schema.ts";

/** Deeply read-only: a loaded workflow is frozen and never changes. */
export type DeepReadonly<T> = T extends object ? { readonly [K in keyof T]: DeepReadonly<T[K]> } : T;

declare const LOADED: unique symbol;

/**
 * A workflow definition that passed `loadWorkflow`: every rule, reference and bound checked, deeply frozen.
 * Only `loadWorkflow` makes one (the brand is a type, not a runtime value).
 */
export type Workflow = DeepReadonly<WorkflowDefinition> & { readonly [LOADED]: true };

export type WorkflowField = DeepReadonly<FieldDefinition>;
export type WorkflowSlot = DeepReadonly<AttachmentSlot>;
export type WorkflowEligibilityRule = DeepReadonly<EligibilityRule>;

/** The role of a field, defaulting to "fact". */
export function fieldRole(field: WorkflowField): FieldRole {
  return field.role ?? "fact";
}

/** Chosen: the most characters of a text field whose definition states no maximum. */
export const DEFAULT_TEXT_MAX_CHARS = 1_000;
/** The most characters of a textarea field whose definition states no maximum (a letter body's limit). */
export const DEFAULT_TEXTAREA_MAX_CHARS = 20_000;

/** The effective maximum length of a text or textarea field. */
export function maxLength(field: WorkflowField): number {
  return (
    field.max_length ?? (field.type === "textarea" ? DEFAULT_TEXTAREA_MAX_CHARS : DEFAULT_TEXT_MAX_CHARS)
  );
}

/** True when the workflow has a date field checked against today. */
export function needsToday(workflow: Workflow): boolean {
  return workflow.fields.some((field) => field.not_in_future === true || field.not_in_past === true);
}
