import { checkedTarget } from "@mailpiece/conformance";
import { buildOpenApi } from "@mailpiece/machine";
import { Validator } from "@seriousme/openapi-schema-validator";
import { afterEach, describe, expect, it } from "vitest";
import { V1_SECURITY_SCHEME, v1OpenApi } from "./openapi.ts";
import { mergeV1OpenApi } from "./openapi-merge.ts";
import { startV1Server, type V1Server } from "./test-server.fixture.ts";

type Json = Record<string, unknown>;
type Description = Json & {
  tags: { name: string }[];
  paths: Record<string, Json>;
  webhooks?: Json;
  components: Json & { schemas: Json; securitySchemes?: Json; responses?: Json };
};

let server: V1Server | undefined;

afterEach(async () => {
  await server?.close();
  expect(server?.unexpected ?? []).toEqual([]);
  server = undefined;
});

const PUBLIC_URL = "https://mail.example.com";
const machineDescription = () =>
  buildOpenApi({
    publicUrl: PUBLIC_URL,
    maxBodyBytes: 512 * 1024,
    orderBounds: { min_cents: 300, max_cents: 25_000 },
  }) as Description;

describe("mergeV1OpenApi", () => {
  it("adds the Projects API to the machine API's description and leaves every byte of the machine part as it was", async () => {
    const machine = machineDescription();
    const before = JSON.stringify(machine);
    const v1 = v1OpenApi({ publicUrl: PUBLIC_URL }) as Description;
    const merged = mergeV1OpenApi(machine, v1) as Description;
    expect(JSON.stringify(machine)).toBe(before);

    const result = await new Validator().validate(merged as never);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    for (const path of Object.keys(v1.paths)) expect(merged.paths[path]).toEqual(v1.paths[path]);
    expect(merged.paths["/api/v1/letters"]).toBeDefined();
    expect(merged.components.securitySchemes?.[V1_SECURITY_SCHEME]).toMatchObject({ scheme: "bearer" });
    expect(merged.webhooks).toEqual(v1.webhooks);

    // Without what was added, the merged description is the machine's, key for key and in order.
    const stripped = structuredClone(merged);
    for (const path of Object.keys(v1.paths)) delete stripped.paths[path];
    for (const name of Object.keys(v1.components.schemas)) delete stripped.components.schemas[name];
    delete stripped.components.securitySchemes;
    delete stripped.webhooks;
    stripped.tags = stripped.tags.slice(0, machine.tags.length);
    expect(JSON.stringify(stripped)).toBe(before);
  });

  it("refuses a description that already holds a path, an operation or a component of the Projects API", () => {
    const v1 = v1OpenApi({ publicUrl: PUBLIC_URL }) as Description;
    const merged = mergeV1OpenApi(machineDescription(), v1);
    expect(() => mergeV1OpenApi(merged, v1)).toThrow(/already in the description/);
    const clash = machineDescription();
    clash.components.schemas.V1Order = {};
    expect(() => mergeV1OpenApi(clash, v1)).toThrow(/component schema V1Order/);
    const sameId = machineDescription();
    sameId.paths["/elsewhere"] = { get: { operationId: "v1GetLetter", responses: {} } };
    expect(() => mergeV1OpenApi(sameId, v1)).toThrow(/operationId v1GetLetter/);
  });

  it("describes the Projects API's answers, those no operation lists included, with the machine's shared answers", async () => {
    const s = await startV1Server();
    server = s;
    const merged = mergeV1OpenApi(
      machineDescription(),
      v1OpenApi({ publicUrl: s.base, limits: s.core.config }),
    );
    const t = checkedTarget({
      label: "merged",
      fetch: async (path, init) =>
        path === "/openapi.json" ? Response.json(merged) : fetch(`${s.base}${path}`, init),
    });
    const { test_api_key: key } = await s.workspace();
    const headers = { authorization: `Bearer ${key}` };
    expect((await t.fetch("/api/v1/credits/balance", { headers })).status).toBe(200);
    expect((await t.fetch("/api/v1/credits/balance")).status).toBe(401);
    expect((await t.fetch("/api/v1/nowhere", { headers })).status).toBe(404);
    expect((await t.fetch("/api/v1/credits/balance", { method: "PUT", headers })).status).toBe(405);
    expect((await t.fetch("/api/v1/credits/balance", { method: "OPTIONS" })).status).toBe(204);
    expect((await t.fetch("/api/v1/drafts/%E0%A4%A", { headers })).status).toBe(400);
    expect((await t.fetch("/api/v1/openapi.json")).status).toBe(200);
  });
});
