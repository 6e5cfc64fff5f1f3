import assert from "node:assert/strict";

/** A JSON object (not an array, not null). */
export const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** Asserts that `value` is an absolute http(s) URL, `what` naming it in the failure; answers it parsed. */
export function absoluteUrl(value: unknown, what: string): URL {
  assert.equal(typeof value, "string", `${what} is a URL`);
  let url: URL;
  try {
    url = new URL(value as string);
  } catch {
    assert.fail(`${what} is an absolute URL: ${String(value)}`);
  }
  assert.ok(url.protocol === "https:" || url.protocol === "http:", `${what} is an http(s) URL`);
  return url;
}
