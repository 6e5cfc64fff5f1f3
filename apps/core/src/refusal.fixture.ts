import { CoreError } from "./errors.ts";

/** The CoreError a use case threw; fails the test when it returned instead, or threw anything else. */
export async function refusalOf(call: Promise<unknown>): Promise<CoreError> {
  try {
    await call;
  } catch (error) {
    if (CoreError.isInstance(error)) return error;
    throw error;
  }
  throw new Error("expected the use case to refuse with a CoreError, but it returned");
}
