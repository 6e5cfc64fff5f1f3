import { spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { makePdf } from "@mailpiece/conformance";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "./config.ts";
import type { RunningServer } from "./start.ts";
import { startServer } from "./start.ts";

const ADMIN_TOKEN = "an-operator-token-of-at-least-32-characters";

describe("the Projects API and the operator on the running server", () => {
  const dataDir = mkdtempSync(join(tmpdir(), "mailpiece-projects-"));
  let running: RunningServer;
  beforeAll(async () => {
    running = await startServer(
      loadConfig({
        PORT: "0",
        DATA_DIR: dataDir,
        LOG_LEVEL: "silent",
        FULFILMENT_INTERVAL_MS: "100",
        SIMULATED_PRINT_PACE_MS: "100,200,300",
        ADMIN_TOKEN,
      }),
    );
  });
  afterAll(async () => {
    await running?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("the operator makes a workspace with pnpm admin; its test key uploads, quotes, orders a letter and sees it delivered", async () => {
    const cli = spawn(
      process.execPath,
      ["--import", "tsx", "../admin/src/cli.ts", "create-workspace", "--name", "Acme"],
      {
        cwd: join(import.meta.dirname, ".."),
        env: { ...process.env, ADMIN_TOKEN, PUBLIC_URL: running.url },
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    let stdout = "";
    cli.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    expect((await once(cli, "exit"))[0]).toBe(0);
    const workspace = JSON.parse(stdout) as { id: string; test_api_key: string };
    expect(workspace.test_api_key).toMatch(/^svc_test_/);

    const api = (path: string, init: RequestInit = {}) =>
      fetch(`${running.url}/api/v1${path}`, {
        ...init,
        headers: {
          authorization: `Bearer ${workspace.test_api_key}`,
          "content-type": "application/json",
          ...(init.headers as Record<string, string> | undefined),
        },
      });
    const balance = (await (await api("/credits/balance")).json()) as {
      available_cents: number;
      mode: string;
    };
    expect(balance.mode).toBe("test");
    expect(balance.available_cents).toBeGreaterThan(0);

    const pdf = await makePdf(2);
    const intent = (await (
      await api("/documents/upload-intent", {
        method: "POST",
        body: JSON.stringify({ content_type: "application/pdf", byte_size: pdf.byteLength }),
      })
    ).json()) as { document_id: string; upload_url: string };
    const put = await fetch(intent.upload_url, {
      method: "PUT",
      headers: { "content-type": "application/pdf" },
      body: pdf,
    });
    expect(put.status).toBe(200);
    const complete = await api(`/documents/${intent.document_id}/complete`, {
      method: "POST",
      body: JSON.stringify({ page_count: 2 }),
    });
    expect(complete.status).toBe(200);
    const quote = await api("/letters/quotes", {
      method: "POST",
      body: JSON.stringify({
        document_id: intent.document_id,
        certified: true,
        certified_return_receipt: true,
      }),
    });
    expect(quote.status).toBe(201);
    const quoted = (await quote.json()) as { quote_id: string; price_cents: number };
    expect(quoted).toMatchObject({ mailpiece_type: "letter", certified: true, page_count: 2 });

    const address = (name: string) => ({
      name,
      line1: "350 Fifth Avenue",
      city: "New York",
      state: "NY",
      zip: "10118",
    });
    const created = await api("/letters", {
      method: "POST",
      headers: { "idempotency-key": crypto.randomUUID() },
      body: JSON.stringify({
        quote_id: quoted.quote_id,
        recipient: address("Grace"),
        sender: address("Ada"),
      }),
    });
    expect(created.status).toBe(201);
    const order = (await created.json()) as { id: string };
    // The worker runs every 100 ms and the simulated printer delivers 300 ms after submission; polls once a second
    // stay well inside the key's 120 requests a minute.
    let status = "";
    let funds = "";
    for (let polls = 0; polls < 90 && status !== "delivered"; polls++) {
      const read = (await (await api(`/letters/${order.id}`)).json()) as {
        status: string;
        funds_status: string;
      };
      status = read.status;
      funds = read.funds_status;
      if (status !== "delivered") await new Promise((resolve) => setTimeout(resolve, 1000));
    }
    expect(status).toBe("delivered");
    expect(funds).toBe("captured");
    const after = (await (await api("/credits/balance")).json()) as {
      available_cents: number;
      reserved_cents: number;
    };
    expect(after).toEqual(
      expect.objectContaining({
        available_cents: balance.available_cents - quoted.price_cents,
        reserved_cents: 0,
      }),
    );

    // Without the operator's token the admin API refuses; without any key the Projects API does.
    expect((await fetch(`${running.url}/admin/api/workspaces`)).status).toBe(401);
    expect((await fetch(`${running.url}/api/v1/credits/balance`)).status).toBe(401);
    expect((await fetch(`${running.url}/dashboard`)).status).toBe(200);
  }, 120_000);
});

describe("a workspace goes live through its payment-method setup on the running server", () => {
  const dataDir = mkdtempSync(join(tmpdir(), "mailpiece-live-"));
  let running: RunningServer;
  beforeAll(async () => {
    running = await startServer(
      loadConfig({ PORT: "0", DATA_DIR: dataDir, LOG_LEVEL: "silent", ADMIN_TOKEN }),
    );
  });
  afterAll(async () => {
    await running?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("the test key opens a live setup, the page saves a card and shows the live key once, and live credits refill by themselves", async () => {
    const made = await fetch(`${running.url}/admin/api/workspaces`, {
      method: "POST",
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/json" },
      body: JSON.stringify({ name: "Acme Live" }),
    });
    expect(made.status).toBe(201);
    const { test_api_key: testKey } = (await made.json()) as { test_api_key: string };
    const api = (key: string, path: string, body?: unknown) =>
      fetch(`${running.url}/api/v1${path}`, {
        method: body === undefined ? "GET" : "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });

    const opened = await api(testKey, "/credits/payment-methods/setup-session", { mode: "live" });
    expect(opened.status).toBe(201);
    const session = (await opened.json()) as { url: string; enables_live: boolean };
    expect(session.enables_live).toBe(true);
    expect(session.url.startsWith(`${running.url}/checkout/setup/ps_`)).toBe(true);
    expect((await fetch(session.url)).status).toBe(200);
    const saved = await fetch(session.url, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", origin: running.url },
      body: new URLSearchParams({ token: "spt_test_ok" }).toString(),
    });
    expect(saved.status).toBe(200);
    const liveKey = /id="live-api-key">(svc_live_[A-Za-z0-9_-]+)</.exec(await saved.text())?.[1] ?? "";
    expect(liveKey).toMatch(/^svc_live_/);
    expect(await (await fetch(session.url)).text()).not.toContain(liveKey);

    const balance = (await (await api(liveKey, "/credits/balance")).json()) as Record<string, unknown>;
    expect(balance).toMatchObject({ mode: "live", status: "active", available_cents: 0 });
    const methods = (await (await api(liveKey, "/credits/payment-methods")).json()) as { data: unknown[] };
    expect(methods.data).toEqual([expect.objectContaining({ brand: "visa", last4: "4242", default: true })]);

    // The live balance is below the threshold as soon as the refill is set: it refills once, off-session.
    const policy = await api(liveKey, "/credits/auto-refill", {
      threshold_cents: 1_000,
      refill_amount_cents: 5_000,
    });
    expect(policy.status).toBe(200);
    let available = 0;
    for (let polls = 0; polls < 60 && available === 0; polls++) {
      available = ((await (await api(liveKey, "/credits/balance")).json()) as { available_cents: number })
        .available_cents;
      if (available === 0) await new Promise((resolve) => setTimeout(resolve, 250));
    }
    expect(available).toBe(5_000);
    const ledger = (await (await api(liveKey, "/credits/ledger")).json()) as {
      data: { type: string; amount_cents: number; reference: string | null }[];
    };
    expect(ledger.data).toEqual([
      expect.objectContaining({
        type: "top_up",
        amount_cents: 5_000,
        reference: expect.stringMatching(/^ch_test_/),
      }),
    ]);
    // The refill records its outcome on the policy just after the credits land: wait for it.
    let refill: { last_refill?: unknown } = {};
    for (let polls = 0; polls < 60 && !refill.last_refill; polls++) {
      refill = (await (await api(liveKey, "/credits/auto-refill")).json()) as { last_refill?: unknown };
      if (!refill.last_refill) await new Promise((resolve) => setTimeout(resolve, 250));
    }
    expect(refill).toMatchObject({
      enabled: true,
      status: "active",
      last_refill: { amount_cents: 5_000 },
    });
  }, 120_000);
});
