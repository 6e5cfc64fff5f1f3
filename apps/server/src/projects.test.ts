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
