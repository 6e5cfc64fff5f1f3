/**
 * Serialises a Store value to JSON, refusing anything JSON would lose or change silently: functions, symbols,
 * bigints, cycles, non-finite numbers, `undefined` at the top level or in an array, and objects that are neither
 * plain objects nor arrays (a Map would become `{}`). `toJSON` is honoured, so a Date becomes its ISO string.
 * Returns the JSON text, or the reason the value is refused.
 */
export function serialiseJson(value: unknown): { ok: true; json: string } | { ok: false; reason: string } {
  let reason: string | undefined;
  const refuse = (why: string, key: string): undefined => {
    reason ??= key === "" ? why : `${why} at ${JSON.stringify(key)}`;
    return undefined;
  };
  let json: string | undefined;
  try {
    json = JSON.stringify(value, function replacer(this: unknown, key: string, item: unknown) {
      if (reason !== undefined) return undefined;
      switch (typeof item) {
        case "function":
        case "symbol":
        case "bigint":
          return refuse(`a ${typeof item}`, key);
        case "number":
          return Number.isFinite(item) ? item : refuse(`the number ${item}`, key);
        case "undefined":
          return Array.isArray(this) ? refuse("undefined in an array", key) : undefined;
        case "object": {
          if (item === null || Array.isArray(item)) return item;
          const proto = Object.getPrototypeOf(item);
          if (proto === Object.prototype || proto === null) return item;
          return refuse(`an instance of ${(item as object).constructor?.name ?? "a class"}`, key);
        }
        default:
          return item;
      }
    });
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return { ok: false, reason: /circular/i.test(message) ? "a cycle" : message };
  }
  if (reason !== undefined) return { ok: false, reason };
  if (json === undefined)
    return { ok: false, reason: value === undefined ? "undefined" : `a ${typeof value}` };
  return { ok: true, json };
}
