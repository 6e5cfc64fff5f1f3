import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort, makePdf } from "@mailpiece/conformance";
import { FULFILMENT_QUEUE, fulfilmentJobKey, noteOrderIntent } from "@mailpiece/core";
import { createStoreJobQueue } from "@mailpiece/queue-store";
import { afterAll, describe, expect, it } from "vitest";
import { type ServerProcess, startServerProcess, withRecords } from "./crash-harness.fixture.ts";

const ADMIN_TOKEN = "an-operator-token-of-at-least-32-characters";

describe("SIGKILL between a Projects API order's reservation and its record", () => {
  const dataDir = mkdtempSync(join(tmpdir(), "mailpiece-projects-crash-"));
  const running: ServerProcess[] = [];
  afterAll(async () => {
    await Promise.all(running.map((server) => server.stop()));
    rmSync(dataDir, { recursive: true, force: true });
  }, 60_000);

  it("leaves the ledger balanced after restart: the lost reservation is released and the retry makes the order", async () => {
    const port = await freePort();
    const start = async () => {
      const server = await startServerProcess(dataDir, port, { ADMIN_TOKEN });
      running.push(server);
      return server;
    };
    const first = await start();
    const workspace = (await (
      await fetch(`${first.url}/admin/api/workspaces`, {
        method: "POST",
        headers: { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/json" },
        body: JSON.stringify({ name: "Acme" }),
      })
    ).json()) as { test_api_key: string };
    const api = (base: string, path: string, init: RequestInit = {}) =>
      fetch(`${base}/api/v1${path}`, {
        ...init,
        headers: {
          authorization: `Bearer ${workspace.test_api_key}`,
          "content-type": "application/json",
          ...(init.headers as Record<string, string> | undefined),
        },
      });
    const balance = async (base: string) =>
      (await (await api(base, "/credits/balance")).json()) as {
        available_cents: number;
        reserved_cents: number;
      };
    const initial = await balance(first.url);
    const pdf = await makePdf(1);
    const intent = (await (
      await api(first.url, "/documents/upload-intent", {
        method: "POST",
        body: JSON.stringify({ content_type: "application/pdf", byte_size: pdf.byteLength }),
      })
    ).json()) as { document_id: string; upload_url: string };
    await fetch(intent.upload_url, {
      method: "PUT",
      headers: { "content-type": "application/pdf" },
      body: pdf,
    });
    await api(first.url, `/documents/${intent.document_id}/complete`, {
      method: "POST",
      body: JSON.stringify({ page_count: 1 }),
    });
    const quote = (await (
      await api(first.url, "/letters/quotes", {
        method: "POST",
        body: JSON.stringify({ document_id: intent.document_id }),
      })
    ).json()) as { quote_id: string; price_cents: number };
    const address = (name: string) => ({
      name,
      line1: "350 Fifth Avenue",
      city: "New York",
      state: "NY",
      zip: "10118",
    });
    const body = JSON.stringify({
      quote_id: quote.quote_id,
      recipient: address("Grace"),
      sender: address("Ada"),
    });
    const key = crypto.randomUUID();
    const created = await api(first.url, "/letters", {
      method: "POST",
      headers: { "idempotency-key": key },
      body,
    });
    expect(created.status).toBe(201);
    const orderId = ((await created.json()) as { id: string }).id;
    await first.kill();

    // The state a kill leaves between the reservation and the order's record: the reservation, the claimed key and
    // the used quote stand, the order and its work do not, and the order's intent is older than its grace period.
    await withRecords(dataDir, async (store) => {
      await store.delete(`orders:${orderId}`);
      const jobs = createStoreJobQueue({ store });
      const fulfilment = await jobs.get(FULFILMENT_QUEUE, fulfilmentJobKey(orderId));
      if (fulfilment) await jobs.discard(fulfilment);
      const [workspaceRecord] = (await store.list<{ id: string }>("workspaces:")).records;
      await noteOrderIntent(jobs, {
        order_id: orderId,
        workspace_id: workspaceRecord!.value.id,
        mode: "test",
        quote_id: quote.quote_id,
        amount_cents: quote.price_cents,
        claim_request_id: `v1:${workspaceRecord!.value.id}:test:${await sha256(key)}`,
        at: Date.now() - 10 * 60 * 1000,
      });
    });

    const second = await start();
    // The reconciler runs with the fulfilment loop (every 200 ms here): the reservation comes back.
    let after = await balance(second.url);
    for (let polls = 0; polls < 60 && after.reserved_cents !== 0; polls++) {
      await new Promise((resolve) => setTimeout(resolve, 500));
      after = await balance(second.url);
    }
    expect(after).toMatchObject({ available_cents: initial.available_cents, reserved_cents: 0 });
    const ledger = (await (await api(second.url, "/credits/ledger")).json()) as { data: { type: string }[] };
    expect(ledger.data.map((entry) => entry.type)).toEqual(["top_up", "reservation", "release"]);
    // The client's retry with the same key starts afresh and reserves once.
    const retried = await api(second.url, "/letters", {
      method: "POST",
      headers: { "idempotency-key": key },
      body,
    });
    expect(retried.status).toBe(201);
    expect(await balance(second.url)).toMatchObject({
      available_cents: initial.available_cents - quote.price_cents,
      reserved_cents: quote.price_cents,
    });
  }, 240_000);
});

async function sha256(text: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return Buffer.from(digest).toString("hex");
}
