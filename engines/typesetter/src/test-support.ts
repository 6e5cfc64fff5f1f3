/** Test support. Not part of the package's API (excluded from the build and the published files). */
import { TypesetterError } from "./errors.ts";

/** The TypesetterError a promise rejects with; fails when it resolves or rejects with anything else. */
export async function refusal(promise: Promise<unknown>): Promise<TypesetterError> {
  try {
    await promise;
  } catch (error) {
    if (TypesetterError.isInstance(error)) return error;
    throw error;
  }
  throw new Error("expected a TypesetterError");
}
