import type { ErrorObject } from "ajv";
import type { FormIssue } from "./issues.ts";
import { joinPath } from "./issues.ts";

/**
 * Turns Ajv errors over a workflow definition into issues with dotted paths ("fields[3].choices[1]").
 * A failed union (anyOf) is reported once, at the union, with the union's description, instead of once per branch.
 */
export function definitionSchemaIssues(errors: readonly ErrorObject[]): FormIssue[] {
  const unions = errors
    .filter((e) => e.keyword === "anyOf")
    .sort((a, b) => a.schemaPath.length - b.schemaPath.length);
  const kept: ErrorObject[] = [];
  const covered: string[] = [];
  for (const union of unions) {
    if (covered.some((prefix) => union.schemaPath.startsWith(prefix))) continue;
    covered.push(`${union.schemaPath}/`);
    kept.push(union);
  }
  for (const error of errors) {
    if (error.keyword === "anyOf") continue;
    if (covered.some((prefix) => error.schemaPath.startsWith(prefix))) continue;
    kept.push(error);
  }
  const issues: FormIssue[] = [];
  for (const error of kept) {
    const issue = toIssue(error);
    if (!issues.some((i) => i.path === issue.path && i.code === issue.code)) issues.push(issue);
  }
  return issues;
}

/** "/fields/3/choices/1" as "fields[3].choices[1]". */
export function pointerToPath(pointer: string): string {
  if (pointer === "") return "";
  return pointer
    .slice(1)
    .split("/")
    .map((segment) => segment.replace(/~1/g, "/").replace(/~0/g, "~"))
    .reduce<string>(
      (path, segment) => (/^\d+$/.test(segment) ? joinPath(path, Number(segment)) : joinPath(path, segment)),
      "",
    );
}

function toIssue(error: ErrorObject): FormIssue {
  const path = pointerToPath(error.instancePath);
  const at = path === "" ? "the definition" : path;
  const params = error.params as Record<string, unknown>;
  const parent = error.parentSchema as { description?: unknown } | undefined;
  switch (error.keyword) {
    case "required": {
      const name = String(params.missingProperty);
      return {
        path: joinPath(path, name),
        code: "required",
        message: `${joinPath(path, name)} is required.`,
      };
    }
    case "additionalProperties": {
      const name = String(params.additionalProperty);
      return {
        path: joinPath(path, name),
        code: "unknown_property",
        message: `${joinPath(path, name)} is not a property of the workflow definition format.`,
      };
    }
    case "type":
      return { path, code: "invalid_type", message: `${at} must be ${String(params.type)}.` };
    case "enum":
      return {
        path,
        code: "invalid_value",
        message: `${at} must be one of: ${(params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(", ")}.`,
      };
    case "const":
      return {
        path,
        code: "invalid_value",
        message: `${at} must be ${JSON.stringify(params.allowedValue)}.`,
      };
    case "anyOf":
      return {
        path,
        code: "invalid_value",
        message: `${at} does not have an allowed form${typeof parent?.description === "string" ? `: ${parent.description}` : "."}`,
      };
    case "minLength":
    case "minItems":
      return { path, code: "too_short", message: `${at} ${error.message ?? "is too short"}.` };
    case "maxLength":
    case "maxItems":
    case "additionalItems":
      return { path, code: "too_long", message: `${at} ${error.message ?? "is too long"}.` };
    case "minimum":
    case "maximum":
      return { path, code: "out_of_range", message: `${at} ${error.message ?? "is out of range"}.` };
    case "uniqueItems":
      return { path, code: "duplicate", message: `${at} must not repeat items (${error.message ?? ""}).` };
    default:
      return { path, code: "invalid_value", message: `${at} ${error.message ?? "is invalid"}.` };
  }
}
