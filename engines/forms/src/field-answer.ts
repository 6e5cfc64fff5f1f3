import type { AddressAnswer } from "./address.ts";
import { checkAddress } from "./address.ts";
import { isCalendarDate } from "./dates.ts";
import type { FormIssue } from "./issues.ts";
import { formatPhone, parsePhone } from "./phone.ts";
import type { SignatureAnswer } from "./signature.ts";
import { checkSignature } from "./signature.ts";
import { charCount, isBlank, normaliseText } from "./text.ts";
import { isEmail, parseCurrency } from "./text-classes.ts";
import type { WorkflowField } from "./workflow.ts";
import { maxLength } from "./workflow.ts";

/** The value of an answer that passed its field's rules. */
export type AnswerValue = string | true | AddressAnswer | SignatureAnswer;

/** Whether a raw value answers a field, and if so whether it is valid. */
export type AnswerCheck =
  | { status: "absent" }
  | { status: "invalid"; issues: FormIssue[] }
  | { status: "valid"; value: AnswerValue };

const ABSENT: AnswerCheck = { status: "absent" };

function invalid(path: string, code: string, message: string): AnswerCheck {
  return { status: "invalid", issues: [{ path, code, message }] };
}

/** What an answer is checked against besides its field. */
export interface AnswerContext {
  /** Today (YYYY-MM-DD), for `not_in_future` and `not_in_past` dates; without it they are not compared. */
  today?: string;
  /** The ISO country national phone numbers are read in; default US. */
  phoneCountry?: string;
}

/**
 * Checks one raw answer against its field. Not answers (`absent`): undefined, null, empty and whitespace-only
 * strings, an unchecked box (false), an address with every part blank, a signature without text or image.
 * A valid phone answer is returned in E.164 (with " ext. 12" when it has an extension).
 */
export function checkAnswer(
  field: WorkflowField,
  raw: unknown,
  path: string,
  context: AnswerContext = {},
): AnswerCheck {
  const { today } = context;
  if (raw === undefined || raw === null) return ABSENT;
  switch (field.type) {
    case "checkbox":
      if (typeof raw !== "boolean")
        return invalid(path, "invalid_type", `${field.id} must be true or false.`);
      return raw ? { status: "valid", value: true } : ABSENT;
    case "address":
      return checkAddress(raw, path);
    case "signature":
      return checkSignature(raw, path);
    case "select":
      if (typeof raw !== "string") return invalid(path, "invalid_type", `${field.id} must be a string.`);
      if (isBlank(raw)) return ABSENT;
      if (!(field.choices ?? []).includes(raw)) {
        return invalid(
          path,
          "invalid_choice",
          `${field.id} must be exactly one of: ${(field.choices ?? []).map((c) => JSON.stringify(c)).join(", ")}.`,
        );
      }
      return { status: "valid", value: raw };
    case "date":
      if (typeof raw !== "string") return invalid(path, "invalid_type", `${field.id} must be a string.`);
      if (isBlank(raw)) return ABSENT;
      if (!isCalendarDate(raw)) {
        return invalid(path, "invalid_date", `${field.id} must be a calendar date written YYYY-MM-DD.`);
      }
      if (field.not_in_future === true && today !== undefined && raw > today) {
        return invalid(path, "date_in_future", `${field.id} must be today (${today}) or earlier.`);
      }
      if (field.not_in_past === true && today !== undefined && raw < today) {
        return invalid(
          path,
          "date_in_past",
          `${field.id} (${raw}) has passed: it must be today (${today}) or later.`,
        );
      }
      return { status: "valid", value: raw };
    case "text":
    case "textarea":
      return checkText(field, raw, path, context.phoneCountry);
  }
}

function checkText(field: WorkflowField, raw: unknown, path: string, phoneCountry?: string): AnswerCheck {
  if (typeof raw !== "string") return invalid(path, "invalid_type", `${field.id} must be a string.`);
  const text = normaliseText(raw);
  if (text === "") return ABSENT;
  const length = charCount(text);
  if (field.min_length !== undefined && length < field.min_length) {
    return invalid(
      path,
      "too_short",
      field.min_length === field.max_length
        ? `${field.id} must be exactly ${field.min_length} characters.`
        : `${field.id} must be at least ${field.min_length} characters (it has ${length}).`,
    );
  }
  const max = maxLength(field);
  if (length > max) {
    return invalid(
      path,
      "too_long",
      field.min_length === max
        ? `${field.id} must be exactly ${max} characters.`
        : `${field.id} must be at most ${max} characters (it has ${length}).`,
    );
  }
  if (field.type === "text" && text.includes("\n")) {
    return invalid(path, "invalid_format", `${field.id} must be a single line.`);
  }
  switch (field.text_class) {
    case "phone": {
      const phone = parsePhone(text, phoneCountry);
      if (phone === undefined) {
        return invalid(
          path,
          "invalid_phone",
          `${field.id} must be a phone number with its area code, such as (217) 555-0142, or in international format, such as +44 20 7946 0958.`,
        );
      }
      return { status: "valid", value: formatPhone(phone) };
    }
    case "email":
      if (!isEmail(text)) return invalid(path, "invalid_email", `${field.id} must be an email address.`);
      break;
    case "currency":
      if (parseCurrency(text) === undefined) {
        return invalid(
          path,
          "invalid_currency",
          `${field.id} must be a positive US dollar amount such as 1234.56 or $1,234.56.`,
        );
      }
      break;
    case undefined:
      break;
  }
  if (field.pattern !== undefined && !new RegExp(field.pattern, "u").test(text)) {
    return invalid(
      path,
      "invalid_format",
      `${field.id} must be ${field.pattern_description ?? `text matching ${field.pattern}`}.`,
    );
  }
  return { status: "valid", value: text };
}
