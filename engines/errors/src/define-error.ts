import type { Issue } from "./issue.ts";

/** What every Mailpiece error carries: a stable `code` from its package's union, and the problems it found. */
export interface MailpieceError<Code extends string = string> extends Error {
  readonly code: Code;
  /** Every problem found, for errors about an input; empty otherwise. */
  readonly issues: readonly Issue[];
}

export interface ErrorOptions {
  cause?: unknown;
  issues?: readonly Issue[];
}

/** The class `defineError` makes: construct with a code from the union, test with `isInstance`. */
export interface ErrorClass<Code extends string> {
  new (code: Code, message: string, options?: ErrorOptions): MailpieceError<Code>;
  /** True for an error of this class, also one made by another copy of its package (a second install). */
  isInstance(value: unknown): value is MailpieceError<Code>;
  readonly prototype: MailpieceError<Code>;
}

const ANY = Symbol.for("mailpiece.error");

/**
 * Makes the error class of one package. `name` is its class name (`OrdersError`); instances are recognised across
 * copies of the package by a registered symbol rather than by `instanceof`, so two installs of one package still
 * agree on what their errors are. Extend the result to give the class its own name in stack traces and types:
 *
 * ```ts
 * export type OrdersErrorCode = "order_invalid";
 * export class OrdersError extends defineError<OrdersErrorCode>("OrdersError") {}
 * ```
 */
export function defineError<Code extends string>(name: string): ErrorClass<Code> {
  const marker = Symbol.for(`mailpiece.error.${name}`);
  class Defined extends Error implements MailpieceError<Code> {
    readonly code: Code;
    readonly issues: readonly Issue[];

    constructor(code: Code, message: string, options: ErrorOptions = {}) {
      super(message, options.cause === undefined ? undefined : { cause: options.cause });
      this.name = name;
      this.code = code;
      this.issues = options.issues ?? [];
      Object.defineProperty(this, marker, { value: true });
      Object.defineProperty(this, ANY, { value: true });
    }

    static isInstance(value: unknown): value is MailpieceError<Code> {
      return (
        typeof value === "object" && value !== null && (value as Record<symbol, unknown>)[marker] === true
      );
    }
  }
  Object.defineProperty(Defined, "name", { value: name });
  return Defined;
}

/** True for an error made by any class of `defineError`, in any package. */
export function isMailpieceError(value: unknown): value is MailpieceError {
  return typeof value === "object" && value !== null && (value as Record<symbol, unknown>)[ANY] === true;
}
