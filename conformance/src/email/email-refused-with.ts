import { strict as assert } from "node:assert";
import { inspect } from "node:util";
import { EMAIL_ERROR_CODES, EmailError, type EmailErrorCode } from "@mailpiece/ports";

/** Secrets shorter than this are not searched for in errors: they would match by chance. */
const SECRET_MIN_LENGTH = 6;

/**
 * Runs `action` (a synchronous throw counts) and asserts that it fails with an `EmailError` of `code` that says
 * why and, when `field` is given, names that field. Returns the error for further checks.
 */
export async function emailRefusedWith(
  action: () => unknown,
  code: EmailErrorCode,
  what: string,
  field?: string,
): Promise<EmailError> {
  let outcome: unknown;
  try {
    outcome = await Promise.resolve().then(action);
  } catch (error) {
    if (!EmailError.isInstance(error)) {
      const detail = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
      assert.fail(`${what}: expected an EmailError with code ${code}, got ${detail}`);
    }
    assert.equal(error.code, code, `${what}: expected code ${code}, got ${error.code} (${error.message})`);
    assert.ok(error.message.trim().length > 0, `${what}: the error says why`);
    if (field !== undefined) {
      assert.equal(error.field, field, `${what}: the error names the field at fault (${error.message})`);
    }
    return error;
  }
  assert.fail(`${what}: expected an EmailError with code ${code}, but it answered ${show(outcome)}`);
}

/**
 * Asserts that `error` is a well-formed `EmailError` (a code of the port, a message that says why) and that none of
 * `secrets` appears anywhere in it: message, stack, own properties, hidden ones included, or causes.
 */
export function assertSafeEmailError(error: unknown, secrets: readonly string[], what: string): void {
  assert.ok(EmailError.isInstance(error), `${what}: the failure is an EmailError, got ${String(error)}`);
  assert.ok(EMAIL_ERROR_CODES.includes(error.code), `${what}: ${error.code} is a code of the port`);
  assert.ok(error.message.trim().length > 0, `${what}: ${error.code} says why`);
  const everything = `${inspect(error, { depth: 8, showHidden: true })}\n${String(error.stack)}`;
  for (const secret of secrets) {
    if (secret.length < SECRET_MIN_LENGTH) continue;
    assert.ok(!everything.includes(secret), `${what}: the ${error.code} error carries a secret`);
  }
}

export function show(value: unknown): string {
  try {
    const text = JSON.stringify(value);
    return text === undefined ? String(value) : text.length > 200 ? `${text.slice(0, 200)}…` : text;
  } catch {
    return String(value);
  }
}
