import { appTarget, checkedTarget, letterOrder, makePdf } from "@mailpiece/conformance";
import { createMailpieceCore } from "@mailpiece/core";
import { PdfWorkError } from "@mailpiece/pdf-work";
import { createMemoryBlobStore, createMemoryStore } from "@mailpiece/store-unstorage";
import { describe, expect, it } from "vitest";
import { createMachineApp } from "./app.ts";
import { buildOpenApi } from "./openapi.ts";
import { STATUS_TABLE } from "./status-table.ts";

type Config = Parameters<typeof createMailpieceCore>[0]["config"];

/** The app in-process, every answer checked against the app's own OpenAPI description. */
function target(config: Config = {}, pdfWork?: Parameters<typeof createMailpieceCore>[0]["pdfWork"]) {
  const core = createMailpieceCore({
    store: createMemoryStore(),
    blobs: createMemoryBlobStore(),
    config: { previewSecret: "a-preview-secret-for-these-tests-0000000", ...config },
    ...(pdfWork ? { pdfWork } : {}),
  });
  const app = createMachineApp(core, { publicUrl: "https://mail.example.com", maxBodyBytes: 64 * 1024 });
  return checkedTarget(appTarget(app));
}

const json = (body: unknown, headers: Record<string, string> = {}): RequestInit => ({
  method: "POST",
  headers: { "content-type": "application/json", ...headers },
  body: typeof body === "string" ? body : JSON.stringify(body),
});

const statusOf = async (response: Promise<Response>) => (await response).status;

describe("every answer of the machine app matches its OpenAPI description", () => {
  it("lists each error code's status from the status table", () => {
    const doc = buildOpenApi({ publicUrl: "https://mail.example.com", maxBodyBytes: 1024 }) as {
      components: { schemas: Record<string, { properties: { error: { enum: string[] } } }> };
    };
    for (const [code, { status }] of Object.entries(STATUS_TABLE)) {
      expect(doc.components.schemas[`Error${status}`]?.properties.error.enum).toContain(code);
      for (const other of Object.values(STATUS_TABLE).filter((row) => row.status !== status)) {
        expect(doc.components.schemas[`Error${other.status}`]?.properties.error.enum).not.toContain(code);
      }
    }
  });

  it("validate: 200, 400, 413, 415, 422, and 429 with Retry-After", async () => {
    const t = target({ validateRateLimit: { limit: 1, windowMs: 60_000 } });
    const path = "/api/machine/orders/validate";
    expect(await statusOf(t.fetch(path, json(letterOrder())))).toBe(200);
    const limited = await t.fetch(path, json(letterOrder()));
    expect(limited.status).toBe(429);
    expect(limited.headers.get("retry-after")).toBe(
      String(((await limited.json()) as { retry_after_seconds: number }).retry_after_seconds),
    );
    const u = target();
    expect(await statusOf(u.fetch(path, json('{"request_id": ')))).toBe(400);
    expect(await statusOf(u.fetch(path, json(letterOrder(), { "content-type": "text/plain" })))).toBe(415);
    expect(await statusOf(u.fetch(path, json({ letter: "x".repeat(70 * 1024) })))).toBe(413);
    expect(await statusOf(u.fetch(path, json({ request_id: "x" })))).toBe(422);
  });

  it("503 when the document workers are busy, with Retry-After", async () => {
    const busy = new PdfWorkError("pdf_work_busy", "busy", { retryAfterSeconds: 3 });
    const t = target({}, {
      typesetLetter: () => Promise.reject(busy),
      inspectPdf: () => Promise.reject(busy),
      checkPostcard: () => Promise.reject(busy),
      buildPacket: () => Promise.reject(busy),
      close: async () => {},
    } as never);
    const res = await t.fetch("/api/machine/orders/validate", json(letterOrder()));
    expect(res.status).toBe(503);
    expect(res.headers.get("retry-after")).toBe("3");
  });

  it("uploads: 201 for a slot and a file, 415, 422, and 429 past the client's slots", async () => {
    const t = target({
      uploadLimits: {
        slots: { limit: 1, windowMs: 3_600_000 },
        bytes: { limit: 1 << 30, windowMs: 3_600_000 },
      },
    });
    const slot = { file_name: "a.pdf", content_type: "application/pdf", content_length: 50_000 };
    expect(await statusOf(t.fetch("/api/machine/uploads", json(slot)))).toBe(201);
    const limited = await t.fetch("/api/machine/uploads", json(slot));
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(0);
    const u = target();
    expect(await statusOf(u.fetch("/api/machine/uploads", json({ file_name: "" })))).toBe(422);
    const form = new FormData();
    form.append("file", new Blob([Buffer.from(await makePdf(1))], { type: "application/pdf" }), "a.pdf");
    expect(await statusOf(u.fetch("/api/machine/uploads", { method: "POST", body: form }))).toBe(201);
    expect(await statusOf(u.fetch("/api/machine/uploads", { method: "POST", body: "x" }))).toBe(415);
    const empty = new FormData();
    empty.append("note", "no file");
    expect(await statusOf(u.fetch("/api/machine/uploads", { method: "POST", body: empty }))).toBe(422);
    expect(await statusOf(u.fetch("/api/machine/uploads/upl_nope", { method: "POST", body: form }))).toBe(
      404,
    );
  });

  it("a deployment without rails or florist answers their operations with 503", async () => {
    const t = target();
    for (const path of [
      "/api/machine/orders",
      "/api/machine/mpp/orders",
      "/api/machine/flower-letters",
      "/api/machine/flower-letters/validate",
    ]) {
      expect(await statusOf(t.fetch(path, json(letterOrder()))), path).toBe(503);
    }
    expect(await statusOf(t.fetch(`/api/machine/flower-letters/${crypto.randomUUID()}`))).toBe(503);
  });

  it("forms, previews, campaigns, discovery, unknown paths, other methods and malformed paths", async () => {
    const t = target();
    expect(await statusOf(t.fetch("/api/machine/forms?limit=1"))).toBe(200);
    expect(await statusOf(t.fetch("/api/machine/forms?limit=0"))).toBe(400);
    expect(await statusOf(t.fetch("/api/machine/forms/mortgage-servicing-error-packet/schema"))).toBe(200);
    expect(await statusOf(t.fetch("/api/machine/forms/%E0%A4%A/schema"))).toBe(400);
    const view = (await (await t.fetch("/api/machine/orders/validate", json(letterOrder()))).json()) as {
      preview_url: string;
    };
    const preview = new URL(view.preview_url);
    expect(await statusOf(t.fetch(`${preview.pathname}${preview.search}`))).toBe(200);
    expect(await statusOf(t.fetch(`${preview.pathname}?expires=1&sig=x`))).toBe(403);
    expect(await statusOf(t.fetch(`/api/machine/campaigns/${crypto.randomUUID()}`))).toBe(404);
    expect(await statusOf(t.fetch(`/api/machine/orders/${crypto.randomUUID()}`))).toBe(404);
    expect(await statusOf(t.fetch("/.well-known/x402"))).toBe(200);
    expect(await statusOf(t.fetch("/api/machine/nothing-here"))).toBe(404);
    expect(await statusOf(t.fetch("/api/machine/uploads", { method: "PATCH" }))).toBe(405);
    const preflight = await t.fetch("/api/machine/orders", {
      method: "OPTIONS",
      headers: { origin: "https://agent.example", "access-control-request-method": "POST" },
    });
    expect(preflight.status).toBe(204);
  });

  it("fails a response the description does not allow", async () => {
    const app = createMachineApp(
      createMailpieceCore({ store: createMemoryStore(), blobs: createMemoryBlobStore() }),
      { publicUrl: "https://mail.example.com", maxBodyBytes: 1024 },
    );
    const lying = checkedTarget({
      label: "lying",
      fetch: async (path, init) =>
        path === "/openapi.json"
          ? app.fetch(new Request(`http://127.0.0.1${path}`, init))
          : Response.json({ error: "rate_limited", message: "slow down" }, { status: 429 }),
    });
    await expect(lying.fetch("/api/machine/orders/validate", json(letterOrder()))).rejects.toThrow(
      /POST \/api\/machine\/orders\/validate answered 429.*Retry-After/,
    );
  });
});
