import { afterEach, describe, expect, it } from "vitest";
import { address, startV1Server, type V1Server } from "../test-server.fixture.ts";

let server: V1Server | undefined;

afterEach(async () => {
  await server?.close();
  expect(server?.unexpected ?? []).toEqual([]);
  server = undefined;
});

type Json = Record<string, unknown>;
const read = async (response: Response) => (await response.json()) as Json;

const send = (s: V1Server, path: string, key: string, body: unknown, idempotencyKey: string) =>
  s.call(path, key, {
    method: "POST",
    headers: { "content-type": "application/json", "idempotency-key": idempotencyKey },
    body: JSON.stringify(body),
  });

describe("templates and handwritten mail over HTTP", () => {
  it("creates a template, versions it, sends one letter per key, refuses a missing variable and an archived template", async () => {
    const s = await startV1Server();
    server = s;
    const { test_api_key: key } = await s.workspace();
    const created = await s.post("/templates", key, {
      name: "Thanks",
      body: "Dear {{first_name}},\n\nThank you for {{item}}.",
      variables: [{ name: "first_name" }, { name: "item" }],
    });
    expect(created.status).toBe(201);
    const template = await read(created);
    const patched = await s.call(`/templates/${template.id}`, key, {
      method: "PATCH",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ name: "Thanks (v2)" }),
    });
    expect(await read(patched)).toMatchObject({ id: template.id, name: "Thanks (v2)", version: 2 });
    expect(((await read(await s.call("/templates", key))).data as Json[]).map((t) => t.id)).toEqual([
      template.id,
    ]);

    const body = {
      variables: { first_name: "Grace", item: "the tea" },
      recipient: address("Grace"),
      sender: address("Ada"),
    };
    const missing = await send(s, `/templates/${template.id}/send`, key, { ...body, variables: {} }, "t-0");
    expect(missing.status).toBe(422);
    expect(JSON.stringify(await read(missing))).toContain("variables.first_name");
    const first = await send(s, `/templates/${template.id}/send`, key, body, "t-1");
    expect(first.status).toBe(201);
    const order = await read(first);
    expect(order).toMatchObject({
      mailpiece_type: "letter",
      template_id: template.id,
      funds_status: "reserved",
    });
    expect((await send(s, `/templates/${template.id}/send`, key, body, "t-1")).status).toBe(200);
    expect(await read(await s.call(`/letters/${order.id}`, key))).toMatchObject({ id: order.id });
    const balance = await read(await s.call("/credits/balance", key));
    expect(balance.reserved_cents).toBe(order.price_cents);

    expect((await s.call(`/templates/${template.id}`, key, { method: "DELETE" })).status).toBe(200);
    const archived = await send(s, `/templates/${template.id}/send`, key, body, "t-2");
    expect(archived.status).toBe(409);
    expect(await read(archived)).toMatchObject({ error: "state_conflict" });
    const { test_api_key: other } = await s.workspace("Other");
    expect((await s.call(`/templates/${template.id}`, other)).status).toBe(404);
  });

  it("a template draft sends the version it was saved with, also after the template changed", async () => {
    const s = await startV1Server();
    server = s;
    const { test_api_key: key } = await s.workspace();
    const template = await read(
      await s.post("/templates", key, { name: "Note", body: "Hello {{who}}.", variables: [{ name: "who" }] }),
    );
    const drafted = await s.post(`/templates/${template.id}/drafts`, key, {
      variables: { who: "Grace" },
      recipient: address("Grace"),
      sender: address("Ada"),
    });
    expect(drafted.status).toBe(201);
    const draft = await read(drafted);
    await s.call(`/templates/${template.id}`, key, {
      method: "PATCH",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ body: "Goodbye {{who}}." }),
    });
    const released = await s.call(`/drafts/${draft.id}/release`, key, { method: "POST" });
    expect(released.status).toBe(201);
    const order = await read(released);
    expect(await read(await s.call(`/letters/${order.id}`, key))).toMatchObject({
      template_id: template.id,
      template_version: 1,
    });
    expect((await s.post(`/templates/${template.id}/drafts`, key, {})).status).toBe(422);
  });

  it("sends a handwritten card, reads it and its proof, and drafts one without spending", async () => {
    const s = await startV1Server();
    server = s;
    const { test_api_key: key } = await s.workspace();
    const body = {
      message: "Thank you for everything.",
      recipient: address("Grace"),
      sender: address("Ada"),
    };
    const tooLong = await send(s, "/handwritten", key, { ...body, message: "x".repeat(5000) }, "h-0");
    expect(tooLong.status).toBe(422);
    const created = await send(s, "/handwritten", key, body, "h-1");
    expect(created.status).toBe(201);
    const order = await read(created);
    expect(order).toMatchObject({
      object: "handwritten",
      mailpiece_type: "handwritten",
      tracking_number: null,
    });
    const proof = await s.call(`/handwritten/${order.id}/document.pdf`, key);
    expect(proof.headers.get("content-type")).toBe("application/pdf");
    expect(new TextDecoder().decode((await proof.arrayBuffer()).slice(0, 5))).toBe("%PDF-");
    expect((await s.call(`/letters/${order.id}`, key)).status).toBe(404);

    const before = await read(await s.call("/credits/balance", key));
    const drafted = await s.post("/handwritten/drafts", key, body);
    expect(drafted.status).toBe(201);
    expect(await read(drafted)).toMatchObject({ object: "draft", type: "handwritten" });
    expect(await read(await s.call("/credits/balance", key))).toEqual(before);
  });
});
