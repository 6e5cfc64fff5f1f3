import type { LoopbackServer } from "@mailpiece/conformance";
import { letterOrder } from "@mailpiece/conformance";
import { testMethodClient } from "@mailpiece/rail-mpp";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { x402Client, x402HTTPClient } from "@x402/core/client";
import { decodePaymentRequiredHeader } from "@x402/core/http";
import { registerExactEvmScheme } from "@x402/evm/exact/client";
import { Mppx } from "mppx/client";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { createMcpApp } from "./mcp-app.ts";
import { startMcpServer } from "./test-server.fixture.ts";

let server: LoopbackServer;
let url: string;
let mcp: ReturnType<typeof createMcpApp>;
let client: Client;

async function connect(base: string): Promise<Client> {
  const c = new Client({ name: "mailpiece-test-agent", version: "1.0.0" });
  await c.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`)));
  return c;
}

const call = async (name: string, args: Record<string, unknown> = {}) =>
  (await client.callTool({ name, arguments: args })) as CallToolResult;
const textOf = (result: CallToolResult) =>
  result.content.map((part) => (part.type === "text" ? part.text : "")).join("\n");

beforeAll(async () => {
  const started = await startMcpServer();
  server = started.running;
  url = started.base;
  mcp = started.app;
  client = await connect(url);
}, 60_000);

afterAll(async () => {
  await client?.close();
  await mcp?.close();
  await server?.close();
});

describe("the MCP server at /mcp, driven by the MCP SDK client", () => {
  it("lists the tools with input and output schemas, descriptions and annotations", async () => {
    const { tools } = await client.listTools();
    const names = tools.map((tool) => tool.name);
    expect(names).toEqual(
      expect.arrayContaining([
        "svc.ping",
        "svc.list_forms",
        "svc.get_form_schema",
        "svc.get_order_status",
        "svc.create_pdf_upload",
        "svc.create_machine_order",
        "svc.search_addresses",
      ]),
    );
    for (const tool of tools) {
      expect(tool.description?.length ?? 0).toBeGreaterThan(30);
      expect(tool.inputSchema.type).toBe("object");
      expect(tool.outputSchema?.type).toBe("object");
    }
    const readOnly = tools.filter((tool) => tool.annotations?.readOnlyHint).map((tool) => tool.name);
    expect(readOnly.sort()).toEqual([
      "svc.get_form_schema",
      "svc.get_order_status",
      "svc.list_forms",
      "svc.ping",
      "svc.search_addresses",
    ]);
  });

  it("answers ping with structured content and a text copy", async () => {
    const result = await call("svc.ping");
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toMatchObject({ status: "ok", service: "mailpiece", version: "test" });
    expect(JSON.parse(textOf(result))).toEqual(result.structuredContent);
  });

  it("lists forms and gives a form's schema; an unknown slug is a readable tool error", async () => {
    const forms = await call("svc.list_forms", { limit: 2 });
    const list = forms.structuredContent as { forms: { slug: string }[]; next_cursor: string | null };
    expect(list.forms.length).toBe(2);
    const schema = await call("svc.get_form_schema", { slug: list.forms[0]!.slug });
    expect(schema.isError).toBeFalsy();
    expect(schema.structuredContent).toHaveProperty("fields");
    const unknown = await call("svc.get_form_schema", { slug: "no-such-form" });
    expect(unknown.isError).toBe(true);
    expect(textOf(unknown)).toMatch(/no-such-form.*svc\.list_forms/);
  });

  it("refuses arguments that do not fit a tool's schema with a text naming the field", async () => {
    const result = await call("svc.list_forms", { limit: 0, colour: "red" });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(/limit/);
    expect(textOf(result)).toMatch(/colour/);
  });

  it("answers an unknown tool with a JSON-RPC error", async () => {
    await expect(client.callTool({ name: "svc.print_money", arguments: {} })).rejects.toThrow(/Unknown tool/);
  });

  it("names the order field at fault when the core refuses an order (a manual address missing)", async () => {
    const order = letterOrder({ recipient_address_manual: undefined, recipient_address_type: "Manual" });
    const result = await call("svc.create_machine_order", { payment_protocol: "mpp", order });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(/validation_failed/);
    expect(textOf(result)).toMatch(/order\.recipient_address_manual/);
  });

  it("creates an MPP-paid order: a challenge, the paid retry, its status, and no second charge", async () => {
    const order = letterOrder();
    const first = await call("svc.create_machine_order", { payment_protocol: "mpp", order });
    expect(first.isError).toBeFalsy();
    const challenge = first.structuredContent as {
      status: string;
      order_id: string;
      payment: { www_authenticate: string[]; retry_header: string };
    };
    expect(challenge.status).toBe("payment_required");
    expect(challenge.payment.retry_header).toBe("Authorization");
    const headers = new Headers();
    for (const value of challenge.payment.www_authenticate) headers.append("WWW-Authenticate", value);
    const mppx = Mppx.create({ methods: [testMethodClient({ token: "tok_test_visa" })], polyfill: false });
    const authorization = await mppx.createCredential(new Response(null, { status: 402, headers }));

    const paid = await call("svc.create_machine_order", {
      payment_protocol: "mpp",
      order,
      payment_authorization: authorization,
    });
    expect(paid.isError).toBeFalsy();
    expect(paid.structuredContent).toMatchObject({ order_id: challenge.order_id, status: "paid" });

    const again = await call("svc.create_machine_order", {
      payment_protocol: "mpp",
      order,
      payment_authorization: authorization,
    });
    expect(again.structuredContent).toMatchObject({ order_id: challenge.order_id });
    expect(textOf(again)).toMatch(/already paid; nothing was charged/);

    const status = await call("svc.get_order_status", { order_id: challenge.order_id });
    expect(status.structuredContent).toMatchObject({
      view: "order_status",
      found: true,
      order_id: challenge.order_id,
      is_paid: true,
    });

    const changed = await call("svc.create_machine_order", {
      payment_protocol: "mpp",
      order: { ...order, buyer_name: "Someone Else" },
    });
    expect(changed.isError).toBe(true);
    expect(textOf(changed)).toMatch(/request_id_conflict/);
  });

  it("creates an x402-paid order with the reference x402 client's signature", async () => {
    const order = letterOrder();
    const first = await call("svc.create_machine_order", { payment_protocol: "x402", order });
    const challenge = first.structuredContent as {
      status: string;
      order_id: string;
      payment_required_header: string;
    };
    expect(challenge.status).toBe("payment_required");
    const x402 = x402Client.fromConfig({ schemes: [], spendControls: { maxAmountPerPayment: "$250" } });
    registerExactEvmScheme(x402, { signer: privateKeyToAccount(generatePrivateKey()) });
    const http = new x402HTTPClient(x402);
    const payload = await x402.createPaymentPayload(
      decodePaymentRequiredHeader(challenge.payment_required_header),
    );
    const signature = Object.values(http.encodePaymentSignatureHeader(payload))[0]!;
    const paid = await call("svc.create_machine_order", {
      payment_protocol: "x402",
      order,
      payment_signature: signature,
    });
    expect(paid.isError).toBeFalsy();
    expect(paid.structuredContent).toMatchObject({ order_id: challenge.order_id });
    expect(["paid", "settled"]).toContain((paid.structuredContent as { status: string }).status);
  });

  it("opens an upload slot with an absolute upload_url", async () => {
    const result = await call("svc.create_pdf_upload", {
      file_name: "letter.pdf",
      content_type: "application/pdf",
      content_length: 2048,
    });
    expect(result.isError).toBeFalsy();
    const slot = result.structuredContent as { upload_url: string; upload_token: string; max_bytes: number };
    expect(slot.upload_url.startsWith(`${url}/api/machine/uploads/`)).toBe(true);
    expect(slot.max_bytes).toBeGreaterThan(0);
  });

  it("searches addresses: a Container leads to single addresses, and only those print", async () => {
    const found = await call("svc.search_addresses", { query: "350 Fifth Avenue", country_code: "US" });
    expect(found.isError).toBeFalsy();
    const { suggestions } = found.structuredContent as {
      suggestions: { id: string; text: string; type: string; description: string }[];
    };
    expect(suggestions.length).toBeGreaterThan(0);
    for (const suggestion of suggestions) expect(suggestion.id.startsWith("US|")).toBe(true);
    const container = suggestions.find((suggestion) => suggestion.type === "Container");
    expect(container).toBeDefined();
    const inside = await call("svc.search_addresses", { query: "350 Fifth", container: container!.id });
    const units = (inside.structuredContent as { suggestions: { type: string }[] }).suggestions;
    expect(units.length).toBeGreaterThan(0);
    expect(units.every((unit) => unit.type === "Address")).toBe(true);

    const short = await call("svc.search_addresses", { query: "35" });
    expect(short.isError).toBe(true);
    expect(textOf(short)).toMatch(/query/);
    const unknown = await call("svc.search_addresses", { query: "350 Fifth", container: "US|c:nope" });
    expect(unknown.isError).toBe(true);
    expect(textOf(unknown)).toMatch(/container/);
  });

  it("reports an unknown order as not found", async () => {
    const result = await call("svc.get_order_status", { order_id: crypto.randomUUID() });
    expect(result.structuredContent).toMatchObject({ found: false, is_paid: false, current_step: null });
  });
});

describe("the HTTP side of /mcp", () => {
  const initialize = {
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
  };
  const post = (body: unknown, headers: Record<string, string> = {}) =>
    fetch(`${url}/mcp`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        ...headers,
      },
      body: JSON.stringify(body),
    });

  it("refuses a request from another origin (DNS rebinding)", async () => {
    const response = await post(initialize, { origin: "http://evil.example" });
    expect(response.status).toBe(403);
    expect(await response.json()).toMatchObject({ jsonrpc: "2.0", id: null, error: { code: -32000 } });
  });

  it("answers 404 for an unknown session and 400 for a first request that is not initialize", async () => {
    const unknown = await post({ jsonrpc: "2.0", id: 2, method: "tools/list" }, { "mcp-session-id": "nope" });
    expect(unknown.status).toBe(404);
    const noSession = await post({ jsonrpc: "2.0", id: 2, method: "tools/list" });
    expect(noSession.status).toBe(400);
  });

  it("ends a session with DELETE", async () => {
    const opened = await post(initialize);
    const id = opened.headers.get("mcp-session-id");
    expect(id).toBeTruthy();
    await opened.body?.cancel();
    const ended = await fetch(`${url}/mcp`, { method: "DELETE", headers: { "mcp-session-id": id! } });
    expect(ended.status).toBe(200);
    const after = await post({ jsonrpc: "2.0", id: 3, method: "tools/list" }, { "mcp-session-id": id! });
    expect(after.status).toBe(404);
  });

  it("answers 429 with Retry-After and a JSON-RPC error past the client's request budget", async () => {
    const limited = await startMcpServer({ requestsPerMinute: 2 });
    try {
      const send = () =>
        fetch(`${limited.base}/mcp`, {
          method: "POST",
          headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
          body: JSON.stringify(initialize),
        });
      for (const response of [await send(), await send()]) {
        expect(response.status).toBe(200);
        await response.body?.cancel();
      }
      const refused = await send();
      expect(refused.status).toBe(429);
      expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
      expect(await refused.json()).toMatchObject({ jsonrpc: "2.0", id: null, error: { code: -32000 } });
    } finally {
      await limited.app.close();
      await limited.running.close();
    }
  });

  it("answers 429 with Retry-After and the call's JSON-RPC error past the unpaid-creation limit, charging nothing", async () => {
    const limited = await startMcpServer({ core: { unpaidRateLimit: { limit: 1, windowMs: 3_600_000 } } });
    const agent = await connect(limited.base);
    try {
      const first = (await agent.callTool({
        name: "svc.create_machine_order",
        arguments: { payment_protocol: "mpp", order: letterOrder() },
      })) as CallToolResult;
      expect(first.structuredContent).toMatchObject({ status: "payment_required" });
      // The same call through the SDK client fails with the HTTP status...
      await expect(
        agent.callTool({
          name: "svc.create_machine_order",
          arguments: { payment_protocol: "mpp", order: letterOrder() },
        }),
      ).rejects.toMatchObject({ code: 429, message: expect.stringMatching(/rate_limited/) });
      // ...and on the wire it is 429 with Retry-After and a JSON-RPC error naming the call.
      const sessionId = (agent.transport as StreamableHTTPClientTransport).sessionId!;
      const refused = await fetch(`${limited.base}/mcp`, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          "mcp-session-id": sessionId,
          "mcp-protocol-version": "2025-06-18",
        },
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: 7,
          method: "tools/call",
          params: {
            name: "svc.create_machine_order",
            arguments: { payment_protocol: "mpp", order: letterOrder() },
          },
        }),
      });
      expect(refused.status).toBe(429);
      expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(60);
      expect(await refused.json()).toMatchObject({
        jsonrpc: "2.0",
        id: 7,
        error: { code: -32029, data: { error: "rate_limited" } },
      });
      // Other tools still answer on the same session.
      const ping = (await agent.callTool({ name: "svc.ping", arguments: {} })) as CallToolResult;
      expect(ping.isError).toBeFalsy();
    } finally {
      await agent.close();
      await limited.app.close();
      await limited.running.close();
    }
  });
});
