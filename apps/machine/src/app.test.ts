import { letterOrder } from "@mailpiece/conformance";
import type { MailpieceCore } from "@mailpiece/core";
import { createMailpieceCore } from "@mailpiece/core";
import { manualClock } from "@mailpiece/ports";
import { createMemoryBlobStore, createMemoryStore } from "@mailpiece/store-unstorage";
import Ajv2020 from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { describe, expect, it } from "vitest";
import { createMachineApp } from "./app.ts";
import { ErrorBody, OrderValidation } from "./schemas.ts";

const ajv = new Ajv2020.default({ allErrors: true, strict: false });
addFormats.default(ajv);
const isValidation = ajv.compile(JSON.parse(JSON.stringify(OrderValidation)));
const isError = ajv.compile(JSON.parse(JSON.stringify(ErrorBody)));

function makeApp(overrides: Partial<MailpieceCore> = {}) {
  const core = {
    ...createMailpieceCore({ store: createMemoryStore(), blobs: createMemoryBlobStore() }),
    ...overrides,
  };
  const unexpected: unknown[] = [];
  const app = createMachineApp(core, {
    publicUrl: "https://mail.example.com/",
    maxBodyBytes: 64 * 1024,
    onUnexpectedError: (e) => unexpected.push(e),
  });
  return { app, unexpected };
}

const post = (app: ReturnType<typeof makeApp>["app"], body: unknown, path = "/api/machine/orders/validate") =>
  app.fetch(
    new Request(`http://x${path}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    }),
  );

describe("preview links", () => {
  it("expire: a link that opened before its expiry is 403 after it", async () => {
    const clock = manualClock(Date.UTC(2026, 10, 22, 12));
    const core = createMailpieceCore({
      store: createMemoryStore({ clock }),
      blobs: createMemoryBlobStore(),
      clock,
      config: { previewSecret: "preview-secret-for-this-test-000000000", previewTtlMs: 15 * 60 * 1000 },
    });
    const app = createMachineApp(core, { publicUrl: "https://mail.example.com", maxBodyBytes: 1 << 20 });
    const res = await post(app, letterOrder());
    const url = new URL(((await res.json()) as { preview_url: string }).preview_url);
    expect(url.origin).toBe("https://mail.example.com");
    const open = () => app.fetch(new Request(`http://x${url.pathname}${url.search}`));
    expect((await open()).status).toBe(200);
    clock.advance(14 * 60 * 1000);
    expect((await open()).status).toBe(200);
    clock.advance(2 * 60 * 1000);
    const expired = await open();
    expect(expired.status).toBe(403);
    expect(((await expired.json()) as { error: string }).error).toBe("preview_link_invalid");
  });

  it("are absent when no preview secret is configured", async () => {
    const { app } = makeApp();
    const body = (await (await post(app, letterOrder())).json()) as Record<string, unknown>;
    expect(body.preview_url).toBeUndefined();
  });
});

describe("the machine app on its own", () => {
  it("answers validate with a body that matches the published OrderValidation schema", async () => {
    const { app } = makeApp();
    const res = await post(app, letterOrder());
    expect(res.status).toBe(200);
    expect(res.headers.get("cache-control")).toBe("no-store");
    const body = await res.json();
    expect(isValidation(body), JSON.stringify(isValidation.errors)).toBe(true);
  });

  it("answers 422 with a body that matches the published Error schema", async () => {
    const { app } = makeApp();
    const res = await post(app, { request_id: "x" });
    expect(res.status).toBe(422);
    const body = (await res.json()) as { issues: unknown[] };
    expect(isError(body), JSON.stringify(isError.errors)).toBe(true);
    expect(body.issues.length).toBeGreaterThan(1);
  });

  it("serves its OpenAPI description with the public URL as server and the body limit", async () => {
    const { app } = makeApp();
    type Doc = {
      servers: unknown;
      paths: Record<string, { post: { requestBody: Record<string, unknown> } }>;
      components: { schemas: Record<string, { additionalProperties?: unknown }> };
    };
    const doc = (await (await app.fetch(new Request("http://x/openapi.json"))).json()) as Doc;
    expect(doc.servers).toEqual([{ url: "https://mail.example.com" }]);
    expect(doc.paths["/api/machine/orders/validate"]?.post.requestBody["x-max-body-bytes"]).toBe(64 * 1024);
    expect(doc.components.schemas.OrderRequest?.additionalProperties).toBe(false);
  });

  it("names its resources with the public URL in /.well-known/x402", async () => {
    const { app } = makeApp();
    const body = (await (await app.fetch(new Request("http://x/.well-known/x402"))).json()) as {
      resources: string[];
    };
    expect(body.resources).toContain("https://mail.example.com/api/machine/orders");
  });

  it("turns an unexpected failure into a 500 that reveals nothing and reports it once", async () => {
    const { app, unexpected } = makeApp({
      validateOrder: async () => {
        throw new Error("secret database password in message");
      },
    });
    const res = await post(app, letterOrder());
    expect(res.status).toBe(500);
    const text = await res.text();
    expect(text).not.toContain("secret");
    expect(JSON.parse(text).error).toBe("internal_error");
    expect(unexpected).toHaveLength(1);
  });

  it("answers 404 with a JSON error for paths it does not serve", async () => {
    const { app } = makeApp();
    const res = await app.fetch(new Request("http://x/api/machine/unknown"));
    expect(res.status).toBe(404);
    expect(((await res.json()) as { error: string }).error).toBe("not_found");
  });

  it("cuts off a body that is larger than declared while streaming", async () => {
    const { app } = makeApp();
    const big = JSON.stringify({ letter: "x".repeat(70 * 1024) });
    const stream = new ReadableStream({
      start(controller) {
        controller.enqueue(new TextEncoder().encode(big));
        controller.close();
      },
    });
    const res = await app.fetch(
      new Request("http://x/api/machine/orders/validate", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: stream,
        duplex: "half",
      } as RequestInit),
    );
    expect(res.status).toBe(413);
  });
});
