import Type, { type Static } from "typebox";
import { ISSUE_CODES } from "./issues.ts";

/** One problem (or warning) of an order request, as it goes over the wire. */
export const ValidationIssue = Type.Object(
  {
    path: Type.String({
      description:
        'Dotted JSON path of the field at fault, arrays with [i]: "recipient_address_manual.state", "form.attachments[0].base64"; "" for the body itself.',
    }),
    code: Type.String({
      pattern: "^[a-z][a-z0-9_]*$",
      description: `Stable snake_case code. Codes of the order rules: ${ISSUE_CODES.join(", ")}. Later checks (document, price) add their own codes.`,
    }),
    message: Type.String({
      description: "What is wrong and what to change, for people. May change between versions.",
    }),
  },
  { additionalProperties: false, title: "ValidationIssue", description: "One problem found in a request." },
);
export type ValidationIssue = Static<typeof ValidationIssue>;

/** The 422 body: every problem of the request at once. */
export const ValidationErrorBody = Type.Object(
  {
    error: Type.Literal("validation_failed", { description: "Stable error code of a failed validation." }),
    message: Type.String({ description: "A summary for people." }),
    issues: Type.Array(ValidationIssue, {
      minItems: 1,
      description: "Every problem found, each with path and code.",
    }),
  },
  {
    additionalProperties: false,
    title: "ValidationErrorBody",
    description: "Response body of 422: the request failed validation; nothing was stored or charged.",
  },
);
export type ValidationErrorBody = Static<typeof ValidationErrorBody>;

/** Builds the 422 body for a list of issues. */
export function validationErrorBody(issues: readonly ValidationIssue[]): ValidationErrorBody {
  const count = issues.length;
  return {
    error: "validation_failed",
    message: `The request has ${count} problem${count === 1 ? "" : "s"}; each issue names the field, a stable code and what to change.`,
    issues: issues.map((i) => ({ path: i.path, code: i.code, message: i.message })),
  };
}
