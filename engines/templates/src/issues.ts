import type { Issue } from "@mailpiece/errors";

/**
 * The codes the templates engine reports, besides the shape codes of the JSON Schema check (`required`,
 * `invalid_type`, `too_short`, `too_long`, `invalid_enum`, `invalid_format`) and `unknown_field`, which it shares
 * with the other Projects API requests. A stable wire contract: a code is never renamed or reused.
 * - `placeholder_invalid`: `{{` that does not open a placeholder `{{name}}` (path `body`).
 * - `variable_undeclared`: the body uses a placeholder whose variable is not declared (path `body`).
 * - `variable_duplicate`: two variables of one template have the same name (path `variables[i].name`).
 * - `variable_default_conflict`: a variable is declared `required: true` with a `default` (path
 *   `variables[i].default`).
 * - `patch_empty`: a template update that names no field (path "").
 * - `variable_missing`: a merge without a value for a required variable, or with a blank one
 *   (path `variables.<name>`).
 * - `variable_unknown`: a merge with a value for a variable the template does not declare (path `variables.<name>`).
 * - `merged_letter_too_long`: the merged letter is longer than a letter may be (path `variables`).
 */
export const TEMPLATE_ISSUE_CODES = [
  "placeholder_invalid",
  "variable_undeclared",
  "variable_duplicate",
  "variable_default_conflict",
  "patch_empty",
  "variable_missing",
  "variable_unknown",
  "merged_letter_too_long",
] as const;

export type TemplateIssueCode = (typeof TEMPLATE_ISSUE_CODES)[number];

/** The schema's issues as the Projects API reports them: an unknown property is `unknown_field`. */
export function projectsShapeIssues(found: readonly Issue[]): Issue[] {
  return found.map((issue) =>
    issue.code === "unknown_property" ? { ...issue, code: "unknown_field" } : issue,
  );
}
