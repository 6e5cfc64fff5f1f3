import { createHmac } from "node:crypto";
import { makePdf } from "@mailpiece/conformance";
import type { WebhookRequest } from "@mailpiece/core";
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

/** A Projects API over a core whose webhook deliveries reach a stand-in receiver that answers `status`. */
async function setup() {
  const received: WebhookRequest[] = [];
  let status = 200;
  const s = await startV1Server({
    webhooks: {
      webhookSender: async (request) => {
        received.push(request);
        return { status };
      },
      // The receiver's name resolves to a public address in this test; nothing is dialled.
      checkWebhookUrl: async () => {},
      webhookOptions: { retryScheduleMs: [1_000, 2_000] },
    },
  });
  server = s;
  const { test_api_key: key } = await s.workspace();
  /** A test letter ordered and moved until the printer has delivered it. */
  const deliveredLetter = async () => {
    const pdf = await makePdf(1);
    const intent = await read(
      await s.post("/documents/upload-intent", key, {
        content_type: "application/pdf",
        byte_size: pdf.byteLength,
      }),
    );
    await fetch(intent.upload_url as string, {
      method: "PUT",
      headers: { "content-type": "application/pdf" },
      body: pdf,
    });
    await s.post(`/documents/${intent.document_id}/complete`, key, { page_count: 1 });
    const quote = await read(await s.post("/letters/quotes", key, { document_id: intent.document_id }));
    const created = await s.call("/letters", key, {
      method: "POST",
      headers: { "content-type": "application/json", "idempotency-key": crypto.randomUUID() },
      body: JSON.stringify({ quote_id: quote.quote_id, recipient: address("Grace"), sender: address("Ada") }),
    });
    const order = await read(created);
    for (let round = 0; round < 6; round++) {
      await s.core.fulfil();
      s.advance(1_000);
    }
    await s.core.fulfil();
    return order.id as string;
  };
  return {
    s,
    key,
    received,
    deliveredLetter,
    answer: (next: number) => {
      status = next;
    },
  };
}

/** The v1 signature of Service-Signature checked as a receiver does: HMAC-SHA256 of "<t>.<body>" with the secret. */
function signedWith(request: WebhookRequest, secret: string): boolean {
  const header = request.headers["service-signature"] ?? request.headers["Service-Signature"] ?? "";
  const t = /(?:^|,)t=(\d+)/.exec(header)?.[1];
  const expected = createHmac("sha256", secret).update(`${t}.${request.body}`).digest("hex");
  return [...header.matchAll(/v1=([0-9a-f]+)/g)].some((m) => m[1] === expected);
}

describe("webhooks over HTTP", () => {
  it("creates an endpoint (secret once), signs every status event of an order, lists and replays them", async () => {
    const { s, key, received, deliveredLetter } = await setup();
    expect((await s.post("/webhook-endpoints", key, { url: "http://hooks.example.com/in" })).status).toBe(
      422,
    );
    const created = await s.post("/webhook-endpoints", key, { url: "https://hooks.example.com/in" });
    expect(created.status).toBe(201);
    const endpoint = await read(created);
    const secret = endpoint.signing_secret as string;
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{40,}={0,2}$/);
    const listed = await read(await s.call("/webhook-endpoints", key));
    expect(JSON.stringify(listed)).not.toContain(secret);
    expect(listed.data).toEqual([expect.objectContaining({ id: endpoint.id, status: "enabled" })]);

    const orderId = await deliveredLetter();
    const types = received.map((r) => (JSON.parse(r.body) as Json).type);
    expect(types).toEqual([
      "service.letter.accepted",
      "service.letter.in_transit",
      "service.letter.delivered",
    ]);
    expect(received.every((r) => r.url === "https://hooks.example.com/in" && signedWith(r, secret))).toBe(
      true,
    );
    const delivered = JSON.parse(received[2]!.body) as Json;
    expect(delivered).toMatchObject({
      type: "service.letter.delivered",
      data: { object: { id: orderId, status: "delivered" } },
      mailpiece: { status: "delivered" },
    });

    // The order lists its events; the event list shows each with its delivery.
    const order = await read(await s.call(`/letters/${orderId}`, key));
    expect((order.webhook_events as Json[]).map((e) => e.type)).toEqual(types);
    const events = await read(await s.call("/webhook-events?limit=2", key));
    expect((events.data as Json[]).length).toBe(2);
    const replayed = await s.call(`/webhook-events/${delivered.id}/replay`, key, { method: "POST" });
    expect(replayed.status).toBe(202);
    await s.core.fulfil();
    expect(received).toHaveLength(4);
    expect((JSON.parse(received[3]!.body) as Json).id).toBe(delivered.id);

    // Another workspace sees none of it.
    const { test_api_key: other } = await s.workspace("Other");
    expect((await s.call(`/webhook-events/${delivered.id}/replay`, other, { method: "POST" })).status).toBe(
      404,
    );
    expect((await s.call(`/webhook-endpoints/${endpoint.id}`, other, { method: "DELETE" })).status).toBe(404);
  });

  it("rotates the secret (both sign during the overlap), retries a failing receiver, and a disabled endpoint gets nothing", async () => {
    const { s, key, received, deliveredLetter, answer } = await setup();
    const endpoint = await read(
      await s.post("/webhook-endpoints", key, { url: "https://hooks.example.com/in" }),
    );
    const rotated = await read(
      await s.call(`/webhook-endpoints/${endpoint.id}/rotate-secret`, key, { method: "POST" }),
    );
    const [oldSecret, newSecret] = [endpoint.signing_secret as string, rotated.signing_secret as string];
    expect(newSecret).not.toBe(oldSecret);

    answer(500);
    await deliveredLetter();
    const failed = received.length;
    expect(failed).toBeGreaterThan(0);
    expect(received.every((r) => signedWith(r, oldSecret) && signedWith(r, newSecret))).toBe(true);
    answer(200);
    // The schedule here retries after 1 s and 2 s: each event comes once more and is delivered.
    s.advance(1_000);
    await s.core.fulfil();
    expect(received.length).toBeGreaterThan(failed);

    const disabled = await s.call(`/webhook-endpoints/${endpoint.id}`, key, { method: "DELETE" });
    expect(await read(disabled)).toMatchObject({ id: endpoint.id, status: "disabled" });
    const before = received.length;
    await deliveredLetter();
    expect(received).toHaveLength(before);
  });
});
