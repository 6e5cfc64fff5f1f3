import { strict as assert } from "node:assert";
import type { PortErrorCode } from "@mailpiece/ports";
import { PortError } from "@mailpiece/ports";

/**
 * Runs `action` and asserts that it fails with a `PortError` of `code`. Returns the error for further checks.
 * `action` is called inside a promise chain, so a synchronous throw counts as a rejection.
 */
export async function rejectsWithCode(
  action: () => unknown,
  code: PortErrorCode,
  what: string,
): Promise<PortError> {
  let outcome: unknown;
  try {
    outcome = await Promise.resolve().then(action);
  } catch (error) {
    if (!PortError.isInstance(error)) {
      const detail = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
      assert.fail(`${what}: expected a PortError with code ${code}, got ${detail}`);
    }
    assert.equal(error.code, code, `${what}: expected code ${code}, got ${error.code} (${error.message})`);
    return error;
  }
  assert.fail(`${what}: expected a PortError with code ${code}, but it succeeded with ${describe(outcome)}`);
}

function describe(value: unknown): string {
  try {
    const text = JSON.stringify(value);
    return text === undefined ? String(value) : text.length > 200 ? `${text.slice(0, 200)}…` : text;
  } catch {
    return String(value);
  }
}
