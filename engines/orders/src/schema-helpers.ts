import Type from "typebox";

/** Annotations every component schema may carry; all of them are JSON Schema keywords. */
export interface Annotations {
  title?: string;
  description?: string;
  default?: string;
  examples?: unknown[];
}

/**
 * A string enum as plain JSON Schema: `{ type: "string", enum: [...] }`, typed as the union of the values.
 * (A union of literals would become an anyOf of consts, which documents and reports worse.)
 */
export function StringEnum<const T extends readonly string[]>(values: T, annotations: Annotations = {}) {
  return Type.Unsafe<T[number]>({ type: "string", enum: [...values], ...annotations });
}

/** An object with any properties, typed as a string-keyed record. */
export function OpenObject(annotations: Annotations = {}) {
  return Type.Unsafe<Record<string, unknown>>({ type: "object", ...annotations });
}
