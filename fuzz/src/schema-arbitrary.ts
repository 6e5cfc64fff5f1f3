import fc from "fast-check";

/** A JSON Schema (draft 2020-12 as the surfaces publish it: OpenAPI 3.1 components, MCP tool inputSchemas). */
export type Schema = Record<string, unknown>;

/**
 * A value for a field, chosen by the caller for a field the schema alone describes too loosely to reach the code
 * behind it (an address id that exists, a PDF that parses). Called with the property name and its schema; answer
 * undefined to let the schema decide.
 */
export type Hint = (name: string, schema: Schema) => fc.Arbitrary<unknown> | undefined;

export interface BuildOptions {
  /** The document local $refs (#/...) point into; default the schema itself. */
  root?: Schema;
  hint?: Hint;
  /** Longest string generated for a field without a smaller maxLength (default 40). */
  maxStringLength?: number;
}

/** Hosts a generated URL may name: loopback only, so that nothing generated can make the server dial out. */
export const LOOPBACK_HOSTS = ["127.0.0.1", "[::1]", "127.0.0.1:1", "localhost"] as const;

/** The schema behind a local $ref, or the schema itself. */
export function deref(schema: Schema, root: Schema): Schema {
  let current = schema;
  for (let hops = 0; typeof current.$ref === "string" && hops < 20; hops++) {
    const ref = current.$ref as string;
    if (!ref.startsWith("#/")) return {};
    let target: unknown = root;
    for (const raw of ref.slice(2).split("/")) {
      target = (target as Record<string, unknown> | undefined)?.[raw.replace(/~1/g, "/").replace(/~0/g, "~")];
    }
    current = (target as Schema | undefined) ?? {};
  }
  return current;
}

const typesOf = (schema: Schema): string[] => {
  const type = schema.type;
  if (Array.isArray(type)) return type as string[];
  if (typeof type === "string") return [type];
  return [];
};

const branchesOf = (schema: Schema): Schema[] | undefined =>
  (schema.anyOf ?? schema.oneOf) as Schema[] | undefined;

const propertiesOf = (schema: Schema): Record<string, Schema> =>
  (schema.properties as Record<string, Schema> | undefined) ?? {};

/** A small JSON value of any type, for a field the schema leaves open. */
export const anyJson: fc.Arbitrary<unknown> = fc.jsonValue({ maxDepth: 2 });

/**
 * A generated string that does not fit is replaced by one that does (never filtered: a filter that rarely passes
 * would make generation spin).
 */
function fitting(
  arbitrary: fc.Arbitrary<string>,
  fits: (s: string) => boolean,
  examples: string[],
): fc.Arbitrary<string> {
  if (examples.length === 0) return arbitrary;
  return arbitrary.map((s) => (fits(s) ? s : examples[s.length % examples.length]!));
}

/** Strings of `arbitrary` that fit, found once up front (from a fixed seed). */
function examplesOf(arbitrary: fc.Arbitrary<string>, fits: (s: string) => boolean): string[] {
  return [...new Set(fc.sample(arbitrary, { numRuns: 300, seed: 7 }).filter(fits))].slice(0, 20);
}

/** A string for `format` or `pattern`, within the length bounds. */
function formattedString(schema: Schema, options: BuildOptions): fc.Arbitrary<string> | undefined {
  const format = schema.format as string | undefined;
  const pattern = schema.pattern as string | undefined;
  const max = (schema.maxLength as number | undefined) ?? Number.POSITIVE_INFINITY;
  const min = (schema.minLength as number | undefined) ?? 0;
  const fits = (s: string) => [...s].length <= max && [...s].length >= min;
  const bounded = (arbitrary: fc.Arbitrary<string>) => fitting(arbitrary, fits, examplesOf(arbitrary, fits));
  if (format === "uri" || (pattern !== undefined && /^\^https?:/.test(pattern))) {
    return bounded(
      fc
        .tuple(fc.constantFrom(...LOOPBACK_HOSTS), fc.stringMatching(/^[a-z0-9/._-]{0,20}$/))
        .map(([host, path]) => `https://${host}/${path}`),
    );
  }
  if (format === "uuid") return bounded(fc.uuid());
  if (format === "email") {
    return bounded(
      fc.oneof(fc.emailAddress(), fc.constantFrom("ada@example.com", "grace.hopper+mail@example.org")),
    );
  }
  if (format === "date") {
    return fc
      .date({ min: new Date("2020-01-01"), max: new Date("2030-12-31"), noInvalidDate: true })
      .map((d) => d.toISOString().slice(0, 10));
  }
  if (format === "date-time") {
    return fc
      .date({ min: new Date("2020-01-01"), max: new Date("2030-12-31"), noInvalidDate: true })
      .map((d) => d.toISOString());
  }
  if (pattern !== undefined) {
    let regex: RegExp;
    try {
      regex = new RegExp(pattern, "u");
    } catch {
      try {
        regex = new RegExp(pattern);
      } catch {
        return undefined;
      }
    }
    const cap = Math.min(max, options.maxStringLength ?? 40);
    const matching = (s: string) => fits(s) && [...s].length <= Math.max(cap, min) && regex.test(s);
    const arbitrary = fc.oneof(
      fc.stringMatching(regex, { size: "xsmall" }),
      fc.stringMatching(regex, { size: "small" }),
    );
    const examples = examplesOf(arbitrary, matching);
    return examples.length === 0 ? undefined : fitting(arbitrary, matching, examples);
  }
  return undefined;
}

function plainString(schema: Schema, options: BuildOptions): fc.Arbitrary<string> {
  const min = (schema.minLength as number | undefined) ?? 0;
  const cap = options.maxStringLength ?? 40;
  const max = Math.max(min, Math.min((schema.maxLength as number | undefined) ?? cap, cap));
  const fits = (s: string) => s.length >= min && s.length <= max;
  const words = fc
    .array(fc.constantFrom("Ada", "Grace", "Suite", "350", "Fifth", "Avenue", "Zoë", "Łukasz", "名前"), {
      minLength: 1,
      maxLength: 4,
    })
    .map((w) => w.join(" "));
  return fc.oneof(
    { weight: 3, arbitrary: fc.string({ minLength: min, maxLength: max, unit: "grapheme-ascii" }) },
    { weight: 1, arbitrary: fc.string({ minLength: min, maxLength: max, unit: "grapheme" }) },
    // Printable words: what most text fields hold.
    { weight: 2, arbitrary: fitting(words, fits, examplesOf(words, fits)) },
  );
}

function numberArbitrary(schema: Schema, integer: boolean): fc.Arbitrary<number> {
  const exclusiveMin = schema.exclusiveMinimum as number | undefined;
  const exclusiveMax = schema.exclusiveMaximum as number | undefined;
  let min =
    (schema.minimum as number | undefined) ?? (exclusiveMin === undefined ? undefined : exclusiveMin + 1);
  let max =
    (schema.maximum as number | undefined) ?? (exclusiveMax === undefined ? undefined : exclusiveMax - 1);
  if (integer) {
    min = min === undefined ? -1_000_000 : Math.ceil(min);
    max = max === undefined ? Math.max(min, 1_000_000) : Math.floor(max);
    const lo = min;
    const hi = max;
    return fc.oneof(
      fc.integer({ min: lo, max: hi }),
      fc.constantFrom(lo, hi, Math.min(hi, Math.max(lo, 1))),
      fc.integer({ min: lo, max: Math.min(hi, lo + 10) }),
    );
  }
  return fc.double({
    noNaN: true,
    noDefaultInfinity: true,
    ...(min === undefined ? { min: -1e9 } : { min }),
    ...(max === undefined ? { max: 1e9 } : { max }),
  });
}

/**
 * Values the schema accepts: required properties always, optional ones sometimes, no properties it does not name,
 * strings within their length, pattern and format, numbers within their bounds, arrays within their item counts.
 * A field the hint answers for takes the hint's value or the schema's, each half the time.
 */
export function validValue(schema: Schema, options: BuildOptions = {}, name = ""): fc.Arbitrary<unknown> {
  const key = `${name}\u0000${options.maxStringLength ?? ""}`;
  const byOptions = built.get(schema) ?? new WeakMap<object, Map<string, fc.Arbitrary<unknown>>>();
  built.set(schema, byOptions);
  const optionKey = options.hint ?? NO_HINT;
  const byName = byOptions.get(optionKey) ?? new Map<string, fc.Arbitrary<unknown>>();
  byOptions.set(optionKey, byName);
  const cached = byName.get(key);
  if (cached) return cached;
  const root = options.root ?? schema;
  const s = deref(schema, root);
  const hinted = options.hint?.(name, s);
  const own = schemaValue(s, { ...options, root });
  const arbitrary = hinted ? fc.oneof(hinted, own) : own;
  byName.set(key, arbitrary);
  return arbitrary;
}

/** Arbitraries built so far, by schema, hint and field name: building one samples its patterns once. */
const built = new WeakMap<Schema, WeakMap<object, Map<string, fc.Arbitrary<unknown>>>>();
const NO_HINT = {};

function schemaValue(s: Schema, options: BuildOptions & { root: Schema }): fc.Arbitrary<unknown> {
  if ("const" in s) return fc.constant(s.const);
  if (Array.isArray(s.enum)) return fc.constantFrom(...(s.enum as unknown[]));
  const branches = branchesOf(s);
  if (branches && branches.length > 0) {
    return fc.oneof(...branches.map((branch) => validValue({ ...withoutBranches(s), ...branch }, options)));
  }
  if (Array.isArray(s.allOf)) {
    const merged: Schema = {
      ...s,
      allOf: undefined,
      properties: { ...propertiesOf(s) },
      required: [...((s.required as string[]) ?? [])],
    };
    for (const part of s.allOf as Schema[]) {
      const p = deref(part, options.root);
      Object.assign(merged, { ...p, properties: merged.properties, required: merged.required });
      Object.assign(merged.properties as object, propertiesOf(p));
      (merged.required as string[]).push(...((p.required as string[]) ?? []));
    }
    return validValue(merged, options);
  }
  const types = typesOf(s);
  if (types.length > 1) return fc.oneof(...types.map((type) => validValue({ ...s, type }, options)));
  switch (types[0]) {
    case "string":
      return formattedString(s, options) ?? plainString(s, options);
    case "integer":
      return numberArbitrary(s, true);
    case "number":
      return numberArbitrary(s, false);
    case "boolean":
      return fc.boolean();
    case "null":
      return fc.constant(null);
    case "array": {
      const items = (s.items as Schema | undefined) ?? {};
      const minLength = (s.minItems as number | undefined) ?? 0;
      const maxLength = Math.max(minLength, Math.min((s.maxItems as number | undefined) ?? 3, 3));
      return fc.array(validValue(items, options), { minLength, maxLength });
    }
    case "object":
      return objectValue(s, options);
    default:
      if (s.properties) return objectValue(s, options);
      return anyJson;
  }
}

function withoutBranches(s: Schema): Schema {
  const { anyOf: _a, oneOf: _o, ...rest } = s;
  return rest;
}

function objectValue(s: Schema, options: BuildOptions & { root: Schema }): fc.Arbitrary<unknown> {
  const properties = propertiesOf(s);
  const names = Object.keys(properties);
  const required = ((s.required as string[] | undefined) ?? []).filter((key) => names.includes(key));
  if (names.length === 0) {
    // An open map (metadata, form fields, an order passed through): small values of the map's schema, or of any
    // shape when it names none.
    if (s.additionalProperties === false) return fc.constant({});
    const values =
      typeof s.additionalProperties === "object" && s.additionalProperties !== null
        ? validValue(s.additionalProperties as Schema, options)
        : anyJson;
    return fc.dictionary(fc.string({ minLength: 1, maxLength: 12, unit: "grapheme-ascii" }), values, {
      maxKeys: Math.min((s.maxProperties as number | undefined) ?? 4, 4),
      noNullPrototype: true,
    });
  }
  const model: Record<string, fc.Arbitrary<unknown>> = {};
  for (const key of names) model[key] = validValue(properties[key]!, options, key);
  return fc.record(model, { requiredKeys: required, noNullPrototype: true });
}

/** The kinds of one change that makes a valid value invalid. */
export const MUTATIONS = ["wrong_type", "out_of_range", "too_long", "missing", "extra"] as const;
export type Mutation = (typeof MUTATIONS)[number];

/** A near-valid value: a valid one with one field changed, and which field and how. */
export interface NearValid {
  value: unknown;
  /** The changed field's path, dotted ("" for the whole value). */
  path: string;
  mutation: Mutation;
}

/** Names an extra field may take: plain unknown names and the keys that reach prototypes. */
export const EXTRA_KEYS = [
  "zz_unknown",
  "__proto__",
  "constructor",
  "prototype",
  "toString",
  "hasOwnProperty",
  "",
];

/** Values of another type than `types`. */
function otherTypeValues(types: string[]): unknown[] {
  const all: [string, unknown][] = [
    ["string", "not-the-right-type"],
    ["integer", 7],
    ["number", 1.5],
    ["boolean", true],
    ["null", null],
    ["array", [1, "two"]],
    ["object", { nested: "object" }],
  ];
  return all
    .filter(([type]) => !types.includes(type) && !(type === "integer" && types.includes("number")))
    .map(([, value]) => value);
}

/** A value out of the field's bounds (length, range, enum, item count), or undefined when it has none. */
function outOfRange(s: Schema, pick: number): unknown {
  const candidates: unknown[] = [];
  if (typeof s.maximum === "number") candidates.push(s.maximum + 1, s.maximum + 0.5);
  if (typeof s.minimum === "number") candidates.push(s.minimum - 1);
  if (typesOf(s).includes("integer")) candidates.push(2.5, 2 ** 53, -(2 ** 53), 1e21);
  if (typeof s.maxLength === "number" && s.maxLength < 100_000) candidates.push("m".repeat(s.maxLength + 1));
  if (typeof s.minLength === "number" && s.minLength > 0) candidates.push("m".repeat(s.minLength - 1));
  if (Array.isArray(s.enum)) {
    const first = String((s.enum as unknown[])[0]);
    candidates.push(
      `${first}x`,
      first.toUpperCase() === first ? first.toLowerCase() : first.toUpperCase(),
      "",
    );
  }
  if ("const" in s) candidates.push(`${String(s.const)}-not`);
  if (typeof s.pattern === "string" || typeof s.format === "string") candidates.push("#not matching#", " ");
  if (typeof s.maxItems === "number") candidates.push(Array.from({ length: s.maxItems + 1 }, () => ({})));
  if (typeof s.maxProperties === "number") {
    candidates.push(
      Object.fromEntries(Array.from({ length: s.maxProperties + 1 }, (_, i) => [`k${i}`, "v"])),
    );
  }
  if (typeof s.minItems === "number" && s.minItems > 0) candidates.push([]);
  if (candidates.length === 0) return undefined;
  return candidates[pick % candidates.length];
}

interface Slot {
  /** The object holding the field (or the array holding the item); undefined for the root value. */
  parent: Record<string, unknown> | unknown[] | undefined;
  key: string | number | undefined;
  schema: Schema;
  path: string;
  required: boolean;
}

/** Every field of `value` the schema describes, with its schema, present or absent (absent ones can be missing). */
function slotsOf(value: unknown, schema: Schema, root: Schema, path: string, out: Slot[], depth = 0): void {
  if (depth > 12) return;
  const s = deref(schema, root);
  const branches = branchesOf(s);
  if (branches) {
    // The branch the value fits best: the first whose type matches.
    const branch = branches.map((b) => deref(b, root)).find((b) => matchesType(value, b));
    if (branch) slotsOf(value, { ...withoutBranches(s), ...branch }, root, path, out, depth + 1);
    return;
  }
  if (Array.isArray(value)) {
    const items = (s.items as Schema | undefined) ?? {};
    value.forEach((item, index) => {
      const itemPath = `${path}[${index}]`;
      out.push({ parent: value, key: index, schema: deref(items, root), path: itemPath, required: true });
      slotsOf(item, items, root, itemPath, out, depth + 1);
    });
    return;
  }
  if (typeof value === "object" && value !== null) {
    const object = value as Record<string, unknown>;
    const properties = propertiesOf(s);
    const required = new Set((s.required as string[] | undefined) ?? []);
    for (const [key, propertySchema] of Object.entries(properties)) {
      const fieldPath = path === "" ? key : `${path}.${key}`;
      if (!Object.hasOwn(object, key) && !required.has(key)) continue;
      out.push({
        parent: object,
        key,
        schema: deref(propertySchema, root),
        path: fieldPath,
        required: required.has(key),
      });
      if (Object.hasOwn(object, key)) slotsOf(object[key], propertySchema, root, fieldPath, out, depth + 1);
    }
  }
}

function matchesType(value: unknown, s: Schema): boolean {
  const types = typesOf(s);
  if ("const" in s) return value === s.const;
  if (types.length === 0) return true;
  return types.some((type) => {
    switch (type) {
      case "string":
        return typeof value === "string";
      case "integer":
        return Number.isInteger(value);
      case "number":
        return typeof value === "number";
      case "boolean":
        return typeof value === "boolean";
      case "null":
        return value === null;
      case "array":
        return Array.isArray(value);
      case "object":
        return typeof value === "object" && value !== null && !Array.isArray(value);
      default:
        return false;
    }
  });
}

function clone(value: unknown): unknown {
  return value === undefined ? undefined : JSON.parse(JSON.stringify(value));
}

/**
 * Changes one field of a valid value: the `pick`-th field the schema describes is given a value of another type,
 * a value out of its bounds, a string past its maxLength (or a long one), left out, or joined by an extra field
 * (also `__proto__` and `constructor`, set as own data).
 */
export function mutate(
  value: unknown,
  schema: Schema,
  root: Schema,
  mutation: Mutation,
  pick: number,
  keepRoot = false,
): NearValid {
  const copy = clone(value);
  const slots: Slot[] = keepRoot
    ? []
    : [{ parent: undefined, key: undefined, schema: deref(schema, root), path: "", required: true }];
  slotsOf(copy, schema, root, "", slots);
  if (slots.length === 0 && mutation !== "extra" && mutation !== "missing")
    return mutate(value, schema, root, "extra", pick, keepRoot);
  const set = (slot: Slot, next: unknown): unknown => {
    if (slot.parent === undefined) return next;
    if (Array.isArray(slot.parent)) slot.parent[slot.key as number] = next;
    else
      Object.defineProperty(slot.parent, slot.key as string, {
        value: next,
        enumerable: true,
        writable: true,
        configurable: true,
      });
    return copy;
  };
  const fieldSlots = slots.filter((slot) => slot.parent !== undefined);
  switch (mutation) {
    case "missing": {
      const removable = fieldSlots.filter((slot) => !Array.isArray(slot.parent));
      const slot = removable[pick % Math.max(1, removable.length)];
      if (!slot) return { value: copy, path: "", mutation };
      delete (slot.parent as Record<string, unknown>)[slot.key as string];
      return { value: copy, path: slot.path, mutation };
    }
    case "extra": {
      const objects = slots.filter((slot) => {
        const v =
          slot.parent === undefined ? copy : (slot.parent as Record<string, unknown>)[slot.key as string];
        return typeof v === "object" && v !== null && !Array.isArray(v);
      });
      const slot = objects[pick % Math.max(1, objects.length)];
      const key = EXTRA_KEYS[pick % EXTRA_KEYS.length]!;
      const target = (
        slot === undefined || slot.parent === undefined
          ? copy
          : (slot.parent as Record<string, unknown>)[slot.key as string]
      ) as Record<string, unknown> | undefined;
      if (typeof target !== "object" || target === null)
        return { value: { [key]: copy }, path: key, mutation };
      Object.defineProperty(target, key, {
        value: key === "__proto__" ? { polluted: true } : "extra",
        enumerable: true,
        writable: true,
        configurable: true,
      });
      const base = slot?.path ?? "";
      return { value: copy, path: base === "" ? key : `${base}.${key}`, mutation };
    }
    case "wrong_type": {
      const slot = slots[pick % slots.length]!;
      const others = otherTypeValues(typesOf(slot.schema).length > 0 ? typesOf(slot.schema) : ["string"]);
      return { value: set(slot, others[pick % others.length]), path: slot.path, mutation };
    }
    case "too_long": {
      const strings = fieldSlots.filter(
        (slot) => typesOf(slot.schema).includes("string") || branchesOf(slot.schema),
      );
      const slot = strings[pick % Math.max(1, strings.length)] ?? slots[0];
      if (!slot) return mutate(value, schema, root, "extra", pick, keepRoot);
      const max = slot.schema.maxLength as number | undefined;
      const length = max !== undefined && max < 200_000 ? max + 1 + (pick % 3) : 5_000;
      return { value: set(slot, "ł".repeat(length)), path: slot.path, mutation };
    }
    case "out_of_range": {
      const bounded = slots.filter((slot) => outOfRange(slot.schema, 0) !== undefined);
      const slot = bounded[pick % Math.max(1, bounded.length)];
      if (!slot)
        return mutate(value, schema, root, slots.length > 0 ? "wrong_type" : "extra", pick, keepRoot);
      return { value: set(slot, outOfRange(slot.schema, pick)), path: slot.path, mutation };
    }
  }
}

/**
 * Near-valid values of the schema: a valid value (from `valid`) with one field changed. With `keepRoot`, the value
 * itself keeps its type (an object stays an object): only its fields change.
 */
export function nearValidValue(
  schema: Schema,
  valid: fc.Arbitrary<unknown>,
  root: Schema = schema,
  keepRoot = false,
): fc.Arbitrary<NearValid> {
  return fc
    .tuple(valid, fc.constantFrom(...MUTATIONS), fc.nat())
    .map(([value, mutation, pick]) => mutate(value, schema, root, mutation, pick, keepRoot));
}

/** Every property name the schema (and the schemas it refers to) describes, at any depth. */
export function fieldNames(
  schema: Schema,
  root: Schema = schema,
  into = new Set<string>(),
  seen = new Set<unknown>(),
): Set<string> {
  if (seen.has(schema)) return into;
  seen.add(schema);
  const s = deref(schema, root);
  for (const [key, value] of Object.entries(propertiesOf(s))) {
    into.add(key);
    fieldNames(value, root, into, seen);
  }
  for (const keyword of ["anyOf", "oneOf", "allOf"]) {
    for (const branch of (s[keyword] as Schema[] | undefined) ?? []) fieldNames(branch, root, into, seen);
  }
  if (typeof s.items === "object" && s.items !== null) fieldNames(s.items as Schema, root, into, seen);
  if (typeof s.additionalProperties === "object" && s.additionalProperties !== null) {
    fieldNames(s.additionalProperties as Schema, root, into, seen);
  }
  return into;
}
