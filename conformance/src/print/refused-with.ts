import { strict as assert } from "node:assert";
import { PrintError, type PrintErrorCode } from "@mailpiece/ports";

/**
 * Runs `action` (a synchronous throw counts) and asserts that it fails with a `PrintError` of `code`. Returns the
 * error for further checks.
 */
export async function refusedWith(
  action: () => unknown,
  code: PrintErrorCode,
  what: string,
): Promise<PrintError> {
  let outcome: unknown;
  try {
    outcome = await Promise.resolve().then(action);
  } catch (error) {
    if (!PrintError.isInstance(error)) {
      const detail = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
      assert.fail(`${what}: expected a PrintError with code ${code}, got ${detail}`);
    }
    assert.equal(error.code, code, `${what}: expected code ${code}, got ${error.code} (${error.message})`);
    return error;
  }
  assert.fail(`${what}: expected a PrintError with code ${code}, but it succeeded with ${show(outcome)}`);
}

function show(value: unknown): string {
  try {
    const text = JSON.stringify(value);
    return text === undefined ? String(value) : text.length > 200 ? `${text.slice(0, 200)}…` : text;
  } catch {
    return String(value);
  }
}
