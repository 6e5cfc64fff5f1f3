import { spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createEmbeddedAddressProvider, loadSample } from "@mailpiece/address-embedded";
import {
  appTarget,
  letterOrder,
  machineSuite,
  makePdf,
  mortgageFormOrder,
  urlTarget,
} from "@mailpiece/conformance";
import { registerSuite } from "@mailpiece/conformance/vitest";
import { createMailpieceCore } from "@mailpiece/core";
import { createSimulatedFlorist } from "@mailpiece/florist-simulated";
import { systemClock } from "@mailpiece/ports";
import { testMethodClient } from "@mailpiece/rail-mpp";
import { createMemoryBlobStore, createMemoryStore } from "@mailpiece/store-unstorage";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { x402Client, x402HTTPClient } from "@x402/core/client";
import { decodePaymentRequiredHeader } from "@x402/core/http";
import { registerExactEvmScheme } from "@x402/evm/exact/client";
import { Mppx } from "mppx/client";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
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

  it("an agent uses every tool against the running server, and a person pays its draft on the checkout page", async () => {
    const client = new Client({ name: "server-test-agent", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${running.url}/mcp`)));
    const call = async (name: string, args: Record<string, unknown> = {}) => {
      const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
      const text = result.content.map((part) => (part.type === "text" ? part.text : "")).join("\n");
      expect(result.isError, `${name}: ${text}`).toBeFalsy();
      return result.structuredContent as Record<string, unknown>;
    };
    const withoutBuyer = (order: Record<string, unknown>) => {
      const { buyer_name: _n, buyer_email: _e, ...rest } = order;
      return Object.fromEntries(Object.entries(rest).filter(([, value]) => value !== undefined));
    };
    try {
      const { tools } = await client.listTools();
      expect(tools).toHaveLength(11);
      expect(await call("svc.ping")).toMatchObject({ status: "ok" });
      const { forms } = (await call("svc.list_forms")) as { forms: { slug: string }[] };
      expect(forms.length).toBeGreaterThan(0);
      const schema = await call("svc.get_form_schema", { slug: forms[0]!.slug });
      expect(schema.checkout_flow).toBeDefined();

      // Address search, from a building to one of its suites, whose id then gives the recipient.
      type Suggestion = { id: string; text: string; type: string };
      const building = (
        (await call("svc.search_addresses", { query: "350 Fifth Avenue" })) as {
          suggestions: Suggestion[];
        }
      ).suggestions.find((one) => one.type === "Container");
      expect(building).toBeDefined();
      const suite = (
        (await call("svc.search_addresses", { query: "350 Fifth", container: building!.id })) as {
          suggestions: Suggestion[];
        }
      ).suggestions[0]!;
      expect(suite.type).toBe("Address");
      const letter = await call(
        "svc.create_letter_order_draft",
        withoutBuyer(
          letterOrder({
            recipient_address_type: "Address",
            recipient_address_manual: undefined,
            recipient_address_id: suite.id,
            recipient_address_text: suite.text,
          }),
        ),
      );
      const session = letter.checkout_session as { id: string };
      const page = await fetch(letter.checkout_url as string);
      expect(page.status).toBe(200);
      const html = await page.text();
      expect(html).toContain("350 Fifth Avenue");
      expect(html).toContain("Grace Recipient");

      // The person pays on the page (the form's own fields), and the page then says so.
      const form = new URLSearchParams({
        first_name: "Ada",
        last_name: "Lovelace",
        email: "ada@example.com",
        token: "spt_test_ok",
      });
      const posted = await fetch(letter.checkout_url as string, {
        method: "POST",
        body: form,
        redirect: "manual",
        headers: { origin: running.url, "sec-fetch-site": "same-origin" },
      });
      expect(posted.status).toBe(303);
      expect(await (await fetch(letter.checkout_url as string)).text()).toMatch(/paid/i);
      expect(await call("svc.get_order_status", { order_id: letter.order_id })).toMatchObject({
        is_paid: true,
      });
      const again = await client.callTool({
        name: "complete_checkout",
        arguments: {
          checkout_session_id: session.id,
          buyer: { first_name: "Ada", email: "ada@example.com" },
          payment_data: { token: "spt_test_ok" },
        },
      });
      expect(again.structuredContent).toMatchObject({ status: "completed" });

      // A PDF through an upload slot, drafted and paid by the agent with complete_checkout.
      const pdf = await makePdf(2);
      const slot = (await call("svc.create_pdf_upload", {
        file_name: "two-pages.pdf",
        content_type: "application/pdf",
        content_length: pdf.byteLength,
      })) as { upload_url: string; upload_token: string };
      const body = new FormData();
      body.append("file", new Blob([pdf], { type: "application/pdf" }), "two-pages.pdf");
      expect((await fetch(slot.upload_url, { method: "POST", body })).status).toBeLessThan(300);
      const pdfDraft = await call("svc.create_order_draft", {
        ...withoutBuyer(letterOrder({ letter: undefined })),
        pdf: { upload_token: slot.upload_token },
      });
      expect(pdfDraft.page_count).toBe(2);
      const completed = await call("complete_checkout", {
        checkout_session_id: (pdfDraft.checkout_session as { id: string }).id,
        buyer: { first_name: "Grace", email: "grace@example.com" },
        payment_data: { token: "spt_test_ok" },
      });
      expect(completed.status).toBe("completed");

      const { form: mortgage, ...formOrder } = mortgageFormOrder();
      const { slug, fields } = mortgage as { slug: string; fields: Record<string, unknown> };
      const formDraft = await call("svc.create_form_order_draft", {
        ...withoutBuyer({ ...formOrder, letter: undefined }),
        slug,
        fields,
      });
      expect(formDraft.page_count as number).toBeGreaterThan(0);

      // Machine orders paid on each rail, with the credentials the real clients make.
      const mppOrder = letterOrder();
      const mppChallenge = await call("svc.create_machine_order", {
        payment_protocol: "mpp",
        order: mppOrder,
      });
      const headers = new Headers();
      for (const value of (mppChallenge.payment as { www_authenticate: string[] }).www_authenticate) {
        headers.append("WWW-Authenticate", value);
      }
      const mppx = Mppx.create({ methods: [testMethodClient({ token: "tok_test_visa" })], polyfill: false });
      const authorization = await mppx.createCredential(new Response(null, { status: 402, headers }));
      expect(
        await call("svc.create_machine_order", {
          payment_protocol: "mpp",
          order: mppOrder,
          payment_authorization: authorization,
        }),
      ).toMatchObject({ order_id: mppChallenge.order_id, status: "paid" });

      const x402Order = letterOrder();
      const x402Challenge = await call("svc.create_machine_order", {
        payment_protocol: "x402",
        order: x402Order,
      });
      const x402 = x402Client.fromConfig({ schemes: [], spendControls: { maxAmountPerPayment: "$250" } });
      registerExactEvmScheme(x402, { signer: privateKeyToAccount(generatePrivateKey()) });
      const payload = await x402.createPaymentPayload(
        decodePaymentRequiredHeader(x402Challenge.payment_required_header as string),
      );
      const signature = Object.values(new x402HTTPClient(x402).encodePaymentSignatureHeader(payload))[0]!;
      await call("svc.create_machine_order", {
        payment_protocol: "x402",
        order: x402Order,
        payment_signature: signature,
      });
      const status = await fetch(`${running.url}/api/machine/orders/${x402Challenge.order_id}`);
      expect(await status.json()).toMatchObject({ is_paid: true });
    } finally {
      await client.close();
    }
  }, 120_000);
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
