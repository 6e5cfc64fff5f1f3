import { IdempotencyError } from "./errors.ts";

/**
 * Canonical JSON: object keys sorted by UTF-16 code units, no whitespace, `undefined` members dropped — the same
 * value always gives the same text (the shape of RFC 8785 for the values Mailpiece hashes). Throws
 * IdempotencyError("value_not_serialisable") for a non-finite number, a bigint, a function or a symbol.
 */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== "object") {
    if (typeof value === "number" && !Number.isFinite(value)) {
      throw new IdempotencyError("value_not_serialisable", "A non-finite number cannot be serialised.");
    }
    if (typeof value === "bigint" || typeof value === "function" || typeof value === "symbol") {
      throw new IdempotencyError("value_not_serialisable", `A ${typeof value} cannot be serialised.`);
    }
    return JSON.stringify(value) ?? "null";
  }
  if (Array.isArray(value))
    return `[${value.map((v) => (v === undefined ? "null" : canonicalJson(v))).join(",")}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(",")}}`;
}
