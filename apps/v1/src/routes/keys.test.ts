import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { HOUR, startV1Server, type V1Server } from "../test-server.fixture.ts";
import { rotateRequest } from "./keys.ts";

let server: V1Server;

beforeEach(async () => {
  server = await startV1Server();
});

afterEach(async () => {
  await server.close();
  expect(server.unexpected).toEqual([]);
});

interface Issued {
  mode: string;
  api_key: string;
  api_key_prefix: string;
  permissions: string[];
}

const issuesOf = async (response: Response) =>
  ((await response.json()) as { issues: { path: string; code: string }[] }).issues.map(({ path, code }) => ({
    path,
    code,
  }));

describe("GET /api/v1/api-keys", () => {
  it("lists the workspace's keys by prefix and status, never a key", async () => {
    const { test_api_key: key } = await server.workspace();
    const response = await server.call("/api-keys", key);
    expect(response.status).toBe(200);
    expect(response.headers.get("cache-control")).toBe("no-store");
    const listed = (await response.json()) as { object: string; data: Record<string, unknown>[] };
    expect(listed.object).toBe("list");
    expect(listed.data).toEqual([
      expect.objectContaining({
        mode: "test",
        api_key_prefix: key.slice(0, 15),
        status: "active",
        expires_at: null,
      }),
    ]);
    expect(JSON.stringify(listed)).not.toContain(key.slice(9));
  });
});

describe("POST /api/v1/api-keys/rotate", () => {
  it("shows the new key once (201, no-store); the old key works for the overlap, then is refused", async () => {
    const { test_api_key: old } = await server.workspace();
    const response = await server.post("/api-keys/rotate", old, { mode: "test" });
    expect(response.status).toBe(201);
    expect(response.headers.get("cache-control")).toBe("no-store");
    const issued = (await response.json()) as Issued;
    expect(Object.keys(issued).sort()).toEqual(["api_key", "api_key_prefix", "mode", "permissions"]);
    expect(issued.mode).toBe("test");
    expect(issued.api_key).toMatch(/^svc_test_[A-Za-z0-9_-]{32}$/);
    expect(issued.api_key).not.toBe(old);
    expect(issued.api_key.startsWith(issued.api_key_prefix)).toBe(true);
    expect(issued.permissions.sort()).toEqual(
      ["letters:read", "mailings.submit_test", "mailings.submit_without_approval"].sort(),
    );

    const listed = (await (await server.call("/api-keys", issued.api_key)).json()) as {
      data: { api_key_prefix: string; status: string }[];
    };
    expect(listed.data.map((key) => [key.api_key_prefix, key.status]).sort()).toEqual(
      [
        [old.slice(0, 15), "expiring"],
        [issued.api_key_prefix, "active"],
      ].sort(),
    );
    expect(JSON.stringify(listed)).not.toContain(issued.api_key);

    server.advance(23 * HOUR);
    expect((await server.call("/credits/balance", old)).status).toBe(200);
    server.advance(HOUR);
    expect((await server.call("/credits/balance", old)).status).toBe(401);
    expect((await server.call("/credits/balance", issued.api_key)).status).toBe(200);
    // The new key is never shown again.
    const said = await server.said();
    expect(said.split(issued.api_key).length - 1).toBe(1);
  });

  it("makes a narrower key when asked, and refuses more than the calling key holds with 403 permission_denied", async () => {
    const { test_api_key: key } = await server.workspace();
    const narrow = await server.post("/api-keys/rotate", key, {
      mode: "test",
      permissions: ["mailings.submit_test"],
    });
    expect(narrow.status).toBe(201);
    const issued = (await narrow.json()) as Issued;
    expect(issued.permissions).toEqual(["mailings.submit_test"]);

    for (const body of [
      { mode: "test", permissions: ["mailings.submit_live"] },
      { mode: "test", permissions: ["letters:read", "letters:write"] },
      // A test key cannot make a live key.
      { mode: "live" },
    ]) {
      const refused = await server.post("/api-keys/rotate", key, body);
      expect(refused.status, JSON.stringify(body)).toBe(403);
      expect(await refused.json()).toMatchObject({ error: "permission_denied" });
    }
    const wider = await server.post("/api-keys/rotate", issued.api_key, {
      mode: "test",
      permissions: ["letters:read"],
    });
    expect(wider.status).toBe(403);
    expect(await wider.json()).toMatchObject({ error: "permission_denied" });
  });

  it("answers 422 validation_failed with every issue and its path", async () => {
    const { test_api_key: key } = await server.workspace();
    const bad = await server.post("/api-keys/rotate", key, { mode: "sandbox" });
    expect(bad.status).toBe(422);
    expect(await issuesOf(bad)).toEqual([{ path: "mode", code: "invalid_mode" }]);

    const many = await server.post("/api-keys/rotate", key, {
      permisions: ["letters:read"],
      permissions: ["letters:read", "admin", 3],
    });
    expect(many.status).toBe(422);
    const body = (await many.clone().json()) as { error: string; message: string };
    expect(body.error).toBe("validation_failed");
    expect(body.message).toMatch(/4 problems/);
    expect(await issuesOf(many)).toEqual([
      { path: "permisions", code: "unknown_field" },
      { path: "mode", code: "required" },
      { path: "permissions.1", code: "unknown_permission" },
      { path: "permissions.2", code: "unknown_permission" },
    ]);

    for (const [payload, issue] of [
      [[{ mode: "test" }], { path: "", code: "invalid_type" }],
      ["test", { path: "", code: "invalid_type" }],
      [null, { path: "", code: "invalid_type" }],
      [
        { mode: "test", permissions: "letters:read" },
        { path: "permissions", code: "invalid_type" },
      ],
      [
        { mode: "test", permissions: [] },
        { path: "permissions", code: "empty" },
      ],
      [{ mode: "TEST" }, { path: "mode", code: "invalid_mode" }],
    ] as const) {
      const response = await server.post("/api-keys/rotate", key, payload);
      expect(response.status, JSON.stringify(payload)).toBe(422);
      expect(await issuesOf(response)).toEqual([issue]);
    }
    // Nothing was rotated by a refused request.
    const listed = (await (await server.call("/api-keys", key)).json()) as { data: unknown[] };
    expect(listed.data).toHaveLength(1);
  });
});

describe("rotateRequest", () => {
  it("accepts mode with or without permissions", () => {
    expect(rotateRequest({ mode: "live" })).toEqual({ mode: "live" });
    expect(rotateRequest({ mode: "test", permissions: ["letters:read", "letters:read"] })).toEqual({
      mode: "test",
      permissions: ["letters:read", "letters:read"],
    });
  });

  it("bounds the permissions list", () => {
    expect(() => rotateRequest({ mode: "test", permissions: Array(21).fill("letters:read") })).toThrow(
      expect.objectContaining({
        code: "validation_failed",
        issues: [expect.objectContaining({ code: "too_many" })],
      }),
    );
  });
});
