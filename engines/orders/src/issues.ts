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

/**
 * The keys and indexes of a path that `joinPath` built: `form.attachments[0]["a.b"]` is
 * `["form", "attachments", 0, "a.b"]`. The inverse of joinPath, so a surface can rename or re-root a path (under a
 * tool's argument, as a JSONPath) without splitting a quoted key at its dots.
 */
export function pathSegments(path: string): Array<string | number> {
  const segments: Array<string | number> = [];
  let i = 0;
  while (i < path.length) {
    if (path[i] === "[" && path[i + 1] === '"') {
      let end = i + 2;
      while (end < path.length && path[end] !== '"') end += path[end] === "\\" ? 2 : 1;
      try {
        segments.push(JSON.parse(path.slice(i + 1, end + 1)) as string);
        i = end + 2;
        continue;
      } catch {
        // Not a quoted key after all: the rest is one name.
        segments.push(path.slice(i));
        break;
      }
    }
    if (path[i] === "[") {
      const end = path.indexOf("]", i);
      const index = end < 0 ? Number.NaN : Number(path.slice(i + 1, end));
      if (Number.isInteger(index)) {
        segments.push(index);
        i = end + 1;
        continue;
      }
      segments.push(path.slice(i));
      break;
    }
    if (path[i] === ".") i++;
    let end = i;
    while (end < path.length && path[end] !== "." && path[end] !== "[") end++;
    segments.push(path.slice(i, end));
    i = end;
  }
  return segments;
}

/** A path from its keys and indexes, as joinPath writes it. */
export function formatPath(segments: ReadonlyArray<string | number>): string {
  return segments.reduce<string>((path, segment) => joinPath(path, segment), "");
}

/** How deep arguments of a tool call or a request body may nest: far beyond any real order, and far below the stack. */
export const MAX_JSON_DEPTH = 64;

/**
 * The path of the first value nested deeper than `maxDepth` objects and arrays in `value`, or undefined when none is.
 * Iterative, so that it answers for a value of any depth; check a request with it before anything recursive
 * (validation, hashing, copying) walks the value.
 */
export function tooDeepPath(value: unknown, maxDepth = MAX_JSON_DEPTH): string | undefined {
  const stack: Array<{ value: unknown; depth: number; path: Array<string | number> }> = [
    { value, depth: 0, path: [] },
  ];
  while (stack.length > 0) {
    const next = stack.pop()!;
    if (typeof next.value !== "object" || next.value === null) continue;
    if (next.depth >= maxDepth) return formatPath(next.path);
    const entries: Array<[string | number, unknown]> = Array.isArray(next.value)
      ? next.value.map((item, index): [number, unknown] => [index, item])
      : Object.entries(next.value);
    for (let i = entries.length - 1; i >= 0; i--) {
      const [key, child] = entries[i]!;
      stack.push({ value: child, depth: next.depth + 1, path: [...next.path, key] });
    }
  }
  return undefined;
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
