import { expect } from "vitest";
import { FetchError, type FetchErrorCode } from "./errors.ts";

/** The FetchError a call was refused with; the test fails unless it is one with `code`. */
export async function refusal(promise: Promise<unknown>, code: FetchErrorCode): Promise<FetchError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(FetchError.isInstance(error) && error.code, String(error)).toBe(code);
  return error as FetchError;
}
