/**
 * A request id (`request_id`, and the order ids of status lookups) is a UUID in its canonical text form: 32
 * hexadecimal digits in groups of 8-4-4-4-12, either case, nothing before or after (no "urn:uuid:" prefix, no
 * braces, no spaces or line breaks).
 */
export const UUID_PATTERN = "^[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}$";

const UUID = new RegExp(UUID_PATTERN);

/** True when `value` is a string holding a canonical UUID (see UUID_PATTERN). Never throws. */
export function isRequestId(value: unknown): value is string {
  return typeof value === "string" && value.length === 36 && UUID.test(value);
}
