import { strict as assert } from "node:assert";
import { AddressError, type AddressErrorCode } from "@mailpiece/ports";

/** Every code of the port's AddressErrorCode. */
const ADDRESS_ERROR_CODES: readonly string[] = [
  "invalid_query",
  "unknown_container",
  "provider_unavailable",
] satisfies AddressErrorCode[];

/**
 * Runs `action` (a synchronous throw counts) and asserts that it fails with an `AddressError` of `code` that says
 * why, and, when `field` is given, names that field. Returns the error for further checks.
 */
export async function addressRefusedWith(
  action: () => unknown,
  code: AddressErrorCode,
  what: string,
  field?: string,
): Promise<AddressError> {
  let outcome: unknown;
  try {
    outcome = await Promise.resolve().then(action);
  } catch (error) {
    if (!AddressError.isInstance(error)) {
      const detail = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
      assert.fail(`${what}: expected an AddressError with code ${code}, got ${detail}`);
    }
    assert.ok(ADDRESS_ERROR_CODES.includes(error.code), `${what}: ${error.code} is a code of the port`);
    assert.equal(error.code, code, `${what}: expected code ${code}, got ${error.code} (${error.message})`);
    assert.ok(error.message.trim().length > 0, `${what}: the error says why`);
    if (field !== undefined) {
      const named = error.field;
      assert.equal(named, field, `${what}: the error names the field at fault in field`);
    }
    return error as AddressError;
  }
  const shown = JSON.stringify(outcome) ?? String(outcome);
  assert.fail(`${what}: expected an AddressError with code ${code}, but it answered ${shown.slice(0, 200)}`);
}
