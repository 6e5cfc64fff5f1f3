/**
 * Older copies of the ports package recognised their errors by one registered symbol per class. Errors made here
 * carry that symbol too (not enumerable, so it stays out of JSON and keys), and `isInstance` accepts it, so errors
 * keep being recognised across versions in both directions.
 */
export function markLegacy(error: Error, marker: symbol): void {
  Object.defineProperty(error, marker, { value: true });
}

/** True when `value` is an object carrying `marker` set to true. */
export function hasMarker(value: unknown, marker: symbol): boolean {
  return typeof value === "object" && value !== null && (value as Record<symbol, unknown>)[marker] === true;
}
