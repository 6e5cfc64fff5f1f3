import type { FormsError } from "@mailpiece/forms";
import type { PostcardError } from "@mailpiece/postcard";
import type { TypesetterError } from "@mailpiece/typesetter";

/**
 * An error thrown by an engine in a worker, as plain data that crosses a thread (structured clone keeps neither an
 * error's class nor its own fields).
 */
export type WireError =
  | { kind: "typesetter"; code: TypesetterError["code"]; message: string; field?: string }
  | { kind: "postcard"; code: PostcardError["code"]; message: string; field?: string }
  | { kind: "forms"; code: FormsError["code"]; message: string; issues: FormsError["issues"][number][] }
  | { kind: "other"; message: string };

/**
 * The error classes of the engines a worker has loaded. A thread loads an engine only when a job needs it, and an
 * error can only come from a loaded engine, so the classes are passed in rather than imported here.
 */
export interface EngineErrorClasses {
  TypesetterError?: Pick<typeof TypesetterError, "isInstance">;
  PostcardError?: Pick<typeof PostcardError, "isInstance">;
  FormsError?: Pick<typeof FormsError, "isInstance">;
}

/** Turns an error thrown by an engine into plain data. Anything but an engine error keeps only its message. */
export function toWireError(error: unknown, engines: EngineErrorClasses): WireError {
  if (engines.TypesetterError?.isInstance(error)) {
    return withField({ kind: "typesetter", code: error.code, message: error.message }, error.field);
  }
  if (engines.PostcardError?.isInstance(error)) {
    return withField({ kind: "postcard", code: error.code, message: error.message }, error.field);
  }
  if (engines.FormsError?.isInstance(error)) {
    const issues = error.issues.map((issue) => ({
      path: issue.path,
      code: issue.code,
      message: issue.message,
    }));
    return { kind: "forms", code: error.code, message: error.message, issues };
  }
  const message = error instanceof Error ? error.message : String(error);
  return { kind: "other", message };
}

function withField<T extends { message: string }>(
  wire: T,
  field: string | undefined,
): T & { field?: string } {
  return field === undefined ? wire : { ...wire, field };
}
