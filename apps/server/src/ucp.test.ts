import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type LoopbackServer, makePdf, serveOnLoopback } from "@mailpiece/conformance";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "./config.ts";
import type { RunningServer } from "./start.ts";
import { startServer } from "./start.ts";

/** A shopping platform that publishes its UCP profile on another loopback port. */
const PLATFORM_PROFILE = {
  ucp: {
    version: "2026-01-11",
    capabilities: [{ name: "dev.ucp.shopping.checkout", version: "2026-01-11" }],
  },
};

describe("UCP checkout on the running server", () => {
  const dataDir = mkdtempSync(join(tmpdir(), "mailpiece-ucp-"));
  let platform: LoopbackServer;
  let running: RunningServer | undefined;
  const start = () =>
    startServer(
      loadConfig({
        PORT: "0",
        DATA_DIR: dataDir,
        LOG_LEVEL: "silent",
        FULFILMENT_INTERVAL_MS: "0",
        UCP_PROFILE_HOSTS: new URL(platform.url).host,
      }),
    );

  beforeAll(async () => {
    platform = await serveOnLoopback(() => Response.json(PLATFORM_PROFILE));
    running = await start();
  });
  afterAll(async () => {
    await running?.close();
    await platform?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("an agent finds addresses and uploads a PDF at /mcp, then buys the mailing through UCP at /ucp/mcp", async () => {
    const base = running!.url;
    const agent = new Client({ name: "shopping-agent", version: "1.0.0" });
    await agent.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`)));
    const shop = new Client({ name: "shopping-agent-ucp", version: "1.0.0" });
    await shop.connect(new StreamableHTTPClientTransport(new URL(`${base}/ucp/mcp`)));
    const tool = async (client: Client, name: string, args: Record<string, unknown>, meta = true) => {
      const result = (await client.callTool({
        name,
        arguments: args,
        ...(meta ? { _meta: { ucp: { profile: `${platform.url}/profile.json` } } } : {}),
      })) as CallToolResult;
      expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
      return result.structuredContent as Record<string, unknown>;
    };
    try {
      type Suggestion = { id: string; text: string; type: string };
      const search = async (query: string, container?: string) =>
        (
          (await tool(
            agent,
            "svc.search_addresses",
            { query, ...(container ? { container } : {}) },
            false,
          )) as {
            suggestions: Suggestion[];
          }
        ).suggestions;
      const building = (await search("350 Fifth Avenue")).find((one) => one.type === "Container")!;
      const suite = (await search("350 Fifth", building.id))[0]!;
      expect(suite.type).toBe("Address");
      const pdf = await makePdf(3);
      const slot = (await tool(
        agent,
        "svc.create_pdf_upload",
        { file_name: "three-pages.pdf", content_type: "application/pdf", content_length: pdf.byteLength },
        false,
      )) as { upload_url: string; upload_token: string };
      const form = new FormData();
      form.append("file", new Blob([pdf], { type: "application/pdf" }), "three-pages.pdf");
      expect((await fetch(slot.upload_url, { method: "POST", body: form })).status).toBeLessThan(300);

      const party = (who: "sender" | "recipient", name: string) => ({
        [`${who}_name`]: name,
        [`${who}_address_type`]: "Address",
        [`${who}_address_id`]: suite.id,
        [`${who}_address_text`]: suite.text,
      });
      const created = await tool(shop, "create_checkout", {
        line_items: [{ item: { id: "mailpiece" }, quantity: 1 }],
        "svc.mailpiece": {
          pdf: { upload_token: slot.upload_token },
          ...party("sender", "Ada Sender"),
          ...party("recipient", "Grace Recipient"),
          mail_class: "standard",
        },
      });
      expect(created).toMatchObject({ status: "incomplete", "svc.mailpiece": { page_count: 3 } });
      const ready = await tool(shop, "update_checkout", {
        id: created.id,
        buyer: { first_name: "Ada", email: "ada@example.com" },
      });
      expect(ready.status).toBe("ready_for_complete");
      const completed = await tool(shop, "complete_checkout", {
        id: created.id,
        idempotency_key: crypto.randomUUID(),
        payment: {
          instruments: [
            {
              id: "card_1",
              handler_id: "shared_payment_token",
              type: "card",
              credential: { type: "shared_payment_token", token: "spt_test_ok" },
            },
          ],
        },
      });
      expect(completed.status).toBe("completed");
      const order = completed.order as { id: string; permalink_url: string };
      const status = await fetch(`${base}/api/machine/orders/${order.id}`);
      expect(await status.json()).toMatchObject({ order_id: order.id, is_paid: true });
      // The permalink is the hosted checkout page, which shows the order paid.
      const page = await fetch(order.permalink_url);
      expect(page.status).toBe(200);
      expect(await page.text()).toMatch(/paid/i);
    } finally {
      await agent.close();
      await shop.close();
    }
  });

  it("publishes the same signing key after a restart on the same data directory", async () => {
    const kid = async () =>
      ((await (await fetch(`${running!.url}/.well-known/ucp`)).json()) as { signing_keys: { kid: string }[] })
        .signing_keys[0]!.kid;
    const before = await kid();
    await running!.close();
    running = await start();
    expect(await kid()).toBe(before);
  });
});
