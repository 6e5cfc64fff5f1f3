import type { TSchema, TUnsafe } from "typebox";
import Type from "typebox";

/** The prefix of every component of the Projects API description, so that it can share a document with others. */
export const COMPONENT_PREFIX = "V1";

/** The name of a component in the description: `Order` is `V1Order`. */
export const componentName = (name: string) => `${COMPONENT_PREFIX}${name}`;

/** A reference to the component `name` (see `COMPONENT_SCHEMAS` in openapi.ts), typed as the value it describes. */
export function ref<T = unknown>(name: string): TUnsafe<T> {
  return Type.Unsafe<T>({ $ref: `#/components/schemas/${componentName(name)}` });
}

/** A string that is one of `values`, as plain JSON Schema (`{type: "string", enum}`), typed as their union. */
export function enumOf<const T extends readonly string[]>(
  values: T,
  description?: string,
): TUnsafe<T[number]> {
  return Type.Unsafe<T[number]>({
    type: "string",
    enum: [...values],
    ...(description === undefined ? {} : { description }),
  });
}

/** `schema`, or null. */
export const orNull = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

/** Objects whose properties are exactly those listed. */
export const CLOSED = { additionalProperties: false } as const;
