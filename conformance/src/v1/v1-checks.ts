import assert from "node:assert/strict";
import type { Answer, Json } from "./v1-client.ts";

/** An issue of a 422 (or of an invalid query): where, a stable code, what to change. */
export interface Issue {
  path: string;
  code: string;
  message: string;
}

const SNAKE_CASE = /^[a-z][a-z0-9_]*$/;

/** A short view of an answer for failure messages. */
export function shown(answer: Answer): string {
  return `${answer.status} ${answer.text.slice(0, 400)}`;
}

/** Asserts a status (or one of several) and answers the JSON body. */
export function expectJson(answer: Answer, status: number | readonly number[], what: string): Json {
  const allowed = typeof status === "number" ? [status] : status;
  assert.ok(
    allowed.includes(answer.status),
    `${what}: expected ${allowed.join(" or ")}, got ${shown(answer)}`,
  );
  assert.ok(answer.json, `${what}: the body is a JSON object`);
  return answer.json;
}

/** Asserts a successful (2xx) JSON answer and answers its body. */
export function expectOk(answer: Answer, what: string): Json {
  assert.ok(answer.status >= 200 && answer.status < 300, `${what}: expected 2xx, got ${shown(answer)}`);
  assert.ok(answer.json, `${what}: the body is a JSON object`);
  return answer.json;
}

/**
 * Asserts an error answer of spec 3's shape: the status, a JSON body `{error, message, issues?}` with a snake_case
 * code (this one when given), a message, and issues (when present) that each carry a path, a snake_case code and a
 * message. Answers the issues (empty when none).
 */
export function expectError(answer: Answer, status: number, code?: string): Issue[] {
  assert.equal(answer.status, status, `expected ${status}${code ? ` ${code}` : ""}, got ${shown(answer)}`);
  assert.match(answer.headers.get("content-type") ?? "", /json/, "an error answer is JSON");
  const body = answer.json;
  assert.ok(body, `the error body is a JSON object: ${shown(answer)}`);
  assert.equal(typeof body.error, "string", "the body names the error");
  assert.match(body.error as string, SNAKE_CASE, `the error code ${String(body.error)} is snake_case`);
  if (code !== undefined) assert.equal(body.error, code, shown(answer));
  assert.ok(typeof body.message === "string" && body.message.length > 0, "the body says what went wrong");
  if (body.issues === undefined) return [];
  assert.ok(Array.isArray(body.issues), "issues is a list");
  for (const issue of body.issues as Issue[]) {
    assert.equal(typeof issue.path, "string", `every issue has a path: ${JSON.stringify(issue)}`);
    assert.match(String(issue.code), SNAKE_CASE, `every issue code is snake_case: ${JSON.stringify(issue)}`);
    assert.ok(typeof issue.message === "string" && issue.message.length > 0, "every issue has a message");
  }
  return body.issues as Issue[];
}

/** Asserts a 422 with at least one issue and answers the issues. */
export function expectInvalid(answer: Answer): Issue[] {
  const issues = expectError(answer, 422);
  assert.ok(issues.length > 0, `a 422 lists its issues: ${shown(answer)}`);
  return issues;
}

/** Asserts that some issue sits at one of `paths`. */
export function expectIssueAt(issues: readonly Issue[], ...paths: string[]): void {
  assert.ok(
    issues.some((issue) => paths.includes(issue.path)),
    `expected an issue at ${paths.map((p) => `"${p}"`).join(" or ")}; got ${JSON.stringify(issues)}`,
  );
}

/** Asserts an answer is a PDF: served as application/pdf, and its bytes start as a PDF file does. */
export function expectPdf(answer: Answer, what: string): void {
  assert.equal(answer.status, 200, `${what}: ${shown(answer)}`);
  assert.match(answer.headers.get("content-type") ?? "", /^application\/pdf/, `${what} is served as a PDF`);
  assert.equal(new TextDecoder().decode(answer.bytes.slice(0, 5)), "%PDF-", `${what} is a PDF file`);
}

/** Asserts an answer says `Cache-Control: no-store`. */
export function expectNoStore(answer: Answer, what: string): void {
  assert.match(
    answer.headers.get("cache-control") ?? "",
    /(^|[,\s])no-store($|[,\s])/,
    `${what} (${answer.status}) carries Cache-Control: no-store`,
  );
}

/** Asserts an integer number of cents (at least `min`). */
export function expectCents(value: unknown, field: string, min = 0): number {
  assert.ok(Number.isSafeInteger(value) && (value as number) >= min, `${field} is integer cents: ${value}`);
  return value as number;
}

/** Asserts an RFC 3339 date-time. */
export function expectDateTime(value: unknown, field: string): number {
  assert.equal(typeof value, "string", `${field} is a date-time`);
  const time = Date.parse(value as string);
  assert.ok(
    /^\d{4}-\d\d-\d\dT/.test(value as string) && Number.isFinite(time),
    `${field} is a date-time: ${value}`,
  );
  return time;
}

/** Asserts a string or null. */
export function expectStringOrNull(value: unknown, field: string): void {
  assert.ok(
    value === null || typeof value === "string",
    `${field} is a string or null: ${JSON.stringify(value)}`,
  );
}

/** Asserts a list answer (`data` is an array) and answers its items. */
export function expectList(answer: Answer, what: string): Json[] {
  const body = expectJson(answer, 200, what);
  assert.ok(Array.isArray(body.data), `${what}: data is a list`);
  return body.data as Json[];
}

/** Asserts that no text of the answer contains `secret`. */
export function expectNotShown(answer: Answer, secret: string, what: string): void {
  assert.ok(secret.length > 0, "a secret to look for");
  assert.ok(!answer.text.includes(secret), `${what} never shows the secret`);
}
