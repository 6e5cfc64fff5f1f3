import type { LoopbackServer } from "@mailpiece/conformance";
import { letterOrder, makePdf, mortgageFormOrder, pdfDataUrl } from "@mailpiece/conformance";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { createMcpApp } from "./mcp-app.ts";
import { startMcpServer } from "./test-server.fixture.ts";

let server: LoopbackServer;
let url: string;
let mcp: ReturnType<typeof createMcpApp>;
let client: Client;

const call = async (name: string, args: Record<string, unknown> = {}) =>
  (await client.callTool({ name, arguments: args })) as CallToolResult;
const textOf = (result: CallToolResult) =>
  result.content.map((part) => (part.type === "text" ? part.text : "")).join("\n");
const ok = (result: CallToolResult) => {
  expect(result.isError, textOf(result)).toBeFalsy();
  return result.structuredContent as Record<string, unknown>;
};

/** A letter order's fields without the buyer, who pays at checkout. */
function draftFields(overrides: Record<string, unknown> = {}) {
  const { buyer_name: _name, buyer_email: _email, ...fields } = letterOrder(overrides);
  return Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined));
}

const BUYER = { first_name: "Ada", last_name: "Lovelace", email: "ada@example.com" };

beforeAll(async () => {
  // A generous unpaid-creation budget is not needed: each test creates few drafts, and each client key is the IP.
  const started = await startMcpServer();
  server = started.running;
  url = started.base;
  mcp = started.app;
  client = new Client({ name: "mailpiece-test-agent", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${url}/mcp`)));
}, 60_000);

afterAll(async () => {
  await client?.close();
  await mcp?.close();
  await server?.close();
});

describe("drafts and hosted checkout over MCP", () => {
  it("lists the 11 tools of spec 1", async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(
      [
        "complete_checkout",
        "svc.create_form_order_draft",
        "svc.create_letter_order_draft",
        "svc.create_machine_order",
        "svc.create_order_draft",
        "svc.create_pdf_upload",
        "svc.get_form_schema",
        "svc.get_order_status",
        "svc.list_forms",
        "svc.ping",
        "svc.search_addresses",
      ].sort(),
    );
    for (const tool of tools) {
      expect(tool.description?.length, tool.name).toBeGreaterThan(80);
      expect(tool.outputSchema, tool.name).toBeDefined();
    }
  });

  it("drafts a letter, answers the identical retry with the same draft, and completes the checkout once", async () => {
    const fields = draftFields();
    const draft = ok(await call("svc.create_letter_order_draft", fields));
    expect(draft).toMatchObject({
      view: "order_draft",
      page_count: 1,
      sender_name: "Zoë Łukasz-Müller",
      recipient_name: "Grace Recipient",
      is_paid: false,
    });
    const session = draft.checkout_session as { id: string };
    expect(draft.checkout_url).toBe(`${url}/checkout/${session.id}`);
    expect(String(draft.preview_url)).toMatch(new RegExp(`^${url}/`));
    const again = ok(await call("svc.create_letter_order_draft", fields));
    expect(again.order_id).toBe(draft.order_id);

    const unpaid = ok(await call("svc.get_order_status", { order_id: draft.order_id }));
    expect(unpaid).toMatchObject({ found: true, is_paid: false });

    const paid = ok(
      await call("complete_checkout", {
        checkout_session_id: session.id,
        buyer: BUYER,
        payment_data: { token: "spt_test_ok", provider: "stripe" },
      }),
    );
    expect(paid).toMatchObject({ status: "completed", order_id: draft.order_id, messages: [] });
    expect(paid.order_permalink).toBe(draft.checkout_url);
    expect(JSON.stringify(paid)).not.toContain("spt_test_ok");
    const status = ok(await call("svc.get_order_status", { order_id: draft.order_id }));
    expect(status).toMatchObject({ is_paid: true, current_step: "payment_received" });
    const twice = ok(
      await call("complete_checkout", {
        checkout_session_id: session.id,
        buyer: BUYER,
        payment_data: { token: "spt_test_ok" },
      }),
    );
    expect(twice.status).toBe("completed");
  });

  it("answers a declined card and a 3-D Secure card as tool errors with their codes, the session still open", async () => {
    const draft = ok(
      await call("svc.create_letter_order_draft", draftFields({ letter: "Declined, then paid." })),
    );
    const id = (draft.checkout_session as { id: string }).id;
    const declined = await call("complete_checkout", {
      checkout_session_id: id,
      buyer: BUYER,
      payment_data: { token: "spt_test_declined" },
    });
    expect(declined.isError).toBe(true);
    expect(textOf(declined)).toMatch(/^payment_declined: /);
    expect(declined.structuredContent).toMatchObject({
      status: "open",
      messages: [{ code: "payment_declined" }],
    });
    const threeDs = await call("complete_checkout", {
      checkout_session_id: id,
      buyer: BUYER,
      payment_data: { token: "spt_test_3ds" },
    });
    expect(textOf(threeDs)).toMatch(/^requires_3ds: /);
  });

  it("names the field a model must correct: a manual address missing when the type is Manual", async () => {
    const result = await call(
      "svc.create_letter_order_draft",
      draftFields({ recipient_address_type: "Manual", recipient_address_manual: undefined }),
    );
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain("recipient_address_manual");
  });

  it("refuses a token that is not a shared payment token, and an unknown session, before any charge", async () => {
    const badToken = await call("complete_checkout", {
      checkout_session_id: `cs_${"a".repeat(32)}`,
      buyer: BUYER,
      payment_data: { token: "tok_visa" },
    });
    expect(badToken.isError).toBe(true);
    expect(textOf(badToken)).toContain("payment_data.token");
    const unknown = await call("complete_checkout", {
      checkout_session_id: `cs_${"a".repeat(32)}`,
      buyer: BUYER,
      payment_data: { token: "spt_test_ok" },
    });
    expect(textOf(unknown)).toMatch(/^not_found: /);
  });

  it("drafts a form letter, naming a form field's problem at its top-level path", async () => {
    const { form, buyer_name: _n, buyer_email: _e, letter: _l, ...fields } = mortgageFormOrder();
    const { slug, fields: answers } = form as { slug: string; fields: Record<string, unknown> };
    const draft = ok(await call("svc.create_form_order_draft", { ...fields, slug, fields: answers }));
    expect(draft).toMatchObject({ view: "order_draft", recipient_name: fields.recipient_name });
    expect(draft.page_count as number).toBeGreaterThan(0);
    const { mortgage_account_number: _m, ...missing } = answers;
    const refused = await call("svc.create_form_order_draft", {
      ...fields,
      request_id: crypto.randomUUID(),
      slug,
      fields: missing,
    });
    expect(refused.isError).toBe(true);
    expect(textOf(refused)).toMatch(/- fields\.mortgage_account_number: /);
  });

  it("drafts a PDF and pays it", async () => {
    const draft = ok(
      await call("svc.create_order_draft", {
        ...draftFields({ letter: undefined }),
        pdf: pdfDataUrl(await makePdf(3)),
        file_name: "three-pages.pdf",
        double_sided: false,
      }),
    );
    expect(draft).toMatchObject({ page_count: 3, options: { double_sided: false } });
    const paid = ok(
      await call("complete_checkout", {
        checkout_session_id: (draft.checkout_session as { id: string }).id,
        buyer: { first_name: "Grace", email: "grace@example.com" },
        payment_data: { token: "spt_test_ok" },
      }),
    );
    expect(paid.status).toBe("completed");
  });
});
