import { type Issue, type IssueCode, joinPath } from "./issues.ts";
import type { JsonObject } from "./json-access.ts";

/**
 * The codes only the Projects API requests (spec 3) raise, in addition to the ISSUE_CODES they share with the
 * machine API (required, invalid_type, too_short, too_long, invalid_enum, invalid_format, out_of_range, the option
 * dependencies and the manual address codes). A stable wire contract like ISSUE_CODES.
 * Spec 3 allows no silent change, so every case the machine API accepts with a warning is one of these here.
 */
export const PROJECTS_ISSUE_CODES = [
  "unknown_field",
  "destination_country_not_supported",
  "origin_country_not_supported",
  "proof_mail_not_available",
  "return_receipt_not_available",
  "signature_not_available",
  "err_email_requires_email_delivery",
  "option_not_available",
  "option_not_available_for_postcards",
  "name_too_long",
  "conflicting_alias",
  "invalid_metadata",
] as const;

export type ProjectsIssueCode = (typeof PROJECTS_ISSUE_CODES)[number];

/** The answer of every Projects API request parser: the parsed value, or every issue found. Never thrown. */
export type ProjectsParse<T> = { ok: true; value: T } | { ok: false; issues: Issue[] };

/** Collects issues in the order they are found, dropping repeats of the same code at the same path. */
export class ProjectsIssueList {
  readonly items: Issue[] = [];

  add(path: string, code: IssueCode | ProjectsIssueCode, message: string): void {
    if (this.items.some((i) => i.path === path && i.code === code)) return;
    this.items.push({ path, code, message });
  }

  /** True when some issue is already at `path`: a later rule does not report a field twice. */
  has(path: string): boolean {
    return this.items.some((i) => i.path === path);
  }

  get length(): number {
    return this.items.length;
  }
}

/**
 * Reports each own key of `object` that is not one of `known` as unknown_field at its path. Keys such as
 * "__proto__" or "constructor" are plain data here.
 */
export function checkUnknownFields(
  object: JsonObject,
  known: ReadonlySet<string>,
  path: string,
  what: string,
  issues: ProjectsIssueList,
): void {
  for (const key of Object.keys(object)) {
    if (known.has(key)) continue;
    const at = joinPath(path, key);
    issues.add(at, "unknown_field", `${describeKey(key)} is not a field of ${what}.`);
  }
}

/** A key as a message shows it: quoted, and cut after 40 characters so a hostile key cannot flood the message. */
export function describeKey(key: string): string {
  const shown = key.length > 40 ? `${key.slice(0, 40)}…` : key;
  return JSON.stringify(shown);
}
