import type { ErrorObject } from "ajv";
import Ajv2020 from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import type { TSchema } from "typebox";
import { type Issue, type IssueCode, joinPath } from "./issues.ts";
import { UUID_PATTERN } from "./request-id.ts";

/** Checks a value against a JSON Schema and answers with readable issues (empty when the value fits). */
export type SchemaCheck = (value: unknown) => Issue[];

/**
 * Compiles a schema with Ajv (draft 2020-12, all errors, formats uuid, email, uri and date) into a check that maps
 * Ajv's errors to issues: one issue per field, the most relevant one, with a dotted path and a stable code.
 * The uuid format is the canonical text form only (UUID_PATTERN): Ajv's own also takes a "urn:uuid:" prefix.
 * The compiled check holds no state between calls.
 */
export function createSchemaCheck(schema: TSchema): SchemaCheck {
  const ajv = new Ajv2020.default({ allErrors: true, strict: true, verbose: true });
  addFormats.default(ajv, ["email", "uri", "date"]);
  ajv.addFormat("uuid", new RegExp(UUID_PATTERN));
  const validate = ajv.compile(schema);
  return (value) => (validate(value) ? [] : ajvIssues(validate.errors ?? [], value));
}

/** A field-level error: Ajv's, or one made when several branches of a union are merged into one. */
interface FieldError {
  instancePath: string;
  schemaPath: string;
  keyword: string;
  params: Record<string, unknown>;
  parentSchema?: Record<string, unknown>;
}

/** Turns Ajv errors into issues: unions resolved to their most relevant branch, then one issue per path. */
export function ajvIssues(errors: readonly ErrorObject[], data: unknown): Issue[] {
  const resolved = resolveUnions(
    errors.map((e) => ({
      instancePath: e.instancePath,
      schemaPath: e.schemaPath,
      keyword: e.keyword,
      params: e.params as Record<string, unknown>,
      ...(isRecord(e.parentSchema) ? { parentSchema: e.parentSchema } : {}),
    })),
  );
  const best = new Map<string, { issue: Issue; rank: number }>();
  for (const error of resolved) {
    const issue = toIssue(error, data);
    const rank = RANK[issue.code as IssueCode] ?? 9;
    const current = best.get(issue.path);
    if (current === undefined || rank < current.rank) best.set(issue.path, { issue, rank });
  }
  return [...best.values()].map((entry) => entry.issue);
}

/** Which issue wins when a field has several: its type first, then its allowed values, then bounds, then format. */
const RANK: Partial<Record<IssueCode, number>> = {
  unknown_property: 0,
  required: 0,
  invalid_type: 1,
  invalid_enum: 2,
  too_short: 3,
  too_long: 3,
  out_of_range: 3,
  invalid_format: 4,
  invalid_address_id: 4,
  pdf_url_not_https: 4,
};

/**
 * Ajv reports a failed anyOf/oneOf with the errors of every branch. For each union (innermost first) this keeps
 * the errors of the one branch the value was meant for: branches whose type does not match the value are dropped;
 * of the rest, the one with the fewest errors wins (the first on a tie). When no branch has the value's type,
 * the union becomes a single type error listing the accepted types.
 */
function resolveUnions(input: FieldError[]): FieldError[] {
  let errors = input;
  const unions = input
    .filter((e) => e.keyword === "anyOf" || e.keyword === "oneOf")
    .sort((a, b) => b.schemaPath.length - a.schemaPath.length);
  for (const union of unions) {
    const prefix = `${union.schemaPath}/`;
    const branches = new Map<string, FieldError[]>();
    for (const error of errors) {
      if (!error.schemaPath.startsWith(prefix)) continue;
      const branch = error.schemaPath.slice(prefix.length).split("/")[0] ?? "";
      branches.set(branch, [...(branches.get(branch) ?? []), error]);
    }
    const inUnion = (e: FieldError) => e === union || e.schemaPath.startsWith(prefix);
    /** The errors outside this union keep their places; `replacement` takes the union's place. */
    const replace = (replacement: FieldError[]) =>
      errors.flatMap((e) => (e === union ? replacement : inUnion(e) ? [] : [e]));
    if (branches.size === 0) {
      // oneOf matched by several branches: the value is ambiguous rather than wrong in one field.
      errors = replace([{ ...union, keyword: "ambiguous" }]);
      continue;
    }
    const typeError = (branch: string, list: FieldError[]) =>
      list.find(
        (e) =>
          e.keyword === "type" &&
          e.instancePath === union.instancePath &&
          e.schemaPath === `${prefix}${branch}/type`,
      );
    const candidates = [...branches].filter(([branch, list]) => typeError(branch, list) === undefined);
    if (candidates.length === 0) {
      const types = [...branches].flatMap(([branch, list]) => {
        const found = typeError(branch, list)?.params.type;
        return typeof found === "string" ? found.split(",") : [];
      });
      errors = replace([
        {
          instancePath: union.instancePath,
          schemaPath: `${union.schemaPath.replace(/\/(anyOf|oneOf)$/, "")}/type`,
          keyword: "type",
          params: { type: [...new Set(types)].join(",") },
        },
      ]);
      continue;
    }
    const [, chosen] = candidates.reduce((best, candidate) =>
      candidate[1].length < best[1].length ? candidate : best,
    );
    errors = replace(chosen);
  }
  return errors;
}

function toIssue(error: FieldError, data: unknown): Issue {
  const path = pointerToPath(error.instancePath, data);
  const p = error.params;
  const make = (code: IssueCode, message: string, at: string = path): Issue => ({
    path: at,
    code,
    message: at === path ? `${subject(path)} ${message}` : message,
  });
  switch (error.keyword) {
    case "required": {
      const name = String(p.missingProperty);
      return make("required", `${name} is required.`, joinPath(path, name));
    }
    case "additionalProperties": {
      const name = String(p.additionalProperty);
      const allowed = Object.keys(asRecord(error.parentSchema?.properties));
      return make(
        "unknown_property",
        `${name} is not a known property${allowed.length > 0 && allowed.length <= 8 ? `; allowed: ${allowed.join(", ")}` : ""}.`,
        joinPath(path, name),
      );
    }
    case "type":
      return make("invalid_type", `must be ${describeTypes(String(p.type))}.`);
    case "enum": {
      const values = Array.isArray(p.allowedValues) ? p.allowedValues : [];
      return make("invalid_enum", `must be one of: ${values.map(String).join(", ")}.`);
    }
    case "const":
      return make("invalid_enum", `must be ${JSON.stringify(p.allowedValue)}.`);
    case "minLength":
      return make(
        "too_short",
        p.limit === 1 ? "must not be empty." : `must be at least ${String(p.limit)} characters.`,
      );
    case "maxLength":
      return make("too_long", `must be at most ${String(p.limit)} characters.`);
    case "minItems":
      return make("too_short", `must have at least ${String(p.limit)} items.`);
    case "maxItems":
      return make("too_long", `must have at most ${String(p.limit)} items.`);
    case "minimum":
    case "maximum":
    case "exclusiveMinimum":
    case "exclusiveMaximum":
      return make("out_of_range", rangeMessage(error));
    case "format":
      return make(
        "invalid_format",
        FORMAT_MESSAGES[String(p.format)] ?? `must be a valid ${String(p.format)}.`,
      );
    case "pattern":
      return patternIssue(path, error);
    case "ambiguous":
      return make("invalid_type", "matches more than one of the accepted shapes; send exactly one.");
    default:
      return make("invalid_format", `does not satisfy ${error.keyword}.`);
  }
}

const FORMAT_MESSAGES: Record<string, string> = {
  uuid: "must be a UUID, e.g. 3f0c6a1e-5b7d-4c2a-9e8f-1a2b3c4d5e6f.",
  email: "must be an email address.",
  uri: "must be an absolute URI.",
  date: "must be a date, YYYY-MM-DD.",
};

function patternIssue(path: string, error: FieldError): Issue {
  const last = path.slice(path.lastIndexOf(".") + 1);
  if (last.endsWith("_address_id")) {
    return {
      path,
      code: "invalid_address_id",
      message: `${subject(path)} must start with its country code and a vertical bar, e.g. "US|...".`,
    };
  }
  if (error.parentSchema?.format === "uuid") {
    return { path, code: "invalid_format", message: `${subject(path)} ${FORMAT_MESSAGES.uuid}` };
  }
  if (last === "download_url") {
    return { path, code: "pdf_url_not_https", message: `${subject(path)} must be an https:// URL.` };
  }
  if (last === "content_type") {
    return {
      path,
      code: "invalid_format",
      message: `${subject(path)} must be a MIME type such as application/pdf.`,
    };
  }
  return {
    path,
    code: "invalid_format",
    message: `${subject(path)} must match ${String(error.params.pattern)}.`,
  };
}

/** How a message names the field: its last path segment, or the body itself. */
function subject(path: string): string {
  if (path === "") return "The request body";
  const match = /(?:^|\.)([^.[]+)((?:\[\d+\])*)$/.exec(path);
  return match ? `${match[1]}${match[2] ?? ""}` : path;
}

function rangeMessage(error: FieldError): string {
  const schema = error.parentSchema ?? {};
  const min = schema.minimum ?? schema.exclusiveMinimum;
  const max = schema.maximum ?? schema.exclusiveMaximum;
  if (typeof min === "number" && typeof max === "number") return `must be between ${min} and ${max}.`;
  return `must be ${String(error.params.comparison)} ${String(error.params.limit)}.`;
}

const ARTICLE: Record<string, string> = {
  string: "a string",
  number: "a number",
  integer: "an integer",
  boolean: "a boolean",
  object: "an object",
  array: "an array",
  null: "null",
};

function describeTypes(types: string): string {
  const names = types
    .split(",")
    .filter((t) => t !== "")
    .map((t) => ARTICLE[t] ?? t);
  return names.length <= 1
    ? (names[0] ?? "of another type")
    : `${names.slice(0, -1).join(", ")} or ${names.at(-1)}`;
}

/** "/form/attachments/0/base64" to "form.attachments[0].base64", using the data to tell array indexes from keys. */
export function pointerToPath(pointer: string, data: unknown): string {
  if (pointer === "") return "";
  let path = "";
  let current: unknown = data;
  for (const raw of pointer.slice(1).split("/")) {
    const key = raw.replace(/~1/g, "/").replace(/~0/g, "~");
    if (Array.isArray(current) && /^(0|[1-9]\d*)$/.test(key)) {
      path = joinPath(path, Number(key));
      current = current[Number(key)];
    } else {
      path = joinPath(path, key);
      current = isRecord(current) && Object.hasOwn(current, key) ? current[key] : undefined;
    }
  }
  return path;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function asRecord(value: unknown): Record<string, unknown> {
  return isRecord(value) ? value : {};
}
