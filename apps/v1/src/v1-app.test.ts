import { CoreError, createMailpieceCore } from "@mailpiece/core";
import type { Store } from "@mailpiece/ports";
import { createMemoryBlobStore, createMemoryStore } from "@mailpiece/store-unstorage";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { HOUR, startV1Server, type V1Server } from "./test-server.fixture.ts";
import { createV1App } from "./v1-app.ts";

let server: V1Server;

beforeEach(async () => {
  server = await startV1Server();
});

afterEach(async () => {
  await server.close();
  expect(server.unexpected).toEqual([]);
});

const MINUTE = 60_000;

async function errorOf(response: Response) {
  expect(response.headers.get("content-type")).toContain("application/json");
  expect(response.headers.get("cache-control")).toBe("no-store");
  return (await response.json()) as {
    error: string;
    message: string;
    issues?: { path: string; code: string; message: string }[];
    retry_after_seconds?: number;
  };
}

describe("authentication", () => {
  it("answers 401 unauthorized with WWW-Authenticate for a missing, malformed or unknown key", async () => {
    const { test_api_key: key } = await server.workspace();
    const altered = `${key.slice(0, -1)}${key.endsWith("A") ? "B" : "A"}`;
    const headers: (Record<string, string> | undefined)[] = [
      undefined,
      { authorization: "" },
      { authorization: "Bearer" },
      { authorization: `Basic ${Buffer.from(`${key}:`).toString("base64")}` },
      { authorization: `Token ${key}` },
      { authorization: `Bearer ${key} ${key}` },
      { authorization: "Bearer svc_test_" },
      { authorization: `Bearer sk_test_${key.slice(9)}` },
      { authorization: `Bearer ${key.toUpperCase()}` },
      { authorization: `Bearer ${altered}` },
      { authorization: `Bearer svc_live_${key.slice(9)}` },
    ];
    for (const header of headers) {
      for (const path of ["/api-keys", "/credits/balance", "/credits/ledger"]) {
        const response = await server.call(path, undefined, header ? { headers: header } : {});
        expect(response.status, JSON.stringify(header)).toBe(401);
        expect(response.headers.get("www-authenticate")).toBe('Bearer realm="api"');
        const body = await errorOf(response);
        expect(body.error).toBe("unauthorized");
        expect(body.message).toMatch(/API key/);
      }
    }
    const rotate = await server.post("/api-keys/rotate", altered, { mode: "test" });
    expect(rotate.status).toBe(401);
    // The scheme is case-insensitive (RFC 9110); the key itself is not.
    expect(
      (await server.call("/api-keys", undefined, { headers: { authorization: `bearer ${key}` } })).status,
    ).toBe(200);
    const said = await server.said();
    for (const secret of [key, key.slice(9), altered]) expect(said).not.toContain(secret);
  });

  it("answers 401 for a rotated key once its overlap has passed", async () => {
    const { test_api_key: old } = await server.workspace();
    const rotated = await server.post("/api-keys/rotate", old, { mode: "test" });
    expect(rotated.status).toBe(201);
    const { api_key: fresh } = (await rotated.json()) as { api_key: string };
    server.advance(24 * HOUR - 1);
    expect((await server.call("/api-keys", old)).status).toBe(200);
    server.advance(2);
    const refused = await server.call("/api-keys", old);
    expect(refused.status).toBe(401);
    expect(refused.headers.get("www-authenticate")).toBe('Bearer realm="api"');
    expect((await errorOf(refused)).error).toBe("unauthorized");
    expect((await server.call("/api-keys", fresh)).status).toBe(200);
    expect(await server.said()).not.toContain(old);
  });

  it("answers 403 forbidden for a live key the workspace cannot use yet", async () => {
    // The one public way to this refusal: asking for a live key before the workspace is live-enabled. A key of the
    // legacy pair may make live keys; a test key may not (permission_denied, see keys.test.ts).
    const { id, test_api_key: key } = await server.workspace();
    const legacy = await server.keyWith(key, "test", ["letters:write", "letters:read"]);
    const refused = await server.post("/api-keys/rotate", legacy, { mode: "live" });
    expect(refused.status).toBe(403);
    expect(refused.headers.get("www-authenticate")).toBeNull();
    expect(await errorOf(refused)).toMatchObject({
      error: "forbidden",
      message: expect.stringMatching(/live/),
    });
    await server.core.workspaces.enableLive(id);
    const made = await server.post("/api-keys/rotate", legacy, { mode: "live" });
    expect(made.status).toBe(201);
    const live = (await made.json()) as { api_key: string; mode: string };
    expect(live.mode).toBe("live");
    const balance = await server.call("/credits/balance", live.api_key);
    expect(balance.status).toBe(200);
    expect(await balance.json()).toMatchObject({
      mode: "live",
      billing_rail: "prepaid_credits",
      status: "active",
    });
  });

  it("answers 403 forbidden when the core refuses a live key of a workspace not live-enabled", async () => {
    // No public use case leaves a live key on a workspace that is not live-enabled (live keys are made only after
    // enabling, which cannot be undone), so the core's refusal is stood in for here, over HTTP.
    const stub = await startV1Server({
      wrap: (core) => ({
        ...core,
        workspaces: {
          ...core.workspaces,
          authenticate: async () => {
            throw new CoreError(
              "forbidden",
              "Live keys work once the workspace is live-enabled: complete a payment-method setup session first.",
            );
          },
        },
      }),
    });
    try {
      const response = await stub.call("/credits/balance", `svc_live_${"a".repeat(32)}`);
      expect(response.status).toBe(403);
      expect(response.headers.get("www-authenticate")).toBeNull();
      expect(await errorOf(response)).toMatchObject({ error: "forbidden" });
    } finally {
      await stub.close();
    }
  });

  it("answers 403 permission_denied to a key that may not read", async () => {
    const { test_api_key: key } = await server.workspace();
    const writeOnly = await server.keyWith(key, "test", ["letters:write"]);
    for (const path of ["/api-keys", "/credits/balance", "/credits/ledger"]) {
      const response = await server.call(path, writeOnly);
      expect(response.status, path).toBe(403);
      expect((await errorOf(response)).error).toBe("permission_denied");
    }
  });
});

describe("rate limits", () => {
  it("answers 429 past 120 requests a minute for one key, leaves other keys alone, and lets it in again later", async () => {
    const { test_api_key: first } = await server.workspace("First");
    const { test_api_key: second } = await server.workspace("Second");
    const statuses: number[] = [];
    for (let i = 0; i < 120; i++) statuses.push((await server.call("/credits/balance", first)).status);
    expect(statuses.every((status) => status === 200)).toBe(true);
    server.advance(30_000);
    const limited = await server.call("/credits/balance", first);
    expect(limited.status).toBe(429);
    // The sliding window counts the last window's 120 in full until it ends, then less as it slides away: the 121st
    // request fits half a second into the next window, 30.5 s from now.
    expect(limited.headers.get("retry-after")).toBe("31");
    expect(await errorOf(limited)).toMatchObject({ error: "rate_limited", retry_after_seconds: 31 });
    // Every route counts against the same key, and a refused request does not extend the wait.
    expect((await server.call("/api-keys", first)).status).toBe(429);
    expect((await server.post("/api-keys/rotate", first, { mode: "test" })).status).toBe(429);
    expect((await server.call("/credits/balance", second)).status).toBe(200);
    server.advance(30_000);
    expect((await server.call("/credits/balance", first)).status).toBe(429);
    server.advance(1_000);
    expect((await server.call("/credits/balance", first)).status).toBe(200);
  });

  it("counts one key's requests together in every process of a shared store", async () => {
    // Two server processes over one store that every process shares (its compare-and-set makes the counts exact).
    const memory = createMemoryStore();
    const shared: Store = Object.assign(Object.create(memory) as Store, {
      capabilities: { durable: false, shared: true },
    });
    const clock = { now: () => Date.UTC(2026, 10, 24, 12, 0, 10) };
    const processes = [0, 1].map(() => {
      const core = createMailpieceCore({ store: shared, blobs: createMemoryBlobStore(), clock });
      return { core, app: createV1App(core, { publicUrl: "http://127.0.0.1", requestsPerMinute: 4 }) };
    });
    const { test_api_key: key } = await processes[0]!.core.workspaces.create("Shared");
    const call = (index: number) =>
      processes[index]!.app.fetch(
        new Request("http://127.0.0.1/api/v1/credits/balance", {
          headers: { authorization: `Bearer ${key}` },
        }),
      );
    const statuses: number[] = [];
    for (const index of [0, 1, 0, 1, 0, 1]) statuses.push((await call(index)).status);
    expect(statuses).toEqual([200, 200, 200, 200, 429, 429]);
    expect((await memory.list("ratelimit:v1-key:")).records.map((record) => record.value)).toEqual([4]);
  });

  it("counts refused keys per client IP, so a client guessing keys is slowed down", async () => {
    const small = await startV1Server({ requestsPerMinute: 3, trustProxy: true });
    try {
      const { test_api_key: key } = await small.workspace("First");
      const { test_api_key: other } = await small.workspace("Second");
      const from = (ip: string) => ({ headers: { "x-forwarded-for": ip } });
      // Good keys do not count against the client (each key has its own limit of 3 here).
      for (let i = 0; i < 2; i++)
        expect((await small.call("/api-keys", key, from("203.0.113.7"))).status).toBe(200);
      for (let i = 0; i < 3; i++) {
        expect(
          (await small.call("/api-keys", `svc_test_${"x".repeat(32)}`, from("203.0.113.7"))).status,
        ).toBe(401);
      }
      const limited = await small.call("/api-keys", `svc_test_${"y".repeat(32)}`, from("203.0.113.7"));
      expect(limited.status).toBe(429);
      // Three refusals fill this window; the next fits when a third of the next window has passed (3 x 2/3 + 1 = 3).
      expect(limited.headers.get("retry-after")).toBe("80");
      expect(await errorOf(limited)).toMatchObject({ error: "rate_limited", retry_after_seconds: 80 });
      // Once limited, the client's requests are refused before any key is looked at, a good one too.
      expect((await small.call("/api-keys", key, from("203.0.113.7"))).status).toBe(429);
      // Another client is not affected.
      expect((await small.call("/api-keys", "nope", from("198.51.100.2"))).status).toBe(401);
      expect((await small.call("/api-keys", other, from("198.51.100.2"))).status).toBe(200);
      small.advance(MINUTE);
      expect((await small.call("/api-keys", key, from("203.0.113.7"))).status).toBe(429);
      small.advance(20_000);
      expect((await small.call("/api-keys", key, from("203.0.113.7"))).status).toBe(200);
      expect(small.unexpected).toEqual([]);
    } finally {
      await small.close();
    }
  });
});

describe("routes and bodies", () => {
  it("answers 404 not_found for an unknown route, with or without a key, and 405 with Allow for another method", async () => {
    const { test_api_key: key } = await server.workspace();
    for (const path of ["", "/", "/nope", "/api-keys/nope", "/credits", "/posters/ord_123", "/../api-keys"]) {
      for (const bearer of [undefined, key, "not-a-key"]) {
        const response = await server.call(path, bearer);
        expect(response.status, `${path} ${bearer}`).toBe(404);
        expect(response.headers.get("www-authenticate")).toBeNull();
        expect(await errorOf(response)).toMatchObject({ error: "not_found" });
      }
    }
    const wrong = await server.call("/api-keys", key, { method: "DELETE" });
    expect(wrong.status).toBe(405);
    expect(wrong.headers.get("allow")).toBe("GET, HEAD, OPTIONS");
    expect((await errorOf(wrong)).error).toBe("method_not_allowed");
    const get = await server.call("/api-keys/rotate", undefined);
    expect(get.status).toBe(405);
    expect(get.headers.get("allow")).toBe("POST, OPTIONS");
    const options = await server.call("/credits/ledger", undefined, { method: "OPTIONS" });
    expect(options.status).toBe(204);
    expect(options.headers.get("allow")).toBe("GET, HEAD, OPTIONS");
    const head = await server.call("/credits/balance", key, { method: "HEAD" });
    expect(head.status).toBe(200);
    expect(head.headers.get("cache-control")).toBe("no-store");
    const malformed = await server.call("/api-keys/%E0%A4%A", key);
    expect(malformed.status).toBe(400);
    expect((await errorOf(malformed)).error).toBe("invalid_path");
  });

  it("reads JSON bodies only: 415 for another type, 400 invalid_json for a malformed or empty one, 413 past 1 MiB", async () => {
    const { test_api_key: key } = await server.workspace();
    const send = (body: RequestInit["body"], headers: Record<string, string>, extra: RequestInit = {}) =>
      server.call("/api-keys/rotate", key, {
        method: "POST",
        headers,
        ...(body === undefined ? {} : { body }),
        ...extra,
      });

    const form = await send("mode=test", { "content-type": "application/x-www-form-urlencoded" });
    expect(form.status).toBe(415);
    expect(await errorOf(form)).toMatchObject({ error: "unsupported_media_type" });
    const text = await send('{"mode":"test"}', { "content-type": "text/plain" });
    expect(text.status).toBe(415);
    // Bytes without a Content-Type at all.
    expect((await send(new TextEncoder().encode('{"mode":"test"}'), {})).status).toBe(415);

    for (const body of ['{"mode":', "{mode: 'test'}", "", "   "]) {
      const response = await send(body, { "content-type": "application/json" });
      expect(response.status, body).toBe(400);
      expect((await errorOf(response)).error).toBe("invalid_json");
    }
    const charset = await send('{"mode":"test"}', { "content-type": "application/json; charset=utf-8" });
    expect(charset.status).toBe(201);

    const large = `{"mode":"test","pad":"${"x".repeat(1024 * 1024)}"}`;
    const declared = await send(large, { "content-type": "application/json" });
    expect(declared.status).toBe(413);
    expect(await errorOf(declared)).toMatchObject({ error: "payload_too_large" });
    // Without a declared length (chunked), the body is cut off as it passes the limit.
    const bytes = new TextEncoder().encode(large);
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let at = 0; at < bytes.length; at += 64 * 1024)
          controller.enqueue(bytes.subarray(at, at + 64 * 1024));
        controller.close();
      },
    });
    const chunked = await send(stream, { "content-type": "application/json" }, {
      duplex: "half",
    } as RequestInit);
    expect(chunked.status).toBe(413);
    expect((await errorOf(chunked)).error).toBe("payload_too_large");
    // The key is checked before the body is looked at.
    const unauthorized = await server.call("/api-keys/rotate", "nope", {
      method: "POST",
      headers: { "content-type": "text/plain" },
      body: "x",
    });
    expect(unauthorized.status).toBe(401);
    // The connection still serves requests.
    expect((await server.call("/api-keys", key)).status).toBe(200);
  });

  it("marks every answer no-store and never repeats a key it was sent", async () => {
    const { test_api_key: key } = await server.workspace();
    await server.call("/api-keys", key);
    await server.call("/credits/balance", key);
    await server.call("/credits/ledger?limit=0", key);
    await server.call("/nope", key);
    await server.post("/api-keys/rotate", key, { mode: "sandbox", api_key: key });
    await server.call("/api-keys", `${key}x`);
    const said = await server.said();
    expect(said).not.toContain(key.slice(9));
    const headers = said.split("\n").filter((line) => /^\d{3} \[/.test(line));
    expect(headers).toHaveLength(6);
    for (const line of headers) expect(line).toContain('["cache-control","no-store"]');
  });
});
