/**
 * Reading untrusted JSON without trusting its shape. Every reader looks at own properties only, so keys such as
 * "constructor" or "__proto__" in a request body are plain data, and a value of the wrong type reads as absent.
 */
export type JsonObject = Record<string, unknown>;

export function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The own property `key` of `object`, or undefined. */
export function field(object: JsonObject, key: string): unknown {
  return Object.hasOwn(object, key) ? object[key] : undefined;
}

/** True when `object` has an own property `key` whose value is not undefined. */
export function present(object: JsonObject, key: string): boolean {
  return field(object, key) !== undefined;
}

export function stringField(object: JsonObject, key: string): string | undefined {
  const value = field(object, key);
  return typeof value === "string" ? value : undefined;
}

export function booleanField(object: JsonObject, key: string): boolean | undefined {
  const value = field(object, key);
  return typeof value === "boolean" ? value : undefined;
}

export function numberField(object: JsonObject, key: string): number | undefined {
  const value = field(object, key);
  return typeof value === "number" && Number.isFinite(value) ? value : undefined;
}

export function objectField(object: JsonObject, key: string): JsonObject | undefined {
  const value = field(object, key);
  return isJsonObject(value) ? value : undefined;
}

export function arrayField(object: JsonObject, key: string): unknown[] | undefined {
  const value = field(object, key);
  return Array.isArray(value) ? value : undefined;
}

/** The value when it is one of `values`, else undefined. */
export function enumField<const T extends string>(
  object: JsonObject,
  key: string,
  values: readonly T[],
): T | undefined {
  const value = field(object, key);
  return typeof value === "string" && (values as readonly string[]).includes(value)
    ? (value as T)
    : undefined;
}
