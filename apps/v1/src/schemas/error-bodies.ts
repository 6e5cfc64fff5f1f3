import type { TSchema } from "typebox";
import Type from "typebox";
import type { V1ErrorCode } from "../errors.ts";
import { STATUS_TABLE } from "../errors.ts";
import { CLOSED, ref } from "./component.ts";

/** Every status an error of the Projects API has, ascending. */
export const ERROR_STATUSES: readonly number[] = [
  ...new Set(Object.values(STATUS_TABLE).map((row) => row.status)),
].sort((a, b) => a - b);

/** The codes that have `status`, in the order of the status table. */
export const codesWithStatus = (status: number): V1ErrorCode[] =>
  (Object.keys(STATUS_TABLE) as V1ErrorCode[]).filter((code) => STATUS_TABLE[code].status === status);

export const Issue = Type.Object(
  {
    path: Type.String({
      description:
        'Dotted path of the field at fault ("recipient.postal_code", "permissions.1"); "" for the body.',
    }),
    code: Type.String({
      pattern: "^[a-z][a-z0-9_]*$",
      description: "Stable snake_case code of the problem.",
    }),
    message: Type.String({ description: "What to change, for people. May change between versions." }),
  },
  { ...CLOSED, description: "One problem of a request." },
);

/** The error body of `codes`; with retry_after_seconds required when the codes are all rate_limited. */
function errorBody(codes: readonly V1ErrorCode[], description: string): TSchema {
  const limited = codes.length > 0 && codes.every((code) => code === "rate_limited");
  const retryAfter = Type.Integer({ minimum: 1, description: "Whole seconds to wait, as in Retry-After." });
  return Type.Object(
    {
      error: Type.Unsafe<V1ErrorCode>({
        type: "string",
        enum: [...codes],
        description: `Stable error code: ${codes.join(", ")}.`,
      }),
      message: Type.String({
        description: "What went wrong and what to do, for people. Never repeats a key.",
      }),
      issues: Type.Optional(
        Type.Array(ref("Issue"), { description: "Every problem found, each at the path of its field." }),
      ),
      retry_after_seconds: limited ? retryAfter : Type.Optional(retryAfter),
    },
    { ...CLOSED, description },
  );
}

/** The name (without the prefix) of the error body of one status. */
export const errorBodyName = (status: number) => `Error${status}`;

/** The error components: `Error` (any code) and one body per status, whose code is one of that status's codes. */
export const ERROR_SCHEMAS: Record<string, TSchema> = {
  Issue,
  Error: errorBody(
    Object.keys(STATUS_TABLE) as V1ErrorCode[],
    "Every failure of the Projects API: a stable code, a sentence for people and the issues found, field by field.",
  ),
  ...Object.fromEntries(
    ERROR_STATUSES.map((status) => [
      errorBodyName(status),
      errorBody(codesWithStatus(status), `A failure answered with status ${status}.`),
    ]),
  ),
};
