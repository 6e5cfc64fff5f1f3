import type { CheckedAttachment, FormAttachmentInput } from "./attachments.ts";
import { checkAttachments } from "./attachments.ts";
import type { Clock } from "./dates.ts";
import { resolveToday } from "./dates.ts";
import type { ComplianceStage } from "./definition-schema.ts";
import { COMPLIANCE_STAGES } from "./definition-schema.ts";
import { FormsError } from "./errors.ts";
import type { AnswerValue } from "./field-answer.ts";
import { checkAnswer } from "./field-answer.ts";
import type { FormIssue } from "./issues.ts";
import { fieldPath } from "./issues.ts";
import { DEFAULT_PHONE_COUNTRY } from "./phone.ts";
import { ruleHolds, ruleParts } from "./rules.ts";
import { isRecord } from "./text.ts";
import type { Workflow } from "./workflow.ts";
import { fieldRole, needsToday } from "./workflow.ts";

/** The `form` of an order without its slug: answers keyed by field id, and inline attachments. */
export interface FormInput {
  fields: Record<string, unknown>;
  attachments?: FormAttachmentInput[];
}

export interface EvaluateOptions {
  /**
   * The stage the answers are checked at; every rule runs at every stage. Run it again at each stage with that
   * stage's clock: at "fulfillment" a date that must not be in the past (a deadline) is compared with the day
   * the order is fulfilled, so an order accepted at payment is refused once its deadline has passed.
   */
  stage: ComplianceStage;
  /** Today's date (YYYY-MM-DD) for dates compared with today (`not_in_future`, `not_in_past`). Wins over `clock`. */
  today?: string;
  /** Where "today" comes from when `today` is not given: the clock's date in UTC. */
  clock?: Clock;
}

export interface FormEvaluation {
  /** True when there is no issue: every rule holds and no answer is out of scope. */
  ok: boolean;
  stage: ComplianceStage;
  /** Ids of the fields their visibility rules show, in definition order. */
  active_fields: string[];
  /** The answers that count: active fields with valid answers (trimmed, normalised) or a fact field's default. */
  answers: Record<string, AnswerValue>;
  /** Every problem, eligibility refusals included, each with its path and code. */
  issues: FormIssue[];
  /** Accepted, but worth telling the sender: answers to hidden fields are ignored (`hidden_field_ignored`). */
  warnings: FormIssue[];
  eligibility: { eligible: boolean; refusals: FormIssue[] };
  /** The workflow requires Certified Mail: an order with `certified: false` is refused (`certified_required`). */
  certified_required: boolean;
  /** The workflow's compliance policy, and whether this stage is one its definition lists for re-checks. */
  compliance: { policy: string | null; stage_listed: boolean };
  /** The attachments that passed their checks, slot by slot in print order, in the sender's order within a slot. */
  attachments: CheckedAttachment[];
}

/**
 * Checks a form's answers against a workflow, from scratch, at any stage: the result depends only on the
 * workflow, the answers and today's date, so a later stage sees every change made since an earlier one.
 *
 * - A field is active unless its visibility rule hides it; rules read the valid answers of earlier active
 *   fields. Answers to hidden fields are ignored, never validated, and reported as `hidden_field_ignored`
 *   warnings.
 * - A required field (`true`, or `"when_active"`) must be answered while it is active (`required`). Undefined,
 *   null, empty and whitespace-only strings, unchecked boxes, blank addresses and blank signatures are not answers.
 * - Unanswered fact fields take their default, if they have one. Eligibility answers, declarations, consents and
 *   signatures have none (the loader refuses it), so they are never inferred.
 * - Unknown field ids are refused (`unknown_field`).
 * - Dates with `not_in_future` must be today or earlier (`date_in_future`), dates with `not_in_past` today or later
 *   (`date_in_past`), today being the stage's: a deadline that passes between payment and fulfillment refuses the
 *   order at fulfillment.
 * - Phone answers are read in the country of the nearest address answered before them (US without one) and kept
 *   in E.164.
 * - Eligibility rules run on every evaluation; an answer they match is refused with the rule's code
 *   (`out_of_scope_…`) and reason, in `eligibility.refusals` and in `issues`.
 *
 * Never throws for any answers. Throws FormsError("invalid_options") for an unknown stage, a malformed `today`
 * or `clock`, or when the workflow compares dates with today and neither `today` nor `clock` is given.
 */
export function evaluateForm(workflow: Workflow, input: FormInput, options: EvaluateOptions): FormEvaluation {
  const stage = checkStage(options);
  const today = resolveToday(options);
  if (today === undefined && needsToday(workflow)) {
    throw new FormsError(
      "invalid_options",
      `The workflow "${workflow.slug}" checks dates against today: pass options.today (YYYY-MM-DD) or options.clock.`,
    );
  }

  const issues: FormIssue[] = [];
  const warnings: FormIssue[] = [];
  const formInput: unknown = input;
  const rawFields = isRecord(formInput) ? formInput.fields : undefined;
  const fields: Record<string, unknown> = isRecord(rawFields) ? rawFields : {};
  if (!isRecord(formInput)) {
    issues.push({
      path: "form",
      code: "invalid_type",
      message: "form must be an object {fields, attachments?}.",
    });
  } else if (!isRecord(rawFields)) {
    issues.push({
      path: "form.fields",
      code: rawFields === undefined ? "required" : "invalid_type",
      message: "form.fields must be an object keyed by field id.",
    });
  }

  const known = new Set(workflow.fields.map((f) => f.id));
  for (const id of Object.keys(fields)) {
    if (!known.has(id)) {
      issues.push({
        path: fieldPath(id),
        code: "unknown_field",
        message: `"${id}" is not a field of ${workflow.slug}.`,
      });
    }
  }

  const active: string[] = [];
  const answers: Record<string, AnswerValue> = {};
  /** National phone numbers are read in the country of the nearest address answered before them. */
  let phoneCountry = DEFAULT_PHONE_COUNTRY;
  /** What rules see: every field id, with its valid answer while active, else null. */
  const ruleData: Record<string, unknown> = Object.fromEntries(workflow.fields.map((f) => [f.id, null]));
  for (const field of workflow.fields) {
    const path = fieldPath(field.id);
    const raw = Object.hasOwn(fields, field.id) ? fields[field.id] : undefined;
    const shown = field.visible_when === undefined || ruleHolds(field.visible_when, ruleData);
    if (!shown) {
      if (isPresent(raw)) {
        warnings.push({
          path,
          code: "hidden_field_ignored",
          message: `${field.id} is hidden by its visibility rule, so its answer is ignored.`,
        });
      }
      continue;
    }
    active.push(field.id);
    const context = { ...(today === undefined ? {} : { today }), phoneCountry };
    let check = checkAnswer(field, raw, path, context);
    if (check.status === "absent" && field.default !== undefined && fieldRole(field) === "fact") {
      check = checkAnswer(field, field.default, path, context);
    }
    if (check.status === "invalid") issues.push(...check.issues);
    else if (check.status === "valid") {
      answers[field.id] = check.value;
      ruleData[field.id] = check.value;
      if (field.type === "address" && typeof check.value === "object" && "countryCode" in check.value) {
        phoneCountry = check.value.countryCode;
      }
    } else if (field.required !== false) {
      issues.push({ path, code: "required", message: `${field.id} (${field.label}) is required.` });
    }
  }

  const attachmentCheck = checkAttachments(workflow, isRecord(formInput) ? formInput.attachments : undefined);
  issues.push(...attachmentCheck.issues);

  const refusals: FormIssue[] = [];
  for (const rule of workflow.eligibility) {
    if (ruleHolds(rule.when, ruleData)) {
      refusals.push({ path: fieldPath(ruleParts(rule.when).field), code: rule.code, message: rule.reason });
    }
  }
  issues.push(...refusals);

  const slotOrder = new Map(workflow.attachments.slots.map((slot) => [slot.id, slot.order]));
  const attachments = [...attachmentCheck.files].sort(
    (a, b) => (slotOrder.get(a.slot) ?? 0) - (slotOrder.get(b.slot) ?? 0) || a.index - b.index,
  );

  return {
    ok: issues.length === 0,
    stage,
    active_fields: active,
    answers,
    issues,
    warnings,
    eligibility: { eligible: refusals.length === 0, refusals },
    certified_required: workflow.certified === "required",
    compliance: {
      policy: workflow.compliance.policy,
      stage_listed: workflow.compliance.stages.includes(stage),
    },
    attachments,
  };
}

function checkStage(options: unknown): ComplianceStage {
  const stage = isRecord(options) ? options.stage : undefined;
  if (typeof stage !== "string" || !(COMPLIANCE_STAGES as readonly string[]).includes(stage)) {
    throw new FormsError("invalid_options", `options.stage must be one of: ${COMPLIANCE_STAGES.join(", ")}.`);
  }
  return stage as ComplianceStage;
}

/** True when a raw value would be an answer if the field were shown (for the hidden-field warning). */
function isPresent(raw: unknown): boolean {
  if (raw === undefined || raw === null || raw === false) return false;
  if (typeof raw === "string") return raw.trim() !== "";
  return true;
}
