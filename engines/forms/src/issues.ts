/**
 * Every code a form issue or warning can carry, besides the eligibility codes a workflow defines itself
 * (`out_of_scope_…`, see the workflow's `eligibility` rules) and the typesetter's codes carried by
 * FormsError("packet_unprintable"). The codes are a stable wire contract.
 */
export const FORM_ISSUE_CODES = [
  // Shape of the answers.
  "invalid_type",
  "unknown_field",
  "unknown_property",
  // Field rules.
  "required",
  "too_short",
  "too_long",
  "invalid_choice",
  "invalid_format",
  "invalid_date",
  "date_in_future",
  "date_in_past",
  "invalid_phone",
  "invalid_email",
  "invalid_currency",
  // Address fields.
  "state_required",
  "invalid_postal_code",
  "invalid_country",
  // Signature fields.
  "invalid_signature",
  "signature_image_too_large",
  // Attachments.
  "attachment_unknown_slot",
  "attachment_required",
  "attachment_too_many",
  "attachment_type_not_allowed",
  "attachment_content_mismatch",
  "attachment_too_large",
  "attachments_too_large",
  "invalid_base64",
  // Raised with FormsError("attachment_unreadable") by buildPacket, and by the order layer through checkCertified.
  "attachment_unreadable",
  "certified_required",
  // Warnings: the answers are accepted, but something sent has no effect.
  "hidden_field_ignored",
] as const;

export type FormIssueCode = (typeof FORM_ISSUE_CODES)[number];

/** Codes that only ever appear in `warnings`, never in `issues`. */
export const FORM_WARNING_CODES: readonly FormIssueCode[] = ["hidden_field_ignored"];

/**
 * One problem with the answers of a form, one eligibility refusal, or one warning.
 * `path` is the dotted path of the value in the order request: "form.fields.error_description",
 * "form.fields.sender_address.zip", "form.attachments[2]", "form.attachments" for a slot as a whole.
 * `code` is one of FORM_ISSUE_CODES or an eligibility code of the workflow (`out_of_scope_…`).
 */
export interface FormIssue {
  path: string;
  code: string;
  message: string;
}

const PLAIN_KEY = /^[A-Za-z_$][A-Za-z0-9_$-]*$/;

/**
 * Appends an object key or an array index to a dotted path: `joinPath("form", "fields")` is "form.fields",
 * `joinPath("form.attachments", 2)` is "form.attachments[2]". Keys that are not plain identifiers are quoted
 * (`form.fields["a.b"]`), so a path never becomes ambiguous.
 */
export function joinPath(base: string, key: string | number): string {
  if (typeof key === "number") return `${base}[${key}]`;
  if (PLAIN_KEY.test(key)) return base === "" ? key : `${base}.${key}`;
  return `${base}[${JSON.stringify(key)}]`;
}

/** The path of a field's answer in the order request. */
export function fieldPath(fieldId: string): string {
  return joinPath("form.fields", fieldId);
}
