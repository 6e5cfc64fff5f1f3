import { CoreError } from "@mailpiece/core";
import { PortError } from "@mailpiece/ports";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { STATUS_TABLE, toV1Error, V1Error, type V1ErrorScope } from "./errors.ts";
import { startV1Server, type V1Server } from "./test-server.fixture.ts";

/** What GET /api-keys throws next: the core's use cases are stood in for to reach every refusal. */
let failure: unknown;
let server: V1Server;
let key: string;

beforeAll(async () => {
  server = await startV1Server({
    wrap: (core) => ({
      ...core,
      workspaces: {
        ...core.workspaces,
        listKeys: async () => {
          throw failure;
        },
      },
    }),
  });
  key = (await server.workspace()).test_api_key;
});

afterAll(async () => {
  await server.close();
});

const SECRET = "postgres://admin:hunter2@db.internal:5432/mail";

describe("the error table", () => {
  it.each([
    [
      new CoreError("validation_failed", "The request has 1 problem.", {
        issues: [{ path: "mode", code: "invalid_mode", message: "mode must be test or live." }],
      }),
      422,
      {
        error: "validation_failed",
        issues: [{ path: "mode", code: "invalid_mode", message: expect.any(String) }],
      },
      {},
    ],
    [
      new CoreError("unauthorized", "No key."),
      401,
      { error: "unauthorized" },
      { "www-authenticate": 'Bearer realm="api"' },
    ],
    [new CoreError("forbidden", "Not live."), 403, { error: "forbidden" }, {}],
    [new CoreError("permission_denied", "No."), 403, { error: "permission_denied" }, {}],
    [new CoreError("approval_required", "Ask first."), 403, { error: "approval_required" }, {}],
    [new CoreError("preview_link_invalid", "Expired."), 403, { error: "preview_link_invalid" }, {}],
    [new CoreError("not_found", "No such workspace."), 404, { error: "not_found" }, {}],
    [
      new CoreError("invalid_query", "Bad cursor.", {
        issues: [{ path: "cursor", code: "invalid_cursor", message: "cursor is not one this listing gave." }],
      }),
      400,
      { error: "invalid_query", issues: [expect.objectContaining({ path: "cursor" })] },
      {},
    ],
    [
      new CoreError("rate_limited", "Slow down.", { retryAfterSeconds: 7 }),
      429,
      { error: "rate_limited", retry_after_seconds: 7 },
      { "retry-after": "7" },
    ],
    [
      new CoreError("service_busy", "Busy.", { retryAfterSeconds: 3 }),
      503,
      { error: "service_busy" },
      { "retry-after": "3" },
    ],
    [
      new CoreError("storage_unavailable", "Contended."),
      503,
      { error: "storage_unavailable" },
      { "retry-after": "5" },
    ],
    [
      new PortError("store_unavailable", `cannot reach ${SECRET}`),
      503,
      { error: "storage_unavailable" },
      { "retry-after": "5" },
    ],
  ] as const)("maps %s to its status", async (thrown, status, body, headers) => {
    failure = thrown;
    const response = await server.call("/api-keys", key);
    expect(response.status).toBe(status);
    expect(response.headers.get("cache-control")).toBe("no-store");
    for (const [name, value] of Object.entries(headers)) expect(response.headers.get(name)).toBe(value);
    if (!("www-authenticate" in headers)) expect(response.headers.get("www-authenticate")).toBeNull();
    if (status !== 503 && status !== 429) expect(response.headers.get("retry-after")).toBeNull();
    const text = await response.text();
    expect(JSON.parse(text)).toMatchObject({ ...body, message: expect.any(String) });
    expect(text).not.toContain(SECRET);
    expect(server.unexpected).toEqual([]);
  });

  it("answers 500 internal_error for anything else, reveals nothing and reports it", async () => {
    const unexpected = [
      new Error(`query failed on ${SECRET}`),
      new CoreError("internal_error", `collision at ${SECRET}`),
      // A code this API never expects from these use cases is not passed on as it is.
      new CoreError("checkout_expired", `session of ${SECRET}`),
      new TypeError("x is not a function"),
      "a thrown string",
    ];
    for (const thrown of unexpected) {
      failure = thrown;
      const response = await server.call("/api-keys", key);
      expect(response.status).toBe(500);
      expect(response.headers.get("cache-control")).toBe("no-store");
      const text = await response.text();
      expect(JSON.parse(text)).toEqual({ error: "internal_error", message: expect.any(String) });
      expect(text).not.toMatch(/hunter2|query failed|collision|session|not a function|thrown string/);
    }
    expect(server.unexpected).toEqual(unexpected);
    server.unexpected.length = 0;
  });

  it("gives every code of the table a 4xx or 5xx status", () => {
    for (const [code, { status }] of Object.entries(STATUS_TABLE)) {
      expect(status, code).toBeGreaterThanOrEqual(400);
      expect(status, code).toBeLessThan(600);
    }
    expect(V1Error.isInstance(new V1Error("not_found", "x"))).toBe(true);
    expect(V1Error.isInstance(new CoreError("not_found", "x"))).toBe(false);
  });
});

describe("a scope of fewer codes (the test-mode drafts at /v1/test)", () => {
  const scope = {
    codes: ["not_found", "internal_error", "storage_unavailable"],
    messages: {
      storageUnavailable: "The store is away; nothing was stored.",
      internalError: "Nothing was stored.",
    },
  } as const satisfies V1ErrorScope;

  it("maps the core's codes it answers; any other is an unexpected internal_error", () => {
    const reported: unknown[] = [];
    const report = (error: unknown) => reported.push(error);
    const missing = new CoreError("not_found", "No such test order.");
    expect(toV1Error(missing, report, scope)).toMatchObject({
      code: "not_found",
      message: "No such test order.",
    });
    const forbidden = new CoreError("forbidden", `Not live: ${SECRET}`);
    expect(toV1Error(forbidden, report, scope)).toMatchObject({
      code: "internal_error",
      message: "Nothing was stored.",
    });
    expect(toV1Error(forbidden, report)).toMatchObject({ code: "forbidden" });
    expect(reported).toEqual([forbidden]);
  });

  it("words the messages it writes itself, and keeps the Projects API's otherwise", () => {
    const unavailable = new PortError("store_unavailable", `cannot reach ${SECRET}`);
    expect(toV1Error(unavailable, undefined, scope)).toMatchObject({
      code: "storage_unavailable",
      message: "The store is away; nothing was stored.",
    });
    expect(toV1Error(unavailable)).toMatchObject({
      code: "storage_unavailable",
      message: "The store does not answer; nothing was changed. Try again.",
    });
    expect(toV1Error(new Error(SECRET))).toMatchObject({
      code: "internal_error",
      message: "Something failed on our side. Try again later; if it persists, contact support.",
    });
  });
});
