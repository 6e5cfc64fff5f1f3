import type { Issue } from "@mailpiece/orders";
import { requestProblems } from "./documents.ts";

/** Amounts of credits a request may name (spec 3: top-ups, refill thresholds and amounts): 100 to 100000 cents. */
export const CREDIT_AMOUNT_BOUNDS = { min: 100, max: 100_000 } as const;

/** A request body as an object: none reads as {}; anything but an object is validation_failed. */
export function objectBody(body: unknown): Record<string, unknown> {
  if (body === undefined || body === null) return {};
  if (typeof body !== "object" || Array.isArray(body)) {
    throw requestProblems([{ path: "", code: "invalid_type", message: "The body must be a JSON object." }]);
  }
  return body as Record<string, unknown>;
}

/** An issue for each field of `body` that is not one of `allowed`. */
export function unknownFields(body: unknown, allowed: readonly string[]): Issue[] {
  if (typeof body !== "object" || body === null || Array.isArray(body)) return [];
  return Object.keys(body)
    .filter((key) => !allowed.includes(key))
    .map((key) => ({ path: key, code: "unknown_field", message: `${key} is not a field of this request.` }));
}

/** The amount in `body[field]`, or undefined with an issue pushed: required, an integer within the bounds. */
export function creditAmount(
  body: Record<string, unknown>,
  field: string,
  issues: Issue[],
): number | undefined {
  const value = body[field];
  if (value === undefined) {
    issues.push({ path: field, code: "required", message: `${field} is required.` });
    return undefined;
  }
  if (
    !Number.isSafeInteger(value) ||
    (value as number) < CREDIT_AMOUNT_BOUNDS.min ||
    (value as number) > CREDIT_AMOUNT_BOUNDS.max
  ) {
    issues.push({
      path: field,
      code: "invalid_amount",
      message: `${field} must be an integer from ${CREDIT_AMOUNT_BOUNDS.min} to ${CREDIT_AMOUNT_BOUNDS.max}.`,
    });
    return undefined;
  }
  return value as number;
}
