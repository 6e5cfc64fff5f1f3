import { strict as assert } from "node:assert";
import { inspect } from "node:util";

/** What the assertions read of a port's error: its stable code and its message. */
export interface CodedError extends Error {
  readonly code: string;
}

/**
 * A port's error class (`PortError`, `PrintError`, …): its name, for messages, and `isInstance`, which also knows
 * an error made by another copy of its package.
 */
export interface ErrorClassOf<E extends CodedError> {
  readonly name: string;
  isInstance(value: unknown): value is E;
}

/** What a kit checks of every refusal besides its class and its code. */
export interface RefusalChecks {
  /** Every code of the port: a refusal with any other code breaks the port. */
  codes?: readonly string[];
  /** The refusal says why: its message is not blank. */
  saysWhy?: boolean;
}

/** The field a refusal must name, for an error class that has `field`. */
type FieldArgument<E> = E extends { readonly field: string | undefined } ? [field?: string] : [];

/**
 * Runs `action` (a synchronous throw counts) and asserts that it fails with the kit's error class and `code` (or
 * one of `code`), and, when `field` is given, that the error names that field. Returns the error for further checks.
 */
export type RefusedWith<E extends CodedError> = (
  action: () => unknown,
  code: E["code"] | readonly E["code"][],
  what: string,
  ...field: FieldArgument<E>
) => Promise<E>;

const article = (name: string) => (/^[AEIOU]/.test(name) ? "an" : "a");

/** The "expected this promise to be refused with this code" assertion of one port's kit. */
export function refusalAssertion<E extends CodedError>(
  errorClass: ErrorClassOf<E>,
  checks: RefusalChecks = {},
): RefusedWith<E> {
  const expected = (codes: readonly string[]) =>
    `${article(errorClass.name)} ${errorClass.name} with code ${codes.join(" or ")}`;
  const assertion = async (
    action: () => unknown,
    code: E["code"] | readonly E["code"][],
    what: string,
    field?: string,
  ): Promise<E> => {
    const codes: readonly string[] = typeof code === "string" ? [code] : code;
    let outcome: unknown;
    try {
      outcome = await Promise.resolve().then(action);
    } catch (error) {
      if (!errorClass.isInstance(error)) {
        const detail = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
        assert.fail(`${what}: expected ${expected(codes)}, got ${detail}`);
      }
      if (checks.codes) {
        assert.ok(checks.codes.includes(error.code), `${what}: ${error.code} is a code of the port`);
      }
      assert.ok(
        codes.includes(error.code),
        `${what}: expected code ${codes.join(" or ")}, got ${error.code} (${error.message})`,
      );
      if (checks.saysWhy) assert.ok(error.message.trim().length > 0, `${what}: the error says why`);
      if (field !== undefined) {
        const named = (error as { field?: unknown }).field;
        assert.equal(
          named,
          field,
          `${what}: the error names the field at fault: expected ${field}, got ${String(named)} (${error.message})`,
        );
      }
      return error;
    }
    assert.fail(`${what}: expected ${expected(codes)}, but it succeeded with ${show(outcome)}`);
  };
  return assertion as RefusedWith<E>;
}

/** What the kit checks of an error that must carry no secret. */
export interface SecretChecks {
  /** Every code of the port. */
  codes: readonly string[];
  /** Secrets shorter than this are not searched for: they would match by chance. */
  minLength: number;
}

/**
 * Asserts that an error is a well-formed error of the kit's class (a code of the port, a message that says why) and
 * that none of `secrets` (the strings among them) appears anywhere in it: message, stack, own properties, hidden
 * ones included, or causes. A secret found is named by its place in `secrets`, not shown.
 */
export type AssertCarriesNoSecret = (error: unknown, secrets: readonly unknown[], what: string) => void;

/** The "this error is well-formed and carries no secret" assertion of one port's kit. */
export function noSecretAssertion<E extends CodedError>(
  errorClass: ErrorClassOf<E>,
  checks: SecretChecks,
): AssertCarriesNoSecret {
  return (error, secrets, what) => {
    assert.ok(
      errorClass.isInstance(error),
      `${what}: the failure is ${article(errorClass.name)} ${errorClass.name}, got ${String(error)}`,
    );
    assert.ok(checks.codes.includes(error.code), `${what}: ${error.code} is a code of the port`);
    assert.ok(error.message.trim().length > 0, `${what}: ${error.code} says why`);
    const everything = `${inspect(error, { depth: 8, showHidden: true })}\n${String(error.stack)}`;
    for (const [index, secret] of secrets.entries()) {
      if (typeof secret !== "string" || secret.length < checks.minLength) continue;
      assert.ok(!everything.includes(secret), `${what}: the ${error.code} error carries secrets[${index}]`);
    }
  };
}

/** A value as JSON for a failure message, cut at 200 characters. */
export function show(value: unknown): string {
  try {
    const text = JSON.stringify(value);
    return text === undefined ? String(value) : text.length > 200 ? `${text.slice(0, 200)}…` : text;
  } catch {
    return String(value);
  }
}
