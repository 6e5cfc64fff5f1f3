import { describe, expect, it } from "vitest";
import { checkedTarget } from "./http-target.ts";
import { responseChecker } from "./openapi-responses.ts";

const error = { $ref: "#/components/schemas/Error" };
const document = {
  openapi: "3.1.0",
  info: { title: "t", version: "1" },
  paths: {
    "/things/{id}": {
      get: {
        responses: {
          "200": {
            description: "A thing.",
            headers: { "X-Version": { required: true, schema: { type: "string" } } },
            content: {
              "application/json": {
                schema: {
                  type: "object",
                  required: ["id"],
                  properties: { id: { type: "string", format: "uuid" } },
                  additionalProperties: false,
                },
              },
              "text/html": { schema: { type: "string" } },
            },
          },
          "404": { description: "No such thing.", content: { "application/json": { schema: error } } },
        },
      },
    },
    "/things/special": { post: { responses: { "204": { description: "Done." } } } },
  },
  components: {
    schemas: {
      Error: {
        type: "object",
        required: ["error"],
        properties: { error: { type: "string" } },
        additionalProperties: false,
      },
    },
    responses: {
      NotFound: { description: "Unknown path.", content: { "application/json": { schema: error } } },
      MethodNotAllowed: {
        description: "Other method.",
        headers: { Allow: { required: true, schema: { type: "string" } } },
        content: { "application/json": { schema: error } },
      },
      Preflight: { description: "CORS preflight." },
    },
  },
};

const checker = responseChecker(document);
const id = "3f0c6a1e-5b7d-4c2a-9e8f-1a2b3c4d5e6f";
const ok = (body: unknown, headers: Record<string, string> = { "x-version": "1" }, status = 200) =>
  Response.json(body, { status, headers });

describe("responses checked against an OpenAPI 3.1 document", () => {
  it("accepts the answers the document describes", async () => {
    await checker.check("GET", `/things/${id}?x=1`, ok({ id }));
    await checker.check("get", `/things/${id}`, ok({ error: "not_found" }, {}, 404));
    await checker.check(
      "GET",
      `/things/${id}`,
      new Response("<p>hi</p>", {
        headers: { "content-type": "text/html; charset=utf-8", "x-version": "1" },
      }),
    );
    await checker.check("POST", "/things/special", new Response(null, { status: 204 }));
    await checker.check("GET", "/nowhere", ok({ error: "not_found" }, {}, 404));
    await checker.check("DELETE", "/things/special", ok({ error: "nope" }, { allow: "POST" }, 405));
    await checker.check("OPTIONS", "/things/special", new Response(null, { status: 204 }));
  });

  it("refuses a body that does not match its schema, naming method, path, status and the error", async () => {
    await expect(checker.check("GET", `/things/${id}`, ok({ id: "nope", extra: 1 }))).rejects.toThrow(
      /GET \/things\/3f0c.* answered 200.*\/id must match format "uuid".*extra/s,
    );
  });

  it("refuses an undocumented status, path, method answer, content type or a missing required header", async () => {
    await expect(checker.check("GET", `/things/${id}`, ok({ error: "x" }, {}, 500))).rejects.toThrow(
      /does not list 500 for GET \/things\/\{id\}/,
    );
    await expect(checker.check("GET", "/nowhere", ok({ id }))).rejects.toThrow(/NotFound \(404\)/);
    await expect(checker.check("DELETE", "/things/special", ok({ error: "x" }, {}, 405))).rejects.toThrow(
      /requires the header Allow/,
    );
    await expect(
      checker.check(
        "GET",
        `/things/${id}`,
        new Response("x", { headers: { "content-type": "text/plain", "x-version": "1" } }),
      ),
    ).rejects.toThrow(/not the content type "text\/plain"/);
    await expect(checker.check("GET", `/things/${id}`, ok({ id }, {}))).rejects.toThrow(
      /requires the header X-Version/,
    );
    await expect(
      checker.check("OPTIONS", "/things/special", new Response("body", { status: 200 })),
    ).rejects.toThrow(/describes no body/);
  });

  it("checks every answer of a target against the target's own /openapi.json, fetched once", async () => {
    let described = 0;
    const target = checkedTarget({
      label: "fake",
      fetch: async (path) => {
        if (path === "/openapi.json") {
          described++;
          return Response.json(document);
        }
        return path.startsWith("/things/") ? ok({ id }) : ok({ surprise: true }, {}, 404);
      },
    });
    expect((await target.fetch(`/things/${id}`)).status).toBe(200);
    expect((await (await target.fetch(`/things/${id}`)).json()) as unknown).toEqual({ id });
    await expect(target.fetch("/elsewhere")).rejects.toThrow(/GET \/elsewhere answered 404.*surprise/s);
    expect(described).toBe(1);
  });
});
