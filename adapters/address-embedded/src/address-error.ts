import { AddressError, type AddressErrorCode } from "@mailpiece/ports";

/**
 * An AddressError naming the argument at fault: as `field` (the port's contract) and as the path of its one issue,
 * so that an HTTP layer that reports issues reports it too.
 */
export function addressError(code: AddressErrorCode, message: string, field: string): AddressError {
  return new AddressError(code, message, { field, issues: [{ path: field, code, message }] });
}
