import type { Issue } from "@mailpiece/errors";

/**
 * Every code an order issue or warning can carry. The codes are a stable wire contract: clients branch on them,
 * so a code is never renamed or reused for another meaning. Messages are for people and may change.
 */
export const ISSUE_CODES = [
  // Shape of the request (JSON Schema).
  "unknown_property",
  "required",
  "invalid_type",
  "too_short",
  "too_long",
  "invalid_enum",
  "invalid_format",
  "out_of_range",
  // Document source.
  "document_source_required",
  "document_source_conflict",
  "format_requires_letter",
  "format_conflict",
  "invalid_pdf_source",
  "pdf_url_not_https",
  "invalid_data_url",
  "invalid_base64",
  "pdf_too_large",
  "attachments_too_large",
  "attachment_content_mismatch",
  "form_not_postcard",
  "signature_text_required",
  "signature_image_required",
  // Sender and recipient.
  "address_strategy_conflict",
  "invalid_address_id",
  "address_country_not_allowed",
  "state_required",
  "invalid_state",
  "invalid_postal_code",
  "country_code_required",
  "character_unsupported",
  // Mail options.
  "requires_certified",
  "requires_certified_return_receipt",
  "err_email_physical_conflict",
  "mail_class_certified_conflict",
  "restricted_delivery_unavailable",
  // Postcards.
  "postcard_size_required",
  "postcard_size_requires_postcard",
  "postcard_requires_pdf",
  // Bulk campaigns.
  "bulk_field_conflict",
  "bulk_content_required",
  "bulk_content_conflict",
  "template_unknown_placeholder",
  "campaign_no_valid_rows",
  "campaign_too_many_rows",
  "csv_too_large",
  "csv_missing_column",
  "csv_duplicate_column",
  "invalid_csv_row",
  // Warnings: the order is accepted, but something the client sent was changed or has no effect.
  "option_normalised",
  "option_ignored",
  "err_email_unused",
  "campaign_rows_invalid",
] as const;

export type IssueCode = (typeof ISSUE_CODES)[number];

/** Codes that only ever appear in `warnings` of an accepted order, never in `issues`. */
export const WARNING_CODES: readonly IssueCode[] = [
  "option_normalised",
  "option_ignored",
  "err_email_unused",
  "campaign_rows_invalid",
];

/**
 * One problem with a request, or one warning about an accepted request (the `Issue` of `@mailpiece/errors`).
 * `path` is the dotted JSON path of the field ("recipient_address_manual.state", "form.attachments[0].base64"),
 * "" for the body itself. `code` is one of ISSUE_CODES here; other layers add their own codes.
 */
export type { Issue };

/** True when `code` is one of the codes this package emits. */
export function isIssueCode(code: string): code is IssueCode {
  return (ISSUE_CODES as readonly string[]).includes(code);
}

const PLAIN_KEY = /^[A-Za-z_$][A-Za-z0-9_$-]*$/;

/**
 * Appends an object key or an array index to a dotted path: `joinPath("form", "attachments")` is
 * "form.attachments", `joinPath("form.attachments", 0)` is "form.attachments[0]". Keys that are not plain
 * identifiers are quoted: `joinPath("", "a.b")` is `["a.b"]`, so a path never becomes ambiguous.
 */
export function joinPath(base: string, key: string | number): string {
  if (typeof key === "number") return `${base}[${key}]`;
  if (PLAIN_KEY.test(key)) return base === "" ? key : `${base}.${key}`;
  return `${base}[${JSON.stringify(key)}]`;
}

/** Collects issues in the order they are found, dropping exact repeats of the same code at the same path. */
export class IssueList {
  readonly items: Issue[] = [];

  add(path: string, code: IssueCode, message: string): void {
    if (this.items.some((i) => i.path === path && i.code === code)) return;
    this.items.push({ path, code, message });
  }

  get length(): number {
    return this.items.length;
  }
}
