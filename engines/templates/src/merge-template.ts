import type { Issue } from "@mailpiece/errors";
import { charCount, joinPath, type LetterFormat, type ProjectsParse } from "@mailpiece/orders";
import { escapeValue } from "./escape-value.ts";
import { isRecord } from "./is-record.ts";
import { TEMPLATE_LIMITS } from "./limits.ts";
import { scanBody } from "./placeholders.ts";
import { requireVersion, type TemplateVersion } from "./template-version.ts";

/** A merged template: a letter body and its format, as a letter order takes them, and the version it came from. */
export interface MergedLetter {
  body: string;
  format: LetterFormat;
  /** The template version merged. */
  version: number;
}

/**
 * Merges a template version with the values of its variables (`variables` of a send or draft request, path
 * `variables`) into a letter body. Every problem is reported, each at `variables.<name>`:
 * - `values` must be an object of strings (at most 1,000 characters: `too_long`) and finite numbers (printed in
 *   their shortest form, 42 or 3.5; one that would print with an exponent, beyond 1e21 or below 1e-6, is
 *   `invalid_type`: send it as a string); anything else is `invalid_type`;
 * - a name the template does not declare is `variable_unknown`;
 * - a required variable without a value, or with a blank one, is `variable_missing`: a placeholder is never left
 *   blank; an optional one takes its default, else prints nothing;
 * - the merged body may be at most 20,000 characters, as a letter (`merged_letter_too_long`, at `variables`).
 * Values are escaped for the format (`escapeValue`), so a value prints as written and never adds markup; the body is
 * scanned once and values are never scanned for placeholders. Never throws for bad values; throws TemplatesError
 * (`template_version_invalid`) when `version` is not a template version.
 */
export function mergeTemplate(version: TemplateVersion, values: unknown): ProjectsParse<MergedLetter> {
  requireVersion(version);
  const issues: Issue[] = [];
  const given = new Map<string, string>();
  const declared = new Map(version.variables.map((variable) => [variable.name, variable]));

  if (values !== undefined && !isRecord(values)) {
    issues.push({
      path: "variables",
      code: "invalid_type",
      message: "variables must be an object of values by name.",
    });
  }
  for (const [name, value] of Object.entries(isRecord(values) ? values : {})) {
    const at = joinPath("variables", name);
    if (!declared.has(name)) {
      const known = version.variables.map((variable) => variable.name);
      issues.push({
        path: at,
        code: "variable_unknown",
        message: `The template declares no variable ${JSON.stringify(name.slice(0, 64))}; ${known.length === 0 ? "it has none" : `its variables are ${known.join(", ")}`}.`,
      });
      continue;
    }
    const text = valueText(value);
    if (text === undefined) {
      issues.push({
        path: at,
        code: "invalid_type",
        message: `${name} must be a string or a number that prints without an exponent.`,
      });
    } else if (charCount(text) > TEMPLATE_LIMITS.value_chars) {
      issues.push({
        path: at,
        code: "too_long",
        message: `${name} must be at most ${TEMPLATE_LIMITS.value_chars} characters.`,
      });
    } else {
      given.set(name, text);
    }
  }

  for (const variable of version.variables) {
    const at = joinPath("variables", variable.name);
    if (issues.some((issue) => issue.path === at)) continue;
    const value = given.get(variable.name);
    if (value !== undefined && (value.trim() !== "" || !variable.required)) continue;
    if (value === undefined && !variable.required) continue;
    issues.push({
      path: at,
      code: "variable_missing",
      message:
        value === undefined
          ? `The template requires ${variable.name}; give it a value in variables.`
          : `The template requires ${variable.name}; its value must not be blank.`,
    });
  }
  if (issues.length > 0) return { ok: false, issues };

  let body = "";
  let length = 0;
  for (const part of scanBody(version.body, version.format).parts) {
    let piece: string;
    if ("text" in part) piece = part.text;
    else {
      const raw = given.get(part.variable) ?? declared.get(part.variable)?.default ?? "";
      piece = escapeValue(raw, version.format);
    }
    length += charCount(piece);
    if (length > TEMPLATE_LIMITS.merged_chars) {
      return {
        ok: false,
        issues: [
          {
            path: "variables",
            code: "merged_letter_too_long",
            message: `With these values the letter is longer than ${TEMPLATE_LIMITS.merged_chars} characters, the most a letter may have; shorten the values.`,
          },
        ],
      };
    }
    body += piece;
  }
  return { ok: true, value: { body, format: version.format, version: version.version } };
}

/** A value as it prints: a string as it is, a finite number in its shortest form without an exponent. */
function valueText(value: unknown): string | undefined {
  if (typeof value === "string") return value;
  if (typeof value !== "number" || !Number.isFinite(value)) return undefined;
  const text = String(value);
  return /e/i.test(text) ? undefined : text;
}
