import { FALLBACK_RESPONSES } from "./openapi.ts";

type Json = Record<string, unknown>;

const record = (value: unknown): Json =>
  typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Json) : {};

/** `base` with the entries of `added`; a key both hold is an Error naming `what`. */
function addEntries(base: unknown, added: unknown, what: string): Json {
  const into = record(base);
  for (const key of Object.keys(record(added))) {
    if (Object.hasOwn(into, key))
      throw new Error(`The Projects API's ${what} ${key} is already in the description.`);
  }
  return { ...into, ...record(added) };
}

/** The operationIds of a description's paths and webhooks. */
function operationIds(document: Json): string[] {
  return [record(document.paths), record(document.webhooks)].flatMap((items) =>
    Object.values(items).flatMap((item) =>
      Object.values(record(item)).flatMap((operation) => {
        const id = record(operation).operationId;
        return typeof id === "string" ? [id] : [];
      }),
    ),
  );
}

/**
 * One description of the whole deployment: `deployment` (the machine API's, served at /openapi.json) with the
 * Projects API's `v1` description added, so that a client discovers /api/v1 from /openapi.json. The v1 paths,
 * webhooks, tags, component schemas and security scheme are added; everything `deployment` holds stays as it is,
 * key for key and in its order. The shared answers to requests no operation lists (components.responses NotFound,
 * MethodNotAllowed, Options, InvalidPath) describe the whole deployment: the deployment's are kept, and v1's only
 * fill in those it lacks. Throws an Error when a path, operationId, component or security scheme of `v1` is already
 * in `deployment`. Neither argument is changed.
 */
export function mergeV1OpenApi(deployment: Json, v1: Json): Json {
  const taken = new Set(operationIds(deployment));
  for (const id of operationIds(v1)) {
    if (taken.has(id)) throw new Error(`The Projects API's operationId ${id} is already in the description.`);
  }
  const components = record(deployment.components);
  const added = record(v1.components);
  const responses = record(components.responses);
  const fallbacks = Object.fromEntries(
    FALLBACK_RESPONSES.filter((name) => !Object.hasOwn(responses, name) && record(added.responses)[name]).map(
      (name) => [name, record(added.responses)[name]],
    ),
  );
  const tagNames = new Set(
    (Array.isArray(deployment.tags) ? deployment.tags : []).map((tag) => record(tag).name),
  );
  const tags = [
    ...(Array.isArray(deployment.tags) ? deployment.tags : []),
    ...(Array.isArray(v1.tags) ? v1.tags : []).filter((tag) => !tagNames.has(record(tag).name)),
  ];
  return {
    ...deployment,
    ...(tags.length > 0 ? { tags } : {}),
    paths: addEntries(deployment.paths, v1.paths, "path"),
    ...(v1.webhooks === undefined
      ? {}
      : { webhooks: addEntries(deployment.webhooks, v1.webhooks, "webhook") }),
    components: {
      ...components,
      schemas: addEntries(components.schemas, added.schemas, "component schema"),
      ...(Object.keys(fallbacks).length > 0 ? { responses: { ...responses, ...fallbacks } } : {}),
      securitySchemes: addEntries(components.securitySchemes, added.securitySchemes, "security scheme"),
    },
  };
}
