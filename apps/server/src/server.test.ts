import { spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createEmbeddedAddressProvider, loadSample } from "@mailpiece/address-embedded";
import { appTarget, letterOrder, machineSuite, urlTarget } from "@mailpiece/conformance";
import { registerSuite } from "@mailpiece/conformance/vitest";
import { createMailpieceCore } from "@mailpiece/core";
import { createSimulatedFlorist } from "@mailpiece/florist-simulated";
import { systemClock } from "@mailpiece/ports";
import { createMemoryBlobStore, createMemoryStore } from "@mailpiece/store-unstorage";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "./config.ts";
import { createLogger } from "./logger.ts";
import { createRails } from "./rails.ts";
import { createServerApp } from "./server-app.ts";
import type { RunningServer } from "./start.ts";
import { startServer } from "./start.ts";

const LIMIT = 512 * 1024;

// The machine suite in-process, through the app's fetch.
const memory = createMemoryStore();
const core = createMailpieceCore({
  store: memory,
  blobs: createMemoryBlobStore(),
  rails: createRails(loadConfig({ STORE: "memory" }), memory).rails,
  florist: createSimulatedFlorist({ store: memory, clock: systemClock }),
  addresses: createEmbeddedAddressProvider(await loadSample()),
  config: { previewSecret: "a-test-preview-secret-of-at-least-32-bytes" },
});
const app = createServerApp(core, {
  publicUrl: "http://127.0.0.1:3000",
  maxBodyBytes: LIMIT,
  logger: createLogger("silent"),
  version: "test",
});
registerSuite(machineSuite(appTarget(app)));

// The same suite against a real server listening on a random port, on the embedded file store.
describe("over HTTP", () => {
  const dataDir = mkdtempSync(join(tmpdir(), "mailpiece-server-"));
  let running: RunningServer;
  beforeAll(async () => {
    running = await startServer(
      loadConfig({
        PORT: "0",
        DATA_DIR: dataDir,
        MAX_BODY_BYTES: String(LIMIT),
        LOG_LEVEL: "silent",
        UNPAID_ORDERS_PER_HOUR: "1000",
        VALIDATE_PER_MINUTE: "100000",
      }),
    );
  });
  afterAll(async () => {
    await running.close();
    rmSync(dataDir, { recursive: true, force: true });
  });
  const target = {
    label: "HTTP",
    fetch: (path: string, init?: RequestInit) => urlTarget(running.url).fetch(path, init),
  };
  registerSuite(machineSuite(target));

  it("the conformance command runs the same suite against the base URL and reports every test", async () => {
    const child = spawn(
      process.execPath,
      ["--import", "tsx", "../../conformance/src/cli.ts", "--base-url", running.url],
      {
        cwd: join(import.meta.dirname, ".."),
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    let stdout = "";
    child.stdout.on("data", (c: Buffer) => {
      stdout += c.toString();
    });
    const [code] = await once(child, "exit");
    expect(stdout).toMatch(/^\d+ passed, 0 failed$/m);
    expect(stdout).toContain("✓ validate quotes a plain-text letter with its typeset page count");
    expect(code).toBe(0);
    const usage = spawn(process.execPath, ["--import", "tsx", "../../conformance/src/cli.ts"], {
      cwd: join(import.meta.dirname, ".."),
      stdio: "ignore",
    });
    expect((await once(usage, "exit"))[0]).toBe(2);
  }, 120_000);

  it("serves the agent tools at /mcp to the MCP SDK client, on the same orders", async () => {
    const client = new Client({ name: "server-test-agent", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${running.url}/mcp`)));
    try {
      const ping = await client.callTool({ name: "svc.ping", arguments: {} });
      expect(ping.structuredContent).toMatchObject({ status: "ok", service: "mailpiece" });
      const order = letterOrder();
      const created = await client.callTool({
        name: "svc.create_machine_order",
        arguments: { payment_protocol: "x402", order },
      });
      const { order_id } = created.structuredContent as { order_id: string };
      // The order the tool made is the machine API's order.
      const status = await fetch(`${running.url}/api/machine/orders/${order_id}`);
      expect(status.status).toBe(200);
      expect(await status.json()).toMatchObject({ order_id, is_paid: false });
    } finally {
      await client.close();
    }
  });
});

describe("start", () => {
  it("serves on PORT, logs JSON, and shuts down cleanly on SIGTERM, releasing DATA_DIR", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "mailpiece-start-"));
    const run = async () => {
      const child = spawn(process.execPath, ["--import", "tsx", "src/main.ts"], {
        cwd: join(import.meta.dirname, ".."),
        env: { ...process.env, PORT: "0", DATA_DIR: dataDir, LOG_LEVEL: "info" },
        stdio: ["ignore", "pipe", "pipe"],
      });
      const lines: Record<string, unknown>[] = [];
      let buffer = "";
      const listening = new Promise<string>((resolve, reject) => {
        child.once("exit", (code) => reject(new Error(`exited with ${code}`)));
        child.stdout.on("data", (chunk: Buffer) => {
          buffer += chunk.toString("utf8");
          const parts = buffer.split("\n");
          buffer = parts.pop()!;
          for (const part of parts) {
            const line = JSON.parse(part) as Record<string, unknown>;
            lines.push(line);
            if (line.msg === "listening") resolve(line.url as string);
          }
        });
      });
      const url = await listening;
      const health = await fetch(`${url}/health`);
      expect(health.status).toBe(200);
      expect(await health.json()).toMatchObject({ status: "ok" });
      const exited = once(child, "exit");
      child.kill("SIGTERM");
      const [code] = await exited;
      expect(code).toBe(0);
      expect(lines.some((l) => l.msg === "stopped")).toBe(true);
      expect(lines.some((l) => l.msg === "request" && l.path === "/health" && l.status === 200)).toBe(true);
    };
    try {
      await run();
      // A second start on the same DATA_DIR works: the first one released its lock.
      await run();
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 60_000);

  it("refuses a bad configuration with exit code 2 and the variable's name", async () => {
    const child = spawn(process.execPath, ["--import", "tsx", "src/main.ts"], {
      cwd: join(import.meta.dirname, ".."),
      env: { ...process.env, PORT: "not-a-port" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stderr = "";
    child.stderr.on("data", (c: Buffer) => {
      stderr += c.toString();
    });
    const [code] = await once(child, "exit");
    expect(code).toBe(2);
    expect(stderr).toContain("PORT");
  }, 30_000);
});
