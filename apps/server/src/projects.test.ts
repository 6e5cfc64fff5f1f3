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
        FULFILMENT_INTERVAL_MS: "0",
        ADMIN_TOKEN,
      }),
    );
  });
  afterAll(async () => {
    await running?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("the operator makes a workspace with pnpm admin; its test key uploads a PDF, completes it and quotes a letter", async () => {
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
    expect(await quote.json()).toMatchObject({ mailpiece_type: "letter", certified: true, page_count: 2 });

    // Without the operator's token the admin API refuses; without any key the Projects API does.
    expect((await fetch(`${running.url}/admin/api/workspaces`)).status).toBe(401);
    expect((await fetch(`${running.url}/api/v1/credits/balance`)).status).toBe(401);
    expect((await fetch(`${running.url}/dashboard`)).status).toBe(200);
  });
});
