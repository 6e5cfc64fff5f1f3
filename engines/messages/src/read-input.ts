import { type MessageIssue, type MessageIssueCode, MessagesError } from "./errors.ts";
import { parseIsoTime } from "./format-time.ts";
import { hasControl, oneLine } from "./plain-text.ts";

export type Fields = Record<string, unknown>;

/** Options of a string field. */
export interface TextRule {
  /** The most UTF-16 units the value may have once on one line. */
  max: number;
  /** No spaces or control characters at all (an id): `invalid_format` otherwise. */
  token?: boolean;
}

/** The path of `key` under `base`: `payment.rail`, `line_items.2.label`, or `key` at the top. */
export function pathOf(base: string, key: string | number): string {
  return base === "" ? String(key) : `${base}.${key}`;
}

/**
 * Reads the fields of a message's input, collecting every problem as an issue with the field's path. A reader
 * method answers the value when it is good and undefined otherwise (the problem recorded); `finish` then throws
 * MessagesError `invalid_input` listing every issue, or does nothing. Issue messages name the field and the rule,
 * never the value given.
 */
export class InputReader {
  readonly issues: MessageIssue[] = [];

  add(path: string, code: MessageIssueCode, message: string): undefined {
    this.issues.push({ path, code, message });
    return undefined;
  }

  /** `value` as an object of the given fields only; `unknown_field` for any other field. */
  object(value: unknown, path: string, known: readonly string[]): Fields | undefined {
    if (typeof value !== "object" || value === null || Array.isArray(value)) {
      return this.add(
        path,
        value === undefined ? "required" : "invalid_type",
        `${name(path)} must be an object.`,
      );
    }
    const fields = value as Fields;
    for (const key of Object.keys(fields)) {
      if (!known.includes(key)) {
        this.add(pathOf(path, key), "unknown_field", `${pathOf(path, key)} is not a field of ${name(path)}.`);
      }
    }
    return fields;
  }

  /** A required string, put on one line (`oneLine`), not blank, at most `rule.max` long. */
  text(fields: Fields, key: string, base: string, rule: TextRule): string | undefined {
    const path = pathOf(base, key);
    const value = fields[key];
    if (value === undefined) return this.add(path, "required", `${path} is required.`);
    return this.textValue(value, path, rule);
  }

  /** A string as `text` does, or absent (undefined) or null: both answer null. */
  optionalText(fields: Fields, key: string, base: string, rule: TextRule): string | null | undefined {
    const value = fields[key];
    if (value === undefined || value === null) return null;
    return this.textValue(value, pathOf(base, key), rule);
  }

  textValue(value: unknown, path: string, rule: TextRule): string | undefined {
    if (typeof value !== "string") return this.add(path, "invalid_type", `${path} must be a string.`);
    const line = oneLine(value);
    if (line === "") return this.add(path, "too_short", `${path} must not be empty or blank.`);
    if (line.length > rule.max) {
      return this.add(path, "too_long", `${path} must be at most ${rule.max} characters.`);
    }
    if (rule.token && (/\s/.test(value) || hasControl(value))) {
      return this.add(path, "invalid_format", `${path} must not contain spaces or control characters.`);
    }
    return line;
  }

  /** A required whole, non-negative, safe number of cents. */
  cents(fields: Fields, key: string, base: string): number | undefined {
    const path = pathOf(base, key);
    const value = fields[key];
    if (value === undefined) return this.add(path, "required", `${path} is required.`);
    if (typeof value !== "number")
      return this.add(path, "invalid_type", `${path} must be a number of cents.`);
    if (!Number.isSafeInteger(value) || value < 0) {
      return this.add(path, "invalid_amount", `${path} must be a whole, non-negative number of cents.`);
    }
    return value;
  }

  /** A required whole number from `min` to `max`. */
  count(fields: Fields, key: string, base: string, min: number, max: number): number | undefined {
    const path = pathOf(base, key);
    const value = fields[key];
    if (value === undefined) return this.add(path, "required", `${path} is required.`);
    if (typeof value !== "number") return this.add(path, "invalid_type", `${path} must be a number.`);
    if (!Number.isSafeInteger(value) || value < min || value > max) {
      return this.add(path, "out_of_range", `${path} must be a whole number from ${min} to ${max}.`);
    }
    return value;
  }

  /** A required value of `values`. */
  oneOf<T extends string>(fields: Fields, key: string, base: string, values: readonly T[]): T | undefined {
    const path = pathOf(base, key);
    const value = fields[key];
    if (value === undefined) return this.add(path, "required", `${path} is required.`);
    if (typeof value !== "string") return this.add(path, "invalid_type", `${path} must be a string.`);
    if (!(values as readonly string[]).includes(value)) {
      return this.add(path, "invalid_enum", `${path} must be one of ${values.join(", ")}.`);
    }
    return value as T;
  }

  /** A required ISO 8601 date-time with a zone, as milliseconds since the epoch. */
  time(fields: Fields, key: string, base: string): number | undefined {
    const path = pathOf(base, key);
    const value = fields[key];
    if (value === undefined) return this.add(path, "required", `${path} is required.`);
    if (typeof value !== "string") return this.add(path, "invalid_type", `${path} must be a string.`);
    const at = parseIsoTime(value);
    if (at === undefined) {
      return this.add(path, "invalid_format", `${path} must be an ISO 8601 date-time with a zone.`);
    }
    return at;
  }

  /** An optional boolean; absent is false. */
  flag(fields: Fields, key: string, base: string): boolean {
    const value = fields[key];
    if (value === undefined) return false;
    if (typeof value !== "boolean") {
      this.add(pathOf(base, key), "invalid_type", `${pathOf(base, key)} must be true or false.`);
      return false;
    }
    return value;
  }

  /** A required list of `min` to `max` entries (each read by the caller). */
  list(fields: Fields, key: string, base: string, min: number, max: number): unknown[] | undefined {
    const path = pathOf(base, key);
    const value = fields[key];
    if (value === undefined) return this.add(path, "required", `${path} is required.`);
    if (!Array.isArray(value)) return this.add(path, "invalid_type", `${path} must be a list.`);
    if (value.length < min) return this.add(path, "too_short", `${path} must have at least ${min} entries.`);
    if (value.length > max) return this.add(path, "too_long", `${path} must have at most ${max} entries.`);
    return value;
  }

  /** Throws MessagesError `invalid_input` with every issue found, when there is one. */
  finish(what: string): void {
    const first = this.issues[0];
    if (first === undefined) return;
    const more = this.issues.length > 1 ? ` (and ${this.issues.length - 1} more)` : "";
    throw new MessagesError("invalid_input", `The ${what} cannot be rendered: ${first.message}${more}`, {
      issues: this.issues,
    });
  }
}

function name(path: string): string {
  return path === "" ? "the input" : path;
}
