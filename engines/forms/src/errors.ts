import { defineError } from "@mailpiece/errors";

/**
 * Stable error codes of the forms engine. Apps map them to HTTP in one place.
 * - `invalid_workflow`: a workflow definition does not follow the definition format; `issues` say where.
 * - `invalid_query`: a catalogue query has a bad `limit` or `cursor` (HTTP 400).
 * - `invalid_options`: the options of a call are malformed (an unknown stage, a `today` that is not a date, a
 *   workflow that compares dates with today but was given neither `today` nor `clock`).
 * - `form_invalid`: `buildPacket` was given answers that `evaluateForm` refuses; `issues` lists every problem.
 * - `attachment_unreadable`: an attached PDF or image passed the checks but cannot be read or is encrypted.
 * - `packet_unprintable`: the letter cannot be typeset (characters no font has, an address too long for its
 *   window, a drawn signature that is not a readable image); `issues` carry the typesetter's code.
 *
 * `issues` are form issues (`FormIssue`): every problem found, each with the path at fault; empty when the message
 * says it all.
 */
export type FormsErrorCode =
  | "invalid_workflow"
  | "invalid_query"
  | "invalid_options"
  | "form_invalid"
  | "attachment_unreadable"
  | "packet_unprintable";

/** The one error class of the forms package. `code` is a stable wire contract; `message` is for people. */
export class FormsError extends defineError<FormsErrorCode>("FormsError") {}
