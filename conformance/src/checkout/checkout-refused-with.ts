import { strict as assert } from "node:assert";
import { inspect } from "node:util";
import { CheckoutPaymentError, type CheckoutPaymentErrorCode } from "@mailpiece/ports";

/** Every code of `CheckoutPaymentErrorCode`; a failure with any other code breaks the port. */
export const CHECKOUT_PAYMENT_ERROR_CODES = [
  "invalid_token",
  "payment_declined",
  "requires_action",
  "invalid_request",
  "idempotency_conflict",
  "provider_unavailable",
] as const satisfies readonly CheckoutPaymentErrorCode[];

/** Tokens shorter than this are not searched for in errors: they would match by chance. */
const SECRET_MIN_LENGTH = 8;

/**
 * Runs `action` (a synchronous throw counts) and asserts that it fails with a `CheckoutPaymentError` of `code`.
 * Returns the error for further checks.
 */
export async function checkoutRefusedWith(
  action: () => unknown,
  code: CheckoutPaymentErrorCode,
  what: string,
): Promise<CheckoutPaymentError> {
  let outcome: unknown;
  try {
    outcome = await Promise.resolve().then(action);
  } catch (error) {
    if (!CheckoutPaymentError.isInstance(error)) {
      const detail = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
      assert.fail(`${what}: expected a CheckoutPaymentError with code ${code}, got ${detail}`);
    }
    assert.equal(error.code, code, `${what}: expected code ${code}, got ${error.code} (${error.message})`);
    return error as CheckoutPaymentError;
  }
  assert.fail(
    `${what}: expected a CheckoutPaymentError with code ${code}, but it succeeded with ${show(outcome)}`,
  );
}

/**
 * Asserts that an error is a well-formed `CheckoutPaymentError` (a code of the port, a message that says why) and
 * that none of `secrets` appears anywhere in it: message, stack, own properties or causes.
 */
export function assertSafeError(error: unknown, secrets: readonly unknown[], what: string): void {
  assert.ok(CheckoutPaymentError.isInstance(error), `${what}: the failure is a CheckoutPaymentError`);
  assert.ok(
    (CHECKOUT_PAYMENT_ERROR_CODES as readonly string[]).includes(error.code),
    `${what}: ${error.code} is one of the port's codes`,
  );
  assert.ok(error.message.trim().length > 0, `${what}: ${error.code} says why`);
  const everything = `${inspect(error, { depth: 8, showHidden: true })}\n${String(error.stack)}`;
  for (const secret of secrets) {
    if (typeof secret !== "string" || secret.length < SECRET_MIN_LENGTH) continue;
    assert.ok(!everything.includes(secret), `${what}: the ${error.code} error carries the token ${secret}`);
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
