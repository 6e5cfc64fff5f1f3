import type { Issue } from "@mailpiece/errors";
import {
  charCount,
  createSchemaCheck,
  joinPath,
  LETTER_FORMATS,
  type LetterFormat,
  type ProjectsParse,
  type SchemaCheck,
} from "@mailpiece/orders";
import { TemplatesError } from "./errors.ts";
import { isRecord } from "./is-record.ts";
import type { TemplateIssueCode } from "./issues.ts";
import { projectsShapeIssues } from "./issues.ts";
import { TEMPLATE_LIMITS, VARIABLE_NAME_PATTERN } from "./limits.ts";
import { scanBody } from "./placeholders.ts";
import { TemplateBody, TemplatePatchBody, type TemplateVariableSchema } from "./template-schema.ts";

/** A declared variable, `required` resolved: true unless the declaration says false or gives a default. */
export interface TemplateVariable {
  name: string;
  required: boolean;
  default?: string;
}

/**
 * One immutable version of a template. The core stores each version as it is made and never changes it; an update
 * makes the next version with `nextTemplateVersion`.
 */
export interface TemplateVersion {
  /** 1 for a new template, one more for each update that changes something. */
  version: number;
  name: string;
  body: string;
  format: LetterFormat;
  variables: TemplateVariable[];
  /** The variables the body uses, each once, in order of first use (all of them declared). */
  placeholders: string[];
}

let createCheck: SchemaCheck | undefined;
let patchCheck: SchemaCheck | undefined;

/**
 * Parses the body of a new template (POST /api/v1/templates) into its first version. Every problem is reported at
 * its field, nothing is changed: the shape (`TemplateBody`: name 1 to 200 characters and not blank, body 1 to 20,000,
 * format one of the letter formats, at most 100 variables, names `[A-Za-z_][A-Za-z0-9_]{0,63}`, defaults of at most
 * 1,000 characters, unknown fields `unknown_field`), each variable named once (`variable_duplicate`), no
 * `required: true` with a `default` (`variable_default_conflict`), every `{{` opening a placeholder
 * (`placeholder_invalid`) and every placeholder naming a declared variable (`variable_undeclared`, at `body`). A
 * declared variable the body does not use is fine. Never throws.
 */
export function parseTemplateBody(body: unknown): ProjectsParse<TemplateVersion> {
  createCheck ??= createSchemaCheck(TemplateBody);
  const issues = projectsShapeIssues(createCheck(body));
  if (!isRecord(body)) return { ok: false, issues };
  return build(
    {
      name: body.name,
      body: body.body,
      format: body.format ?? "text",
      variables: body.variables ?? [],
    },
    { version: 1, variablesGiven: true },
    issues,
  );
}

/**
 * Makes the next version of a template from its current version and the body of PATCH
 * /api/v1/templates/{template_id} (`TemplatePatchBody`: any of name, body, format and variables; `variables`
 * replaces the whole list). The patch's fields are checked as for a new template, and the result as a whole: a
 * body's placeholders must name variables of the resulting list, so dropping a variable the body uses is
 * `variable_undeclared` at `body`. A patch that names no field is `patch_empty`. A patch that changes nothing gives
 * back `current` itself (same version number: nothing to store). Never throws for a bad patch; throws TemplatesError
 * (`template_version_invalid`) when `current` is not a template version.
 */
export function nextTemplateVersion(
  current: TemplateVersion,
  patch: unknown,
): ProjectsParse<TemplateVersion> {
  requireVersion(current);
  patchCheck ??= createSchemaCheck(TemplatePatchBody);
  const issues = projectsShapeIssues(patchCheck(patch));
  if (!isRecord(patch)) return { ok: false, issues };
  const known = Object.keys(TemplatePatchBody.properties).filter((key) => Object.hasOwn(patch, key));
  if (known.length === 0 && issues.length === 0) {
    issues.push({
      path: "",
      code: "patch_empty",
      message: "The update names no field to change; give one or more of name, body, format and variables.",
    });
  }
  const next = build(
    {
      name: Object.hasOwn(patch, "name") ? patch.name : current.name,
      body: Object.hasOwn(patch, "body") ? patch.body : current.body,
      format: Object.hasOwn(patch, "format") ? patch.format : current.format,
      variables: Object.hasOwn(patch, "variables") ? patch.variables : current.variables,
    },
    { version: current.version + 1, variablesGiven: Object.hasOwn(patch, "variables") },
    issues,
  );
  if (next.ok && sameContent(next.value, current)) return { ok: true, value: current };
  return next;
}

/** A version's fields before they are checked: from a request body, or the current version and a patch. */
interface Candidate {
  name: unknown;
  body: unknown;
  format: unknown;
  variables: unknown;
}

/**
 * Checks the rules beyond the shape and builds the version. `issues` holds the shape issues already found; a field
 * the shape check refused is not judged again. `variablesGiven`: the variables come from the request (their issues
 * are reported at `variables[i]`), not from the current version.
 */
function build(
  candidate: Candidate,
  options: { version: number; variablesGiven: boolean },
  issues: Issue[],
): ProjectsParse<TemplateVersion> {
  const add = (path: string, code: TemplateIssueCode | "too_short", message: string): void => {
    issues.push({ path, code, message });
  };
  const refused = (path: string) => issues.some((issue) => issue.path === path);

  if (typeof candidate.name === "string" && candidate.name.trim() === "" && !refused("name")) {
    add("name", "too_short", "name must not be blank.");
  }

  const variables: TemplateVariable[] = [];
  const declared = new Set<string>();
  const list = Array.isArray(candidate.variables) ? (candidate.variables as unknown[]) : [];
  list.forEach((entry, index) => {
    if (!isRecord(entry) || typeof entry.name !== "string") return;
    const at = joinPath("variables", index);
    const declaration = entry as TemplateVariableSchema;
    if (declared.has(declaration.name)) {
      if (options.variablesGiven) {
        add(
          joinPath(at, "name"),
          "variable_duplicate",
          `The variable ${declaration.name} is declared twice.`,
        );
      }
      return;
    }
    declared.add(declaration.name);
    if (declaration.required === true && declaration.default !== undefined && options.variablesGiven) {
      add(
        joinPath(at, "default"),
        "variable_default_conflict",
        `The variable ${declaration.name} is required, so its default would never be used; drop the default or set required to false.`,
      );
    }
    const required = declaration.required ?? declaration.default === undefined;
    variables.push({
      name: declaration.name,
      required,
      ...(typeof declaration.default === "string" ? { default: declaration.default } : {}),
    });
  });

  let placeholders: string[] = [];
  if (typeof candidate.body === "string" && !refused("body")) {
    const scanned = scanBody(candidate.body, candidate.format as LetterFormat);
    placeholders = scanned.placeholders;
    if (scanned.invalid.length > 0) {
      const shown = scanned.invalid
        .slice(0, 3)
        .map((text) => JSON.stringify(text))
        .join(", ");
      add(
        "body",
        "placeholder_invalid",
        `The body has {{ that opens no placeholder: ${shown}${scanned.invalid.length > 3 ? ` and ${scanned.invalid.length - 3} more` : ""}. A placeholder is {{name}} with a name of letters, digits and _ that does not start with a digit; write {{ only to open one.`,
      );
    }
    const undeclared = placeholders.filter((name) => !declared.has(name));
    const variablesRefused = issues.some((issue) => /^variables(\[|$)/.test(issue.path));
    if (undeclared.length > 0 && !variablesRefused) {
      add(
        "body",
        "variable_undeclared",
        `The body uses ${undeclared.map((name) => `{{${name}}}`).join(", ")}, which ${undeclared.length === 1 ? "is not a declared variable" : "are not declared variables"}; declare ${undeclared.length === 1 ? "it" : "them"} in variables.`,
      );
    }
  }

  if (issues.length > 0) return { ok: false, issues };
  return {
    ok: true,
    value: {
      version: options.version,
      name: candidate.name as string,
      body: candidate.body as string,
      format: candidate.format as LetterFormat,
      variables,
      placeholders,
    },
  };
}

function sameContent(a: TemplateVersion, b: TemplateVersion): boolean {
  return (
    a.name === b.name &&
    a.body === b.body &&
    a.format === b.format &&
    a.variables.length === b.variables.length &&
    a.variables.every((variable, index) => {
      const other = b.variables[index]!;
      return (
        variable.name === other.name &&
        variable.required === other.required &&
        variable.default === other.default
      );
    })
  );
}

const NAME = new RegExp(VARIABLE_NAME_PATTERN);

/**
 * Refuses a value that is not a template version (`template_version_invalid`): the shape of TemplateVersion, and a
 * body whose placeholders are all declared, as the parsers make it.
 */
export function requireVersion(version: unknown): asserts version is TemplateVersion {
  const fail = (why: string): never => {
    throw new TemplatesError("template_version_invalid", `The template version is malformed: ${why}.`);
  };
  if (!isRecord(version)) fail("it is not an object");
  const v = version as Record<string, unknown>;
  if (!Number.isSafeInteger(v.version) || (v.version as number) < 1)
    fail("version is not a whole number from 1");
  if (typeof v.name !== "string") fail("name is not a string");
  if (typeof v.body !== "string" || charCount(v.body) > TEMPLATE_LIMITS.body_chars)
    fail("body is not a letter body");
  if (!(LETTER_FORMATS as readonly unknown[]).includes(v.format)) fail("format is not a letter format");
  const variables = v.variables;
  if (!Array.isArray(variables)) fail("variables is not a list");
  const names = new Set<string>();
  for (const variable of variables as unknown[]) {
    if (
      !isRecord(variable) ||
      typeof variable.name !== "string" ||
      !NAME.test(variable.name) ||
      typeof variable.required !== "boolean" ||
      (variable.default !== undefined && typeof variable.default !== "string")
    ) {
      fail("a variable is not { name, required, default? }");
    }
    names.add((variable as { name: string }).name);
  }
  const scanned = scanBody(v.body as string, v.format as LetterFormat);
  if (scanned.invalid.length > 0 || scanned.placeholders.some((name) => !names.has(name))) {
    fail("its body has placeholders that are not declared variables");
  }
}
