import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort, makePdf } from "@mailpiece/conformance";
import { afterAll, describe, expect, it } from "vitest";
import { type ServerProcess, startServerProcess } from "./crash-harness.fixture.ts";

const ADMIN_TOKEN = "an-operator-token-of-at-least-32-characters";
/** The real server with test hooks: it stalls before its first Projects API order record, so the test kills it there. */
const STALLING_ENTRY = "src/stalling-server.fixture.ts";
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

interface Balance {
  available_cents: number;
  reserved_cents: number;
}

describe("SIGKILL between a Projects API order's reservation and its record", () => {
  const dataDir = mkdtempSync(join(tmpdir(), "mailpiece-projects-crash-"));
  const running: ServerProcess[] = [];
  afterAll(async () => {
    await Promise.all(running.map((server) => server.stop()));
    rmSync(dataDir, { recursive: true, force: true });
  }, 60_000);

  const start = async (port: number, env: Record<string, string>, entry?: string) => {
    const server = await startServerProcess(
      dataDir,
      port,
      { ADMIN_TOKEN, SIMULATED_PRINT_PACE_MS: "100,200,300", ...env },
      entry,
    );
    running.push(server);
    return server;
  };

  /**
   * A workspace with a quoted letter on `server`, and an order request for it sent to a server that stalls before
   * the order's record: answers once the process wrote its marker (the price is reserved by then), then kills it.
   */
  async function killedMidOrder(server: ServerProcess, marker: string) {
    const workspace = (await (
      await fetch(`${server.url}/admin/api/workspaces`, {
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
    const balance = async (base: string) => (await (await api(base, "/credits/balance")).json()) as Balance;
    const ledger = async (base: string) =>
      ((await (await api(base, "/credits/ledger")).json()) as { data: { type: string }[] }).data.map(
        (entry) => entry.type,
      );
    const initial = await balance(server.url);
    const pdf = await makePdf(1);
    const intent = (await (
      await api(server.url, "/documents/upload-intent", {
        method: "POST",
        body: JSON.stringify({ content_type: "application/pdf", byte_size: pdf.byteLength }),
      })
    ).json()) as { document_id: string; upload_url: string };
    await fetch(intent.upload_url, {
      method: "PUT",
      headers: { "content-type": "application/pdf" },
      body: pdf,
    });
    await api(server.url, `/documents/${intent.document_id}/complete`, {
      method: "POST",
      body: JSON.stringify({ page_count: 1 }),
    });
    const quote = (await (
      await api(server.url, "/letters/quotes", {
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
    const send = (base: string) =>
      api(base, "/letters", { method: "POST", headers: { "idempotency-key": key }, body });

    // The request never answers: the process stops before the order's record.
    const lost = send(server.url).then(
      () => "answered",
      () => "cut off",
    );
    for (let polls = 0; polls < 240 && !existsSync(marker); polls++) await sleep(250);
    expect(existsSync(marker)).toBe(true);
    const orderId = readFileSync(marker, "utf8").replace(/^orders:/, "");
    // The price is reserved, the order is not written.
    expect(await balance(server.url)).toMatchObject({
      available_cents: initial.available_cents - quote.price_cents,
      reserved_cents: quote.price_cents,
    });
    await server.kill();
    expect(await lost).toBe("cut off");
    return { api, balance, ledger, initial, quote, send, orderId };
  }

  it("a retry after the restart finishes the order with the one reservation, and it is mailed", async () => {
    const port = await freePort();
    const marker = join(dataDir, "stalled-retry");
    const first = await start(port, { STALL_ORDER_MARKER: marker }, STALLING_ENTRY);
    const t = await killedMidOrder(first, marker);

    const second = await start(port, {});
    const retried = await t.send(second.url);
    expect([200, 201]).toContain(retried.status);
    const order = (await retried.json()) as { id: string };
    expect(order.id).toBe(t.orderId);
    expect(await t.balance(second.url)).toMatchObject({
      available_cents: t.initial.available_cents - t.quote.price_cents,
      reserved_cents: t.quote.price_cents,
    });
    let status = "";
    for (let polls = 0; polls < 240 && status !== "delivered"; polls++) {
      await sleep(250);
      status = ((await (await t.api(second.url, `/letters/${order.id}`)).json()) as { status: string })
        .status;
    }
    expect(status).toBe("delivered");
    expect(await t.ledger(second.url)).toEqual(["top_up", "reservation", "capture"]);
    expect(await t.balance(second.url)).toMatchObject({
      available_cents: t.initial.available_cents - t.quote.price_cents,
      reserved_cents: 0,
    });
    await second.stop();
  }, 300_000);

  it("without a retry the restarted server releases the lost reservation, and a later retry starts afresh", async () => {
    const port = await freePort();
    const marker = join(dataDir, "stalled-release");
    // The grace is fixed when the request notes its intent: 30 s (a test hook of the core's setting) instead of five
    // minutes, long enough for the test to see the reservation and kill the process before the grace ends.
    const first = await start(
      port,
      { STALL_ORDER_MARKER: marker, ORDER_INTENT_GRACE_MS: "30000" },
      STALLING_ENTRY,
    );
    const t = await killedMidOrder(first, marker);

    const second = await start(port, {});
    let after = await t.balance(second.url);
    for (let polls = 0; polls < 240 && after.reserved_cents !== 0; polls++) {
      await sleep(250);
      after = await t.balance(second.url);
    }
    expect(after).toMatchObject({ available_cents: t.initial.available_cents, reserved_cents: 0 });
    expect(await t.ledger(second.url)).toEqual(["top_up", "reservation", "release"]);
    const retried = await t.send(second.url);
    expect([retried.status, await retried.clone().text()]).toEqual([201, expect.any(String)]);
    expect(await t.balance(second.url)).toMatchObject({
      available_cents: t.initial.available_cents - t.quote.price_cents,
      reserved_cents: t.quote.price_cents,
    });
    await second.stop();
  }, 300_000);
});
