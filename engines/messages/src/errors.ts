import { defineError, type Issue } from "@mailpiece/errors";

/**
 * Stable codes of MessagesError.
 * - `invalid_input`: the input of a message cannot be rendered. `issues` lists every problem found, each with
 *   the path of the field (`line_items.2.amount_cents`, `payment.paid_at`) and a stable issue code
 *   (`MESSAGE_ISSUE_CODES`).
 */
export type MessagesErrorCode = "invalid_input";

/**
 * The codes of the issues of an `invalid_input` error. A stable wire contract: a code is never renamed or reused.
 * - `required`: a field is missing (or undefined).
 * - `invalid_type`: a field has the wrong JSON type (a number for a string, an array for an object).
 * - `too_short`: a string is blank, or a list has fewer entries than it must.
 * - `too_long`: a string or a list is longer than `MESSAGE_LIMITS` allows.
 * - `invalid_enum`: a value outside its list (a status, a rail, a kind, a currency).
 * - `invalid_format`: an id with spaces or control characters, a time that is not ISO 8601 with a zone, a
 *   filename with `/` or `\`.
 * - `invalid_amount`: an amount that is not a whole, non-negative, safe number of cents.
 * - `out_of_range`: a count outside its range (a campaign of 0 pieces).
 * - `total_mismatch`: the line items do not add up to `total_cents`.
 * - `unknown_field`: a field the message does not know (nothing beyond the documented fields is ever printed).
 */
export const MESSAGE_ISSUE_CODES = [
  "required",
  "invalid_type",
  "too_short",
  "too_long",
  "invalid_enum",
  "invalid_format",
  "invalid_amount",
  "out_of_range",
  "total_mismatch",
  "unknown_field",
] as const;

export type MessageIssueCode = (typeof MESSAGE_ISSUE_CODES)[number];

/** One problem of a message's input; its `message` never repeats the value given. */
export interface MessageIssue extends Issue {
  code: MessageIssueCode;
}

/** The one error class of the messages package. `code` is a stable wire contract; `message` is for people. */
export class MessagesError extends defineError<MessagesErrorCode>("MessagesError") {}
