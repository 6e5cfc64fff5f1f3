import { letterOrder } from "@mailpiece/conformance";
import { createMailpieceCore } from "@mailpiece/core";
import { PdfWorkError } from "@mailpiece/pdf-work";
import { createMemoryBlobStore, createMemoryStore } from "@mailpiece/store-unstorage";
import Ajv2020 from "ajv/dist/2020.js";
import { describe, expect, it } from "vitest";
import { createMachineApp } from "./app.ts";
import { ErrorBody } from "./schemas.ts";

const isError = new Ajv2020.default({ strict: false }).compile(JSON.parse(JSON.stringify(ErrorBody)));

function makeApp(
  config: Parameters<typeof createMailpieceCore>[0]["config"] = {},
  maxInflightBodyBytes?: number,
) {
  const core = createMailpieceCore({ store: createMemoryStore(), blobs: createMemoryBlobStore(), config });
  return createMachineApp(core, {
    publicUrl: "https://mail.example.com",
    maxBodyBytes: 64 * 1024,
    ...(maxInflightBodyBytes === undefined ? {} : { maxInflightBodyBytes }),
  });
}

type Json = Record<string, unknown>;

const fetchIn = (app: ReturnType<typeof makeApp>, path: string, init?: RequestInit) =>
  app.fetch(new Request(`http://127.0.0.1${path}`, init));

const jsonOf = async (res: Response): Promise<Json> => (await res.json()) as Json;

const validate = (app: ReturnType<typeof makeApp>, body: unknown, headers: Record<string, string> = {}) =>
  fetchIn(app, "/api/machine/orders/validate", {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
  });

describe("the machine app against hostile requests", () => {
  it("answers another method on a known path with 405 and Allow, in the published error shape", async () => {
    const app = makeApp();
    for (const [method, path, allow] of [
      ["GET", "/api/machine/orders", "POST, OPTIONS"],
      ["DELETE", "/api/machine/orders/validate", "POST, OPTIONS"],
      ["PUT", "/api/machine/forms", "GET, OPTIONS"],
      ["PATCH", "/api/machine/uploads", "POST, OPTIONS"],
    ] as const) {
      const res = await fetchIn(app, path, { method });
      expect(res.status, `${method} ${path}`).toBe(405);
      expect(res.headers.get("allow")).toBe(allow);
      const body = await jsonOf(res);
      expect(body.error).toBe("method_not_allowed");
      expect(isError(body)).toBe(true);
    }
    expect((await fetchIn(app, "/api/machine/nothing-here")).status).toBe(404);
  });

  it("answers a malformed percent-encoding in a path with 400, and echoes no long id", async () => {
    const app = makeApp();
    const bad = await fetchIn(app, "/api/machine/forms/%E0%A4%A/schema");
    expect(bad.status).toBe(400);
    expect((await jsonOf(bad)).error).toBe("invalid_path");
    const longId = "x".repeat(15_000);
    for (const path of [`/api/machine/orders/${longId}`, `/api/machine/forms/${longId}/schema`]) {
      const res = await fetchIn(app, path);
      expect(res.status).toBe(404);
      const text = await res.text();
      expect(text.length).toBeLessThan(400);
    }
  });

  it("limits validations per client with 429 and Retry-After", async () => {
    const app = makeApp({ validateRateLimit: { limit: 2, windowMs: 60_000 } });
    const statuses = [];
    for (let i = 0; i < 3; i++) statuses.push((await validate(app, letterOrder())).status);
    expect(statuses).toEqual([200, 200, 429]);
    const limited = await validate(app, letterOrder());
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    const body = await jsonOf(limited);
    expect(body.error).toBe("rate_limited");
    expect(isError(body)).toBe(true);
  }, 60_000);

  it("tells a client whose data URL is too large to upload the PDF instead", async () => {
    const app = makeApp();
    const res = await validate(
      app,
      letterOrder({ letter: undefined, pdf: `data:application/pdf;base64,${"A".repeat(70_000)}` }),
    );
    expect(res.status).toBe(413);
    expect((await jsonOf(res)).message).toContain("upload_token");
  });

  it("answers 503 with Retry-After when the document workers are busy, and stores nothing", async () => {
    const store = createMemoryStore();
    const busy = new PdfWorkError("pdf_work_busy", "busy", { retryAfterSeconds: 3 });
    const core = createMailpieceCore({
      store,
      blobs: createMemoryBlobStore(),
      pdfWork: {
        typesetLetter: () => Promise.reject(busy),
        typesetHandwritten: () => Promise.reject(busy),
        watermarkPdf: () => Promise.reject(busy),
        inspectPdf: () => Promise.reject(busy),
        checkPostcard: () => Promise.reject(busy),
        buildPacket: () => Promise.reject(busy),
        close: async () => {},
      },
    });
    const app = createMachineApp(core, { publicUrl: "https://mail.example.com", maxBodyBytes: 64 * 1024 });
    const res = await app.fetch(
      new Request("http://127.0.0.1/api/machine/orders/validate", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(letterOrder()),
      }),
    );
    expect(res.status).toBe(503);
    expect(res.headers.get("retry-after")).toBe("3");
    expect((await jsonOf(res)).error).toBe("service_busy");
    expect((await store.list("", { limit: 10 })).records).toEqual([]);
  });

  it("turns a request away with 503 before reading it when large bodies already fill the budget", async () => {
    const app = makeApp({}, 1_000);
    const body = JSON.stringify(letterOrder()).padEnd(900, " ");
    let release!: () => void;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    // A: 900 bytes declared, sent slowly; its handler holds them while it waits for the rest.
    const slow = fetchIn(app, "/api/machine/orders/validate", {
      method: "POST",
      headers: { "content-type": "application/json", "content-length": String(body.length) },
      body: new ReadableStream({
        async start(controller) {
          controller.enqueue(new TextEncoder().encode(body.slice(0, 100)));
          await held;
          controller.enqueue(new TextEncoder().encode(body.slice(100)));
          controller.close();
        },
      }),
      duplex: "half",
    } as RequestInit);
    await new Promise((resolve) => setTimeout(resolve, 50));
    // B: 500 more bytes would pass the budget: 503 before its body is read.
    const turnedAway = await validate(app, letterOrder(), { "content-length": "500" });
    expect(turnedAway.status).toBe(503);
    expect(turnedAway.headers.get("retry-after")).toBe("2");
    expect((await jsonOf(turnedAway)).error).toBe("service_busy");
    release();
    expect((await slow).status).toBe(200);
    // With A done, B gets in.
    expect((await validate(app, letterOrder())).status).toBe(200);
  }, 60_000);

  it("lists only the resources it sells in /.well-known/x402: no flower letters without a florist", async () => {
    const res = await fetchIn(makeApp(), "/.well-known/x402");
    const body = await jsonOf(res);
    expect(body.resources).toEqual(["https://mail.example.com/api/machine/orders"]);
  });
});
