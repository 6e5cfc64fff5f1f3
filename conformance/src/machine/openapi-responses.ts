import type { ErrorObject, ValidateFunction } from "ajv";
import Ajv2020 from "ajv/dist/2020.js";
import addFormats from "ajv-formats";

type Json = Record<string, unknown>;

interface MediaType {
  schema?: unknown;
}

interface ResponseObject {
  description?: string;
  headers?: Record<string, { required?: boolean }>;
  content?: Record<string, MediaType>;
}

/**
 * What answers a request the document lists no operation for, by the name of the shared response
 * (components.responses) and the statuses it may have: a path not listed, another method on a listed path, and on a
 * listed path a CORS preflight or a plain OPTIONS (which says the methods in Allow), and a path whose percent-encoding
 * is malformed.
 */
const FALLBACKS = {
  NotFound: [404],
  MethodNotAllowed: [405],
  Preflight: [200, 204],
  Options: [200, 204],
  InvalidPath: [400],
} as const;

/** Where the components of the document live for Ajv, so that the document's own $refs resolve. */
const BASE = "https://mailpiece.conformance/openapi.json";

/** The answer a response must match: its description in the document, and where it was found. */
interface Expected {
  where: string;
  response: ResponseObject;
}

/** Checks responses against one OpenAPI 3.1 document. */
export interface ResponseChecker {
  /** Throws an Error naming the method, path, status and what does not match, when the response does not. */
  check(method: string, path: string, response: Response): Promise<void>;
}

/** A checker for an OpenAPI 3.1 document: response bodies are compiled with Ajv (draft 2020-12) when first met. */
export function responseChecker(document: Json): ResponseChecker {
  const ajv = new Ajv2020.default({ strict: false, allErrors: true });
  addFormats.default(ajv);
  ajv.addSchema({ $id: BASE, components: document.components ?? {} });
  const compiled = new Map<unknown, ValidateFunction>();
  const paths = (document.paths ?? {}) as Record<
    string,
    Record<string, { responses?: Record<string, unknown> }>
  >;
  const templates = Object.keys(paths).map((template) => ({
    template,
    literal: !template.includes("{"),
    pattern: new RegExp(
      `^${template
        .split(/\{[^}]+\}/)
        .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"))
        .join("[^/]+")}$`,
    ),
  }));

  const resolve = (value: unknown): ResponseObject => {
    let current = value as ResponseObject & { $ref?: string };
    for (let hops = 0; typeof current?.$ref === "string" && hops < 10; hops++) {
      current = pointer(document, current.$ref) as ResponseObject & { $ref?: string };
    }
    return current ?? {};
  };

  const shared = (name: keyof typeof FALLBACKS): ResponseObject | undefined => {
    const responses = (document.components as Json | undefined)?.responses as Json | undefined;
    return responses?.[name] === undefined ? undefined : resolve(responses[name]);
  };

  const expected = (method: string, path: string, status: number): Expected[] | string => {
    const pathname = new URL(path, "http://target.invalid").pathname;
    const found =
      templates.find((t) => t.literal && t.template === pathname) ??
      templates.find((t) => !t.literal && t.pattern.test(pathname));
    /** The shared responses among `names` that the document has and that may have this status. */
    const fallback = (names: Array<keyof typeof FALLBACKS>, why: string): Expected[] | string => {
      const present = names.filter((name) => shared(name) !== undefined);
      if (present.length === 0) {
        return `${why}, and the document has no ${names.map((name) => `components.responses.${name}`).join(" or ")} for it`;
      }
      const fitting = present.filter((name) => (FALLBACKS[name] as readonly number[]).includes(status));
      if (fitting.length === 0) {
        return `${why}: the answer must be ${present.map((name) => `components.responses.${name} (${FALLBACKS[name].join(" or ")})`).join(" or ")}`;
      }
      return fitting.map((name) => ({ where: `components.responses.${name}`, response: shared(name)! }));
    };
    if (!found) return fallback(["NotFound", "InvalidPath"], "the document lists no such path");
    const operation = paths[found.template]?.[method.toLowerCase()];
    if (!operation) {
      return method.toUpperCase() === "OPTIONS"
        ? fallback(["Preflight", "Options"], `the document lists no OPTIONS operation on ${found.template}`)
        : fallback(
            ["MethodNotAllowed"],
            `the document lists no ${method.toUpperCase()} on ${found.template}`,
          );
    }
    const responses = operation.responses ?? {};
    const answer = responses[String(status)] ?? responses[`${String(status)[0]}XX`] ?? responses.default;
    if (answer === undefined) {
      return `the document does not list ${status} for ${method.toUpperCase()} ${found.template} (it lists ${Object.keys(responses).join(", ")})`;
    }
    return [{ where: `${method.toUpperCase()} ${found.template} ${status}`, response: resolve(answer) }];
  };

  const validatorFor = (schema: unknown): ValidateFunction => {
    let validate = compiled.get(schema);
    if (!validate) {
      validate = ajv.compile(rebase(schema) as Json);
      compiled.set(schema, validate);
    }
    return validate;
  };

  /** Why the answer is not as `expected` describes it, or undefined when it is. */
  const matches = ({ where, response: described }: Expected, response: Response, text: string) => {
    for (const [name, header] of Object.entries(described.headers ?? {})) {
      if (header.required && !response.headers.has(name)) return `${where} requires the header ${name}`;
    }
    const content = described.content;
    if (!content || Object.keys(content).length === 0) {
      return text.length > 0 ? `${where} describes no body, but one came (${text.slice(0, 200)})` : undefined;
    }
    const type = (response.headers.get("content-type") ?? "").split(";")[0]!.trim().toLowerCase();
    const media = content[type];
    if (!media)
      return `${where} describes ${Object.keys(content).join(", ")}, not the content type "${type}"`;
    if (!isJson(type) || media.schema === undefined) return undefined;
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      return `${where} describes ${type}, but the body is not JSON: ${text.slice(0, 200)}`;
    }
    const validate = validatorFor(media.schema);
    if (validate(body)) return undefined;
    return `the body does not match the schema of ${where} (${type}): ${describeErrors(validate.errors ?? [])}\n  body: ${text.slice(0, 1000)}`;
  };

  return {
    async check(method, path, response) {
      const label = `${method.toUpperCase()} ${path} answered ${response.status}`;
      const found = expected(method, path, response.status);
      if (typeof found === "string") {
        throw new Error(`${label}, which the OpenAPI description does not allow: ${found}`);
      }
      const text = await response.clone().text();
      const misfits: string[] = [];
      for (const candidate of found) {
        const misfit = matches(candidate, response, text);
        if (misfit === undefined) return;
        misfits.push(misfit);
      }
      throw new Error(`${label}, which the OpenAPI description does not allow: ${misfits.join("; or ")}`);
    },
  };
}

function isJson(type: string): boolean {
  return type === "application/json" || (type.startsWith("application/") && type.endsWith("+json"));
}

/** The schema with its local $refs ("#/components/...") pointing at the document's components as Ajv holds them. */
function rebase(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(rebase);
  if (typeof schema !== "object" || schema === null) return schema;
  return Object.fromEntries(
    Object.entries(schema).map(([key, value]) => [
      key,
      key === "$ref" && typeof value === "string" && value.startsWith("#")
        ? `${BASE}${value}`
        : rebase(value),
    ]),
  );
}

/** The value at a local JSON pointer ("#/a/b") of the document. */
function pointer(document: Json, ref: string): unknown {
  if (!ref.startsWith("#/")) return undefined;
  let current: unknown = document;
  for (const raw of ref.slice(2).split("/")) {
    const key = decodeURIComponent(raw).replace(/~1/g, "/").replace(/~0/g, "~");
    current = (current as Json | undefined)?.[key];
  }
  return current;
}

function describeErrors(errors: readonly ErrorObject[]): string {
  return errors
    .slice(0, 8)
    .map((e) => `${e.instancePath || "(body)"} ${e.message ?? e.keyword}${paramsOf(e)}`)
    .join("; ");
}

function paramsOf(error: ErrorObject): string {
  const p = error.params as Record<string, unknown>;
  if (error.keyword === "additionalProperties") return ` (${String(p.additionalProperty)})`;
  if (error.keyword === "enum") return ` (${JSON.stringify(p.allowedValues)})`;
  return "";
}
