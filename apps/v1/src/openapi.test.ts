import { checkedTarget, type HttpTarget, makePdf } from "@mailpiece/conformance";
import type { WebhookRequest } from "@mailpiece/core";
import { Validator } from "@seriousme/openapi-schema-validator";
import type { ValidateFunction } from "ajv";
import Ajv2020 from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { afterEach, describe, expect, it } from "vitest";
import { describedRoutes, V1_SECURITY_SCHEME, v1OpenApi } from "./openapi.ts";
import { address, aliasedAddress as aliased, startV1Server, type V1Server } from "./test-server.fixture.ts";
import { listV1Routes } from "./v1-app.ts";

type Json = Record<string, unknown>;
type Operation = Json & { requestBody?: { content: Record<string, { schema: Json }> }; security?: unknown[] };

let server: V1Server | undefined;

afterEach(async () => {
  await server?.close();
  expect(server?.unexpected ?? []).toEqual([]);
  server = undefined;
});

const PUBLIC_URL = "https://projects.example.com";
/** Where the description's components live for Ajv, so that its $refs resolve. */
const BASE = "https://mailpiece.test/v1-openapi.json";

/** `/letters/:order_id` as the description writes it: `/api/v1/letters/{order_id}`. */
const described = (path: string) => `/api/v1${path.replace(/:([A-Za-z0-9_]+)/g, "{$1}")}`;

/** The operation of the description at `method` and the template of `path` (a concrete path, a query allowed). */
function operationAt(doc: Json, method: string, path: string): { template: string; operation: Operation } {
  const pathname = new URL(path, "http://x").pathname;
  const paths = doc.paths as Record<string, Record<string, Operation>>;
  const templates = Object.keys(paths);
  const pattern = (t: string) => new RegExp(`^${t.replace(/[.]/g, "\\.").replace(/\{[^}]+\}/g, "[^/]+")}$`);
  const template =
    templates.find((t) => t === pathname) ??
    templates.find((t) => t.includes("{") && pattern(t).test(pathname));
  const operation = template === undefined ? undefined : paths[template]?.[method.toLowerCase()];
  if (template === undefined || operation === undefined) {
    throw new Error(`the description lists no ${method} ${pathname}`);
  }
  return { template, operation };
}

/** Compiles schemas of the description with Ajv (draft 2020-12, formats), its components resolvable. */
function schemaCompiler(doc: Json) {
  const ajv = new Ajv2020.default({ strict: false, allErrors: true });
  addFormats.default(ajv);
  ajv.addSchema({ $id: BASE, components: doc.components });
  const compiled = new Map<unknown, ValidateFunction>();
  return (schema: unknown): ValidateFunction => {
    let validate = compiled.get(schema);
    if (!validate) {
      const rebased = JSON.parse(
        JSON.stringify(schema).replaceAll('"$ref":"#/', `"$ref":"${BASE}#/`),
      ) as Json;
      validate = ajv.compile(rebased);
      compiled.set(schema, validate);
    }
    return validate;
  };
}

/** The JSON request body schema of an operation, compiled. */
function requestSchema(doc: Json, method: string, path: string): ValidateFunction {
  const { operation } = operationAt(doc, method, path);
  const schema = operation.requestBody?.content["application/json"]?.schema;
  if (schema === undefined) throw new Error(`${method} ${path} takes no JSON body`);
  return schemaCompiler(doc)(schema);
}

describe("the Projects API's OpenAPI description", () => {
  it("lists exactly the routes createV1App registers; the public ones take no key", async () => {
    server = await startV1Server();
    const doc = v1OpenApi({ publicUrl: PUBLIC_URL });
    const routes = listV1Routes(server.core);
    const registered = routes.map((r) => `${r.method} ${described(r.path)}`).sort();
    expect(new Set(registered).size).toBe(registered.length);
    expect(
      describedRoutes(doc)
        .map((r) => `${r.method} ${r.path}`)
        .sort(),
    ).toEqual(registered);
    for (const route of routes) {
      const { operation } = operationAt(doc, route.method, described(route.path));
      expect(operation.security, `${route.method} ${route.path}`).toEqual(
        route.public ? [] : [{ [V1_SECURITY_SCHEME]: [] }],
      );
      // The app answers the route: OPTIONS on its path names the method in Allow.
      const concrete = route.path.replace(/:[A-Za-z0-9_]+/g, "x");
      const options = await fetch(`${server.base}/api/v1${concrete}`, { method: "OPTIONS" });
      expect(options.status, concrete).toBe(204);
      expect(options.headers.get("allow")?.split(", "), concrete).toContain(route.method);
    }
    expect(routes.filter((r) => r.public).map((r) => `${r.method} ${r.path}`)).toEqual([
      "PUT /documents/:document_id/upload",
      "GET /openapi.json",
    ]);
  });

  it("is a valid OpenAPI 3.1.0 document whose every schema compiles and every operation is unique", async () => {
    const doc = v1OpenApi({ publicUrl: PUBLIC_URL, limits: { maxPdfBytes: 1_000, maxPdfPages: 9 } });
    const result = await new Validator().validate(doc as never);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    const compile = schemaCompiler(doc);
    const schemas = (doc.components as { schemas: Record<string, Json> }).schemas;
    for (const name of Object.keys(schemas)) {
      expect(name.startsWith("V1"), name).toBe(true);
      compile({ $ref: `#/components/schemas/${name}` });
    }
    const ids = Object.values(doc.paths as Record<string, Record<string, Json>>).flatMap((item) =>
      Object.values(item).map((operation) => operation.operationId),
    );
    expect(new Set(ids).size).toBe(ids.length);
    // The deployment's limits are the schema's.
    const intent = requestSchema(doc, "POST", "/api/v1/documents/upload-intent");
    expect(intent({ content_type: "application/pdf", byte_size: 1_000, page_count: 9 })).toBe(true);
    expect(intent({ content_type: "application/pdf", byte_size: 1_001 })).toBe(false);
    expect(intent({ content_type: "application/pdf", byte_size: 10, page_count: 10 })).toBe(false);
  });

  it("states the statuses of each operation: 401 with WWW-Authenticate, 429 with Retry-After, 402 and 409 on sends", () => {
    const doc = v1OpenApi({ publicUrl: PUBLIC_URL });
    type Answers = Record<string, { headers?: Record<string, { required?: boolean }> }>;
    const answers = (method: string, path: string) =>
      (operationAt(doc, method, path).operation.responses ?? {}) as Answers;
    for (const { method, path } of describedRoutes(doc)) {
      const responses = answers(method, path);
      expect(responses["429"]?.headers?.["Retry-After"]?.required, `${method} ${path}`).toBe(true);
      const keyed = (operationAt(doc, method, path).operation.security ?? []).length > 0;
      expect(responses["401"]?.headers?.["WWW-Authenticate"]?.required === true, `${method} ${path}`).toBe(
        keyed,
      );
      expect(responses["403"] !== undefined, `${method} ${path}`).toBe(keyed);
    }
    for (const path of [
      "/api/v1/letters",
      "/api/v1/postcards",
      "/api/v1/handwritten",
      "/api/v1/templates/t/send",
    ]) {
      const { operation } = operationAt(doc, "POST", path);
      expect(Object.keys(operation.responses as Json)).toEqual(
        expect.arrayContaining(["200", "201", "400", "402", "403", "409", "413", "415", "422", "429"]),
      );
      expect(operation.parameters).toContainEqual(
        expect.objectContaining({ name: "Idempotency-Key", in: "header", required: true }),
      );
    }
    expect(Object.keys(answers("GET", "/api/v1/drafts/d") as Json)).toContain("404");
    expect(Object.keys(answers("POST", "/api/v1/drafts/d/release") as Json)).toContain("409");
  });

  it("takes the bodies the route tests send, and refuses malformed ones", () => {
    const doc = v1OpenApi({ publicUrl: PUBLIC_URL });
    const order = {
      quote_id: "qt_1",
      recipient: aliased("Grace"),
      sender: aliased("Ada"),
      metadata: { ref: "A-1" },
    };
    const cases: { method: string; path: string; good: unknown[]; bad: unknown[] }[] = [
      {
        method: "POST",
        path: "/api/v1/letters",
        good: [order],
        bad: [
          { ...order, recipient: undefined },
          { ...order, metadata: { ref: 1 } },
          { ...order, sender: { ...aliased("Ada"), zipcode: "10118" } },
          { ...order, recipient: { name: "Grace", city: "New York", postal_code: "10118" } },
        ],
      },
      {
        method: "POST",
        path: "/api/v1/templates",
        good: [
          {
            name: "Thanks",
            body: "Dear {{first_name}},\n\nThank you for {{item}}.",
            variables: [{ name: "first_name" }, { name: "item" }],
          },
        ],
        bad: [{ name: "Thanks", body: "Hi", variables: [{ name: "1st" }] }, { body: "Hi" }],
      },
      {
        method: "POST",
        path: "/api/v1/templates/tmpl_1/drafts",
        good: [{ variables: { who: "Grace" }, recipient: address("Grace"), sender: address("Ada") }],
        bad: [{ variables: { who: ["Grace"] }, recipient: address("Grace"), sender: address("Ada") }],
      },
      {
        method: "POST",
        path: "/api/v1/handwritten",
        good: [{ message: "Thank you for everything.", recipient: address("Grace"), sender: address("Ada") }],
        bad: [
          { message: "", recipient: address("Grace"), sender: address("Ada") },
          { message: "Hi", style: "gothic", recipient: address("Grace"), sender: address("Ada") },
        ],
      },
      {
        method: "POST",
        path: "/api/v1/drafts",
        good: [{ type: "letter", ...order }],
        bad: [
          { type: "poster", ...order },
          { type: "handwritten", ...order },
        ],
      },
      {
        method: "POST",
        path: "/api/v1/webhook-endpoints",
        good: [{ url: "https://hooks.example.com/in" }],
        bad: [
          { url: "http://hooks.example.com/in" },
          { url: "https://hooks.example.com/in", ed25519: "yes" },
        ],
      },
      {
        method: "POST",
        path: "/api/v1/api-keys/rotate",
        good: [{ mode: "live", permissions: ["mailings.submit_live", "letters:read"] }, { mode: "test" }],
        bad: [
          { mode: "prod", x: 1 },
          { mode: "test", permissions: [] },
          { mode: "test", permission: ["letters:read"] },
        ],
      },
      {
        method: "POST",
        path: "/api/v1/credits/auto-refill",
        good: [{ threshold_cents: 1_000, refill_amount_cents: 2_000 }],
        bad: [{ threshold_cents: 50, refill_amount_cents: 100_001 }, { threshold_cents: 1_000 }],
      },
    ];
    for (const { method, path, good, bad } of cases) {
      const validate = requestSchema(doc, method, path);
      for (const body of good) expect(validate(body), `${path} takes ${JSON.stringify(body)}`).toBe(true);
      for (const body of bad) expect(validate(body), `${path} refuses ${JSON.stringify(body)}`).toBe(false);
    }
  });

  it("describes every answer of a whole flow, and takes every body the server took", async () => {
    const received: WebhookRequest[] = [];
    const s = await startV1Server({
      requestsPerMinute: 1_000,
      webhooks: {
        webhookSender: async (request) => {
          received.push(request);
          return { status: 200 };
        },
        checkWebhookUrl: async () => {},
      },
    });
    server = s;
    const doc = v1OpenApi({ publicUrl: s.base, limits: s.core.config });
    const compile = schemaCompiler(doc);
    /** Requests whose body the description refuses although the server took it. */
    const misfits: string[] = [];
    const raw: HttpTarget = {
      label: "v1",
      fetch: async (path, init) => {
        // The description is served by the app itself.
        const response = await fetch(
          `${s.base}${path === "/openapi.json" ? "/api/v1/openapi.json" : path}`,
          init,
        );
        const type = new Headers(init?.headers).get("content-type");
        if (typeof init?.body === "string" && type === "application/json" && response.status < 300) {
          const { operation } = operationAt(doc, init.method ?? "GET", path);
          const schema = operation.requestBody?.content["application/json"]?.schema;
          const validate = schema === undefined ? undefined : compile(schema);
          if (!validate?.(JSON.parse(init.body))) {
            misfits.push(`${init.method} ${path} ${JSON.stringify(validate?.errors ?? "no request body")}`);
          }
        }
        return response;
      },
    };
    const t = checkedTarget(raw);
    const { test_api_key: key } = await s.workspace();
    const auth = { authorization: `Bearer ${key}` };
    const get = (path: string, bearer: Record<string, string> = auth) =>
      t.fetch(`/api/v1${path}`, { headers: bearer });
    const send = (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
      t.fetch(`/api/v1${path}`, {
        method,
        headers: {
          ...auth,
          ...(body === undefined ? {} : { "content-type": "application/json" }),
          ...headers,
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
    const read = async (response: Promise<Response>, status: number) => {
      const answer = await response;
      const text = await answer.text();
      expect(answer.status, text.slice(0, 500)).toBe(status);
      return JSON.parse(text) as Json & { id: string };
    };

    // Discovery, keys and the failures every route shares.
    await read(t.fetch("/api/v1/openapi.json"), 200);
    expect((await get("/credits/balance", {})).headers.get("www-authenticate")).toBe('Bearer realm="api"');
    expect((await get("/credits/balance", { authorization: "Bearer svc_test_nope" })).status).toBe(401);
    expect((await get("/nowhere")).status).toBe(404);
    expect((await send("DELETE", "/credits/balance")).status).toBe(405);
    expect((await send("OPTIONS", "/credits/balance")).status).toBe(204);
    expect((await t.fetch("/api/v1/drafts/%E0%A4%A", { headers: auth })).status).toBe(400);
    await read(get("/api-keys"), 200);
    const reader = await read(
      send("POST", "/api-keys/rotate", { mode: "test", permissions: ["letters:read"] }),
      201,
    );
    await read(send("POST", "/api-keys/rotate", { mode: "prod" }), 422);
    expect(
      (
        await t.fetch("/api/v1/api-keys/rotate", {
          method: "POST",
          headers: { ...auth, "content-type": "application/json" },
          body: "{",
        })
      ).status,
    ).toBe(400);
    expect(
      (
        await send(
          "POST",
          "/credits/checkout-session",
          { amount_cents: 500 },
          { "content-type": "text/plain" },
        )
      ).status,
    ).toBe(415);

    // Credits.
    await read(get("/credits/balance"), 200);
    await read(get("/credits/ledger?limit=5"), 200);
    expect((await get("/credits/ledger?limit=0")).status).toBe(400);
    await read(send("POST", "/credits/checkout-session", { amount_cents: 500 }), 201);
    const setup = await read(send("POST", "/credits/payment-methods/setup-session"), 201);
    await read(get("/credits/auto-refill"), 200);
    await read(
      send("POST", "/credits/auto-refill", { threshold_cents: 1_000, refill_amount_cents: 2_000 }),
      409,
    );
    await s.core.projects.completeSetup(setup.id, { token: "spt_test_ok" });
    await read(get("/credits/payment-methods"), 200);
    await read(
      send("POST", "/credits/auto-refill", { threshold_cents: 1_000, refill_amount_cents: 2_000 }),
      200,
    );

    // A document, its quote and its order.
    const pdf = await makePdf(1);
    const intent = await read(
      send("POST", "/documents/upload-intent", {
        content_type: "application/pdf",
        byte_size: pdf.byteLength,
      }),
      201,
    );
    const upload = new URL(intent.upload_url as string);
    const put = (token: string) =>
      t.fetch(`${upload.pathname}?token=${token}`, {
        method: "PUT",
        headers: { "content-type": "application/pdf", "content-length": String(pdf.byteLength) },
        body: pdf,
      });
    expect((await put("wrong")).status).toBe(404);
    await read(put(upload.searchParams.get("token")!), 200);
    const documentId = intent.document_id as string;
    await read(send("POST", `/documents/${documentId}/complete`, { page_count: 2 }), 422);
    await read(send("POST", `/documents/${documentId}/complete`, { page_count: 1 }), 200);
    await read(get(`/documents/${documentId}`), 200);
    await read(send("POST", "/postcards/quotes", { document_id: documentId, postcard_size: "4x6" }), 422);
    const quote = await read(send("POST", "/letters/quotes", { document_id: documentId, color: true }), 201);
    const order = {
      quote_id: quote.quote_id,
      recipient: address("Grace"),
      sender: address("Ada"),
      metadata: { ref: "A-1" },
    };
    await read(send("POST", "/letters", order), 400);
    const letter = await read(send("POST", "/letters", order, { "idempotency-key": "order-1" }), 201);
    await read(send("POST", "/letters", order, { "idempotency-key": "order-1" }), 200);
    await read(send("POST", "/letters", { ...order, metadata: {} }, { "idempotency-key": "order-1" }), 409);
    expect((await get(`/letters/${letter.id}/document.pdf`)).status).toBe(200);
    await read(get(`/postcards/${letter.id}`), 404);
    await read(get(`/letters/${letter.id}/return-receipt.pdf`), 404);
    const zip = await get("/return-receipts/export.zip?limit=10");
    expect(zip.status).toBe(200);
    expect(zip.headers.get("x-receipt-count")).toBe("0");

    // Webhooks: an endpoint sees the letter's events.
    const endpoint = await read(
      send("POST", "/webhook-endpoints", { url: "https://hooks.example.com/in" }),
      201,
    );
    await read(send("POST", "/webhook-endpoints", { url: "http://hooks.example.com/in" }), 422);
    await read(get("/webhook-endpoints"), 200);
    for (let round = 0; round < 6; round++) {
      await s.core.fulfil();
      s.advance(1_000);
    }
    await s.core.fulfil();
    const tracked = await read(get(`/letters/${letter.id}`), 200);
    expect((tracked.webhook_events as Json[]).length).toBeGreaterThan(0);
    const events = await read(get("/webhook-events?limit=2"), 200);
    const eventId = (events.data as Json[])[0]!.id as string;
    await read(send("POST", `/webhook-events/${eventId}/replay`), 202);
    await read(send("POST", `/webhook-endpoints/${endpoint.id}/rotate-secret`), 200);
    await read(send("DELETE", `/webhook-endpoints/${endpoint.id}`), 200);
    await read(send("POST", `/webhook-events/${eventId}/replay`), 409);
    const delivery = compile({ $ref: "#/components/schemas/V1WebhookDeliveryBody" });
    expect(received.length).toBeGreaterThan(0);
    for (const request of received) expect(delivery(JSON.parse(request.body)), request.body).toBe(true);

    // Drafts and approvals.
    const next = await read(send("POST", "/letters/quotes", { document_id: documentId }), 201);
    const draft = await read(
      send("POST", "/drafts", { type: "letter", ...order, quote_id: next.quote_id }),
      201,
    );
    await read(send("POST", "/drafts", { type: "poster" }), 422);
    await read(get("/drafts?state=draft"), 200);
    await read(get(`/drafts/${draft.id}?revision=1`), 200);
    await read(send("PATCH", `/drafts/${draft.id}`, { metadata: { cost_center: "CC-78" } }), 200);
    await read(send("POST", `/drafts/${draft.id}/request-approval`), 200);
    await read(get("/approvals"), 200);
    await read(get(`/approvals/${draft.id}`), 200);
    await read(send("POST", `/drafts/${draft.id}/withdraw`, {}), 200);
    await read(send("POST", `/drafts/${draft.id}/refresh`), 200);
    await read(send("POST", `/drafts/${draft.id}/release`), 201);
    await read(send("POST", `/drafts/${draft.id}/release`), 200);
    await read(send("POST", `/drafts/${draft.id}/discard`), 409);
    await read(get("/drafts/dft_nothing"), 404);

    // Templates and handwritten mail.
    const template = await read(
      send("POST", "/templates", { name: "Note", body: "Hello {{who}}.", variables: [{ name: "who" }] }),
      201,
    );
    await read(get("/templates"), 200);
    await read(send("PATCH", `/templates/${template.id}`, { name: "Note (v2)" }), 200);
    const templateSend = { variables: { who: "Grace" }, recipient: address("Grace"), sender: address("Ada") };
    await read(
      send("POST", `/templates/${template.id}/send`, templateSend, { "idempotency-key": "t-1" }),
      201,
    );
    await read(
      send(
        "POST",
        `/templates/${template.id}/send`,
        { ...templateSend, variables: {} },
        { "idempotency-key": "t-2" },
      ),
      422,
    );
    await read(send("POST", `/templates/${template.id}/drafts`, templateSend), 201);
    await read(send("DELETE", `/templates/${template.id}`), 200);
    await read(get(`/templates/${template.id}`), 200);
    const card = {
      message: "Thank you for everything.",
      recipient: address("Grace"),
      sender: address("Ada"),
    };
    const handwritten = await read(send("POST", "/handwritten", card, { "idempotency-key": "h-1" }), 201);
    await read(get(`/handwritten/${handwritten.id}`), 200);
    expect((await get(`/handwritten/${handwritten.id}/document.pdf`)).status).toBe(200);
    await read(send("POST", "/handwritten/drafts", card), 201);

    // A key that may only read.
    const readOnly = { authorization: `Bearer ${reader.api_key}` };
    await read(send("POST", "/handwritten", card, { ...readOnly, "idempotency-key": "h-2" }), 403);

    expect(misfits).toEqual([]);
  });

  it("answers 402 and 429 with Retry-After as described, and serves itself without a key", async () => {
    const s = await startV1Server({ requestsPerMinute: 3, core: { testCreditsCents: 1 } });
    server = s;
    const t = checkedTarget({
      label: "v1",
      fetch: (path, init) =>
        fetch(`${s.base}${path === "/openapi.json" ? "/api/v1/openapi.json" : path}`, init),
    });
    const { test_api_key: key } = await s.workspace();
    const served = await t.fetch("/api/v1/openapi.json");
    expect(served.status).toBe(200);
    expect(served.headers.get("content-type")).toBe("application/json");
    expect(await served.json()).toEqual(v1OpenApi({ publicUrl: s.base, limits: s.core.config }));
    expect((await fetch(`${s.base}/api/v1/openapi.json`, { method: "HEAD" })).status).toBe(200);
    const headers = { authorization: `Bearer ${key}` };
    const poor = await t.fetch("/api/v1/handwritten", {
      method: "POST",
      headers: { ...headers, "content-type": "application/json", "idempotency-key": "h-1" },
      body: JSON.stringify({ message: "Thank you.", recipient: address("Grace"), sender: address("Ada") }),
    });
    expect(poor.status).toBe(402);
    expect(await poor.json()).toMatchObject({ error: "insufficient_credits" });
    for (let i = 0; i < 2; i++)
      expect((await t.fetch("/api/v1/credits/balance", { headers })).status).toBe(200);
    const limited = await t.fetch("/api/v1/credits/balance", { headers });
    expect(limited.status).toBe(429);
    expect(limited.headers.get("retry-after")).toMatch(/^[0-9]+$/);
  });
});
