import { makePdf } from "@mailpiece/conformance";
import { afterEach, describe, expect, it } from "vitest";
import { aliasedAddress as address, startV1Server, type V1Server } from "../test-server.fixture.ts";

let server: V1Server | undefined;

afterEach(async () => {
  await server?.close();
  expect(server?.unexpected ?? []).toEqual([]);
  server = undefined;
});

/** A workspace's key and a quote of a one-page letter it uploaded. */
async function quoted(s: V1Server) {
  const { test_api_key: key } = await s.workspace();
  const pdf = await makePdf(1);
  const intent = (await (
    await s.post("/documents/upload-intent", key, {
      content_type: "application/pdf",
      byte_size: pdf.byteLength,
    })
  ).json()) as { document_id: string; upload_url: string };
  await fetch(intent.upload_url, {
    method: "PUT",
    headers: { "content-type": "application/pdf" },
    body: pdf,
  });
  await s.post(`/documents/${intent.document_id}/complete`, key, { page_count: 1 });
  const quote = async () =>
    (await (await s.post("/letters/quotes", key, { document_id: intent.document_id })).json()) as {
      quote_id: string;
      price_cents: number;
    };
  return { key, quote, pdf };
}

const order = (s: V1Server, key: string, body: unknown, idempotencyKey?: string) =>
  s.call("/letters", key, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      ...(idempotencyKey ? { "idempotency-key": idempotencyKey } : {}),
    },
    body: JSON.stringify(body),
  });

describe("orders over HTTP", () => {
  it("creates a letter once per Idempotency-Key, reads it and its PDF, and keeps it from other workspaces", async () => {
    server = await startV1Server();
    const { key, quote, pdf } = await quoted(server);
    const body = {
      quote_id: (await quote()).quote_id,
      recipient: address("Grace"),
      sender: address("Ada"),
      metadata: { ref: "A-1" },
    };
    expect((await order(server, key, body)).status).toBe(400);
    const created = await order(server, key, body, "order-1");
    expect(created.status).toBe(201);
    const view = (await created.json()) as {
      id: string;
      status: string;
      funds_status: string;
      idempotent_replay: boolean;
    };
    expect(view).toMatchObject({ status: "queued", funds_status: "reserved", idempotent_replay: false });
    const replay = await order(server, key, body, "order-1");
    expect(replay.status).toBe(200);
    expect(await replay.json()).toMatchObject({ id: view.id, idempotent_replay: true });
    const conflict = await order(server, key, { ...body, metadata: {} }, "order-1");
    expect(conflict.status).toBe(409);
    expect(await conflict.json()).toMatchObject({ error: "idempotency_conflict" });

    const read = await server.call(`/letters/${view.id}`, key);
    expect(await read.json()).toMatchObject({ id: view.id, metadata: { ref: "A-1" }, mode: "test" });
    const document = await server.call(`/letters/${view.id}/document.pdf`, key);
    expect(document.headers.get("content-type")).toBe("application/pdf");
    expect(new Uint8Array(await document.arrayBuffer())).toEqual(pdf);
    expect((await server.call(`/postcards/${view.id}`, key)).status).toBe(404);
    const { test_api_key: other } = await server.workspace("Other");
    expect((await server.call(`/letters/${view.id}`, other)).status).toBe(404);
    expect((await server.call(`/letters/${view.id}/document.pdf`, other)).status).toBe(404);
    const overlong = await order(
      server,
      key,
      { ...body, quote_id: (await quote()).quote_id, recipient: address("x".repeat(300)) },
      "order-2",
    );
    expect(overlong.status).toBe(422);
    expect(((await overlong.json()) as { issues: { path: string; code: string }[] }).issues).toContainEqual(
      expect.objectContaining({ path: "recipient.name", code: "name_too_long" }),
    );
  });

  it("creates a postcard from its quote, reads it and its PDF, and keeps it apart from letters", async () => {
    server = await startV1Server();
    const { test_api_key: key } = await server.workspace();
    // Both sides on the 4x6 bleed canvas (6.25 x 4.25 in).
    const pdf = await makePdf(2, [450, 306]);
    const intent = (await (
      await server.post("/documents/upload-intent", key, {
        content_type: "application/pdf",
        byte_size: pdf.byteLength,
      })
    ).json()) as { document_id: string; upload_url: string };
    await fetch(intent.upload_url, {
      method: "PUT",
      headers: { "content-type": "application/pdf" },
      body: pdf,
    });
    expect(
      (await server.post(`/documents/${intent.document_id}/complete`, key, { page_count: 2 })).status,
    ).toBe(200);
    const quoted = await server.post("/postcards/quotes", key, {
      document_id: intent.document_id,
      postcard_size: "4x6",
    });
    expect(quoted.status).toBe(201);
    const quote = (await quoted.json()) as {
      quote_id: string;
      mailpiece_type: string;
      postcard_size: string;
    };
    expect(quote).toMatchObject({ mailpiece_type: "postcard", postcard_size: "4x6" });
    const body = { quote_id: quote.quote_id, recipient: address("Grace"), sender: address("Ada") };
    const send = (path: string, idempotencyKey: string) =>
      server!.call(path, key, {
        method: "POST",
        headers: { "content-type": "application/json", "idempotency-key": idempotencyKey },
        body: JSON.stringify(body),
      });
    // A postcard's quote does not make a letter.
    const asLetter = await send("/letters", "card-as-letter");
    expect(asLetter.status).toBe(422);
    const created = await send("/postcards", "card-1");
    expect(created.status).toBe(201);
    const view = (await created.json()) as { id: string };
    expect(view).toMatchObject({ object: "postcard", mailpiece_type: "postcard", postcard_size: "4x6" });
    expect((await send("/postcards", "card-1")).status).toBe(200);
    expect(await (await server.call(`/postcards/${view.id}`, key)).json()).toMatchObject({
      id: view.id,
      status: "queued",
    });
    const document = await server.call(`/postcards/${view.id}/document.pdf`, key);
    expect(new Uint8Array(await document.arrayBuffer())).toEqual(pdf);
    expect((await server.call(`/letters/${view.id}`, key)).status).toBe(404);
  });

  it("answers 402 insufficient_credits when the credits do not cover the price, reserving nothing", async () => {
    server = await startV1Server({ core: { testCreditsCents: 100 } });
    const { key, quote } = await quoted(server);
    const body = { quote_id: (await quote()).quote_id, recipient: address("Grace"), sender: address("Ada") };
    const refused = await order(server, key, body, "poor");
    expect(refused.status).toBe(402);
    expect(await refused.json()).toMatchObject({ error: "insufficient_credits" });
    const balance = (await (await server.call("/credits/balance", key)).json()) as {
      available_cents: number;
      reserved_cents: number;
    };
    expect(balance).toMatchObject({ available_cents: 100, reserved_cents: 0 });
  });
});
