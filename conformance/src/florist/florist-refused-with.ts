import { strict as assert } from "node:assert";
import { FloristError, type FloristErrorCode } from "@mailpiece/ports";

/**
 * Runs `action` (a synchronous throw counts) and asserts that it fails with a `FloristError` of `code`, and, when
 * `field` is given, that the error names that field. Returns the error for further checks.
 */
export async function floristRefusedWith(
  action: () => unknown,
  code: FloristErrorCode,
  what: string,
  field?: string,
): Promise<FloristError> {
  let outcome: unknown;
  try {
    outcome = await Promise.resolve().then(action);
  } catch (error) {
    if (!FloristError.isInstance(error)) {
      const detail = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
      assert.fail(`${what}: expected a FloristError with code ${code}, got ${detail}`);
    }
    assert.equal(error.code, code, `${what}: expected code ${code}, got ${error.code} (${error.message})`);
    if (field !== undefined) {
      assert.equal(error.field, field, `${what}: the error names the field at fault`);
    }
    return error;
  }
  assert.fail(`${what}: expected a FloristError with code ${code}, but it succeeded with ${show(outcome)}`);
}

function show(value: unknown): string {
  try {
    const text = JSON.stringify(value);
    return text === undefined ? String(value) : text.length > 200 ? `${text.slice(0, 200)}…` : text;
  } catch {
    return String(value);
  }
}
