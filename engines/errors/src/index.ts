export type { ErrorClass, ErrorOptions, MailpieceError } from "./define-error.ts";
export { defineError, isMailpieceError } from "./define-error.ts";
export type { Issue } from "./issue.ts";
