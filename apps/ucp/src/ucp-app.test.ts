import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { type CallToolResult, McpError } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mailpiece, startUcpServer, type UcpTestServer, ucpSchemas } from "./ucp-test-server.fixture.ts";

let server: UcpTestServer;
let client: Client;
let profile: string;

const LINE_ITEMS = [{ item: { id: "mailpiece" }, quantity: 1 }];
const BUYER = { first_name: "Ada", last_name: "Lovelace", email: "ada@example.com" };
const instrument = (token: string) => ({
  instruments: [
    {
      id: "pi_1",
      handler_id: "shared_payment_token",
      type: "card",
      credential: { type: "shared_payment_token", token },
    },
  ],
});

/** A tool call as a platform makes it: the profile in the request's _meta. */
async function call(name: string, args: Record<string, unknown>, profileUrl: string | null = profile) {
  const result = (await client.callTool({
    name,
    arguments: args,
    ...(profileUrl === null ? {} : { _meta: { ucp: { profile: profileUrl } } }),
  })) as CallToolResult;
  expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
  const checkout = result.structuredContent as Record<string, unknown>;
  // Every answer is a checkout object as UCP's own schemas define it.
  const parsed = ucpSchemas.CheckoutResponseSchema.safeParse(checkout);
  expect(parsed.success, JSON.stringify(parsed.error?.issues)).toBe(true);
  return checkout;
}

/** The UCP error of a refused call: code, severity and path of each error. */
async function refusal(name: string, args: Record<string, unknown>, profileUrl: string | null = profile) {
  const error = await client
    .callTool({
      name,
      arguments: args,
      ...(profileUrl === null ? {} : { _meta: { ucp: { profile: profileUrl } } }),
    })
    .then(
      (result) => {
        throw new Error(`expected a refusal, got ${JSON.stringify(result)}`);
      },
      (e: unknown) => e,
    );
  expect(error).toBeInstanceOf(McpError);
  const data = (error as McpError).data as {
    status: string;
    errors: { code: string; severity: string; path?: string }[];
  };
  expect(data.status).toBe("error");
  return { code: (error as McpError).code, errors: data.errors };
}

const uuid = () => crypto.randomUUID();

interface BusinessProfileBody {
  ucp: {
    version: string;
    services: Record<string, { mcp: { endpoint: string } }>;
    capabilities: { name: string }[];
  };
  payment: { handlers: { id: string; config_schema: string; instrument_schemas: string[] }[] };
  signing_keys: Record<string, unknown>[];
}

beforeAll(async () => {
  server = await startUcpServer();
  profile = `${server.platform}/agent.json`;
  client = new Client({ name: "shopping-agent", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${server.base}/ucp/mcp`)));
}, 60_000);

afterAll(async () => {
  await client?.close();
  await server?.close();
});

describe("the business profile", () => {
  it("publishes /.well-known/ucp as UCP defines it: the MCP endpoint, the checkout capability, the handler and a signing key", async () => {
    const response = await fetch(`${server.base}/.well-known/ucp`);
    expect(response.status).toBe(200);
    expect(response.headers.get("cache-control")).toMatch(/public, max-age=\d+/);
    const body = (await response.json()) as BusinessProfileBody;
    const parsed = ucpSchemas.UcpDiscoveryProfileSchema.safeParse(body);
    expect(parsed.success, JSON.stringify(parsed.error?.issues)).toBe(true);
    expect(body.ucp.version).toBe("2026-01-11");
    expect(body.ucp.services["dev.ucp.shopping"]?.mcp.endpoint).toBe(`${server.base}/ucp/mcp`);
    expect(body.ucp.capabilities.map((c) => c.name)).toEqual(["dev.ucp.shopping.checkout"]);
    expect(body.payment.handlers).toEqual([
      expect.objectContaining({ id: "shared_payment_token", config: { currency: "USD", simulated: true } }),
    ]);
    const [key] = body.signing_keys;
    expect(key).toMatchObject({ kty: "EC", crv: "P-256", use: "sig", alg: "ES256" });
    expect(key?.d).toBeUndefined();
    // The key is kept: a second read publishes the same one.
    const again = (await (await fetch(`${server.base}/.well-known/ucp`)).json()) as BusinessProfileBody;
    expect(again.signing_keys).toEqual(body.signing_keys);
    // The handler's schemas are served where the profile says.
    const handler = body.payment.handlers[0]!;
    for (const url of [handler.config_schema, ...handler.instrument_schemas]) {
      const schema = await fetch(url);
      expect(schema.status, url).toBe(200);
      expect(((await schema.json()) as { $id: string }).$id).toBe(url);
    }
  });

  it("lists the five checkout tools", async () => {
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual(
      ["cancel_checkout", "complete_checkout", "create_checkout", "get_checkout", "update_checkout"].sort(),
    );
  });
});

describe("a whole checkout over MCP", () => {
  it("creates, updates and completes a checkout; the order is paid on the machine API, charged once", async () => {
    const created = await call("create_checkout", {
      line_items: LINE_ITEMS,
      "svc.mailpiece": mailpiece(server.pdf),
    });
    expect(created).toMatchObject({
      ucp: {
        version: "2026-01-11",
        capabilities: [{ name: "dev.ucp.shopping.checkout", version: "2026-01-11" }],
      },
      status: "incomplete",
      currency: "USD",
    });
    expect(created.id).toMatch(/^chk_[0-9a-f]{32}$/);
    const messages = created.messages as { code: string; path: string }[];
    expect(messages.map((m) => m.path).sort()).toEqual(["$.buyer.email", "$.buyer.first_name"]);
    const [line] = created.line_items as { item: { id: string; price: number }; quantity: number }[];
    const totals = created.totals as { type: string; amount: number; lines?: { amount: number }[] }[];
    const total = totals.find((t) => t.type === "total")!.amount;
    expect(line!.item.price).toBe(total);
    expect(total).toBeGreaterThanOrEqual(340);
    expect(created["svc.mailpiece"]).toMatchObject({ page_count: 2, recipient: { name: "Grace Recipient" } });
    const firstContinue = created.continue_url as string;
    expect(firstContinue).toMatch(new RegExp(`^${server.base}/checkout/cs_`));

    // The buyer makes it ready; the same mail order keeps the same draft.
    const ready = await call("update_checkout", { id: created.id, buyer: BUYER });
    expect(ready).toMatchObject({
      id: created.id,
      status: "ready_for_complete",
      buyer: BUYER,
      continue_url: firstContinue,
    });

    // A changed mail order is validated and quoted again under the same id; the old session stops working.
    const color = await call("update_checkout", {
      id: created.id,
      "svc.mailpiece": mailpiece(server.pdf, { color: true, mail_class: "priority" }),
    });
    expect(color).toMatchObject({ id: created.id, status: "ready_for_complete" });
    const colorTotal = (color.totals as { type: string; amount: number }[]).find(
      (t) => t.type === "total",
    )!.amount;
    expect(colorTotal).toBeGreaterThan(total);
    expect(color.continue_url).not.toBe(firstContinue);
    const oldSession = firstContinue.split("/").pop()!;
    expect((await server.core.getCheckout(oldSession))?.status).toBe("canceled");

    const key = uuid();
    const completed = await call("complete_checkout", {
      id: created.id,
      idempotency_key: key,
      payment: instrument("spt_test_ok"),
    });
    expect(completed.status).toBe("completed");
    const order = completed.order as { id: string; permalink_url: string };
    expect(order.permalink_url).toBe(color.continue_url);
    expect(JSON.stringify(completed)).not.toContain("spt_test_ok");
    expect(completed.payment).toMatchObject({
      instruments: [
        { id: "pi_1", handler_id: "shared_payment_token", credential: { type: "shared_payment_token" } },
      ],
    });
    expect(server.charges).toHaveLength(1);
    expect(server.charges[0]!.amount_cents).toBe(colorTotal);

    // A retry with the same key and arguments answers the same, and charges nothing.
    const retried = await call("complete_checkout", {
      id: created.id,
      idempotency_key: key,
      payment: instrument("spt_test_ok"),
    });
    expect(retried).toMatchObject({ status: "completed", order });
    expect(server.charges).toHaveLength(1);
    // The same key with other arguments is refused.
    const conflict = await refusal("complete_checkout", {
      id: created.id,
      idempotency_key: key,
      payment: instrument("spt_test_declined"),
    });
    expect(conflict.errors[0]).toMatchObject({ code: "idempotency_conflict", path: "$.idempotency_key" });

    // The machine API shows the order paid; a completed checkout is not changed by an update.
    const status = await fetch(`${server.base}/api/machine/orders/${order.id}`);
    expect(status.status).toBe(200);
    expect(await status.json()).toMatchObject({ order_id: order.id, is_paid: true });
    const late = await call("update_checkout", { id: created.id, "svc.mailpiece": mailpiece(server.pdf) });
    expect(late).toMatchObject({ status: "completed", order });
    expect(late.messages).toEqual([expect.objectContaining({ code: "checkout_not_modifiable" })]);
    expect(server.charges).toHaveLength(1);
  });

  it("cancels a checkout once: a replay answers the same, completing it is refused, and its page no longer pays", async () => {
    const created = await call("create_checkout", {
      line_items: LINE_ITEMS,
      buyer: BUYER,
      "svc.mailpiece": mailpiece(server.pdf, { file_name: "cancel-me.pdf" }),
    });
    expect(created.status).toBe("ready_for_complete");
    const key = uuid();
    const canceled = await call("cancel_checkout", { id: created.id, idempotency_key: key });
    expect(canceled.status).toBe("canceled");
    expect(canceled.order).toBeUndefined();
    expect((await call("cancel_checkout", { id: created.id, idempotency_key: key })).status).toBe("canceled");
    expect((await call("get_checkout", { id: created.id })).status).toBe("canceled");
    const charged = server.charges.length;
    const refused = await refusal("complete_checkout", {
      id: created.id,
      idempotency_key: uuid(),
      payment: instrument("spt_test_ok"),
    });
    expect(refused.errors[0]).toMatchObject({ code: "checkout_canceled", severity: "unrecoverable" });
    expect(server.charges).toHaveLength(charged);
  });

  it("answers a declined card with a message and the same answer to its retry; 3-D Secure escalates to continue_url", async () => {
    const created = await call("create_checkout", {
      line_items: LINE_ITEMS,
      buyer: BUYER,
      "svc.mailpiece": mailpiece(server.pdf, { file_name: "declined.pdf" }),
    });
    const key = uuid();
    const before = server.charges.length;
    const declined = await call("complete_checkout", {
      id: created.id,
      idempotency_key: key,
      payment: instrument("spt_test_declined"),
    });
    expect(declined.status).toBe("ready_for_complete");
    expect(declined.messages).toEqual([
      expect.objectContaining({ type: "error", code: "payment_declined", severity: "recoverable" }),
    ]);
    expect(server.charges).toHaveLength(before + 1);
    const again = await call("complete_checkout", {
      id: created.id,
      idempotency_key: key,
      payment: instrument("spt_test_declined"),
    });
    expect(again.messages).toEqual(declined.messages);
    expect(server.charges).toHaveLength(before + 1);

    const secure = await call("complete_checkout", {
      id: created.id,
      idempotency_key: uuid(),
      payment: instrument("spt_test_3ds"),
    });
    expect(secure.status).toBe("requires_escalation");
    expect(secure.continue_url).toMatch(/\/checkout\/cs_/);
    expect(secure.messages).toEqual([
      expect.objectContaining({ code: "requires_3ds", severity: "requires_buyer_input" }),
    ]);
    expect((await call("get_checkout", { id: created.id })).status).toBe("requires_escalation");
    const paid = await call("complete_checkout", {
      id: created.id,
      idempotency_key: uuid(),
      payment: instrument("spt_test_ok"),
    });
    expect(paid.status).toBe("completed");
  });

  it("charges once when completions race, with one key or with several", async () => {
    for (const keys of [
      [uuid(), null],
      [null, null],
    ] as const) {
      const created = await call("create_checkout", {
        line_items: LINE_ITEMS,
        buyer: BUYER,
        "svc.mailpiece": mailpiece(server.pdf, { file_name: `race-${uuid()}.pdf` }),
      });
      const before = server.charges.length;
      const answers = await Promise.all(
        Array.from({ length: 6 }, () =>
          call("complete_checkout", {
            id: created.id,
            idempotency_key: keys[0] ?? uuid(),
            payment: instrument("spt_test_ok"),
          }),
        ),
      );
      const orders = new Set(answers.map((answer) => (answer.order as { id: string } | undefined)?.id));
      expect(orders.size).toBe(1);
      expect((await call("get_checkout", { id: created.id })).status).toBe("completed");
      expect(server.charges.length - before).toBe(1);
    }
  });

  it("returns the same checkout for a create retried with its idempotency key, and refuses the key with another order", async () => {
    const key = uuid();
    const args = {
      line_items: LINE_ITEMS,
      idempotency_key: key,
      "svc.mailpiece": mailpiece(server.pdf, { file_name: "retry.pdf" }),
    };
    const first = await call("create_checkout", args);
    const second = await call("create_checkout", args);
    expect(second.id).toBe(first.id);
    expect(second.continue_url).toBe(first.continue_url);
    const conflict = await refusal("create_checkout", {
      ...args,
      "svc.mailpiece": mailpiece(server.pdf, { color: true }),
    });
    expect(conflict.errors[0]!.code).toBe("idempotency_conflict");
  });
});

describe("refusals as UCP errors", () => {
  const create = (member: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
    line_items: LINE_ITEMS,
    "svc.mailpiece": member,
    ...extra,
  });

  it("refuses a call without _meta.ucp.profile, or whose profile cannot be fetched or read", async () => {
    const args = create(mailpiece(server.pdf));
    const missing = await refusal("create_checkout", args, null);
    expect(missing.errors[0]).toMatchObject({ code: "missing_profile", path: "$._meta.ucp.profile" });
    expect((await refusal("get_checkout", { id: "chk_x" }, null)).errors[0]!.code).toBe("missing_profile");
    expect((await refusal("create_checkout", args, "not a url")).errors[0]!.code).toBe("invalid_profile");
    expect((await refusal("create_checkout", args, `${server.platform}/not-ucp.json`)).errors[0]!.code).toBe(
      "invalid_profile",
    );
    expect((await refusal("create_checkout", args, `${server.platform}/missing.json`)).errors[0]!.code).toBe(
      "profile_unreachable",
    );
    // A private address that profileHosts does not admit is refused before any connection (an IP-address host).
    const privateHost = await refusal("create_checkout", args, "https://10.0.0.1/profile.json");
    expect(privateHost.errors[0]).toMatchObject({ code: "profile_unreachable" });
    expect(JSON.stringify(privateHost)).toContain("host_not_allowed");
  });

  it("negotiates: a newer version is version_unsupported, an older one is served, no checkout capability is refused", async () => {
    const args = create(mailpiece(server.pdf, { file_name: "versions.pdf" }));
    const newer = await refusal("create_checkout", args, `${server.platform}/newer.json`);
    expect(newer.errors[0]).toMatchObject({ code: "version_unsupported", severity: "requires_buyer_input" });
    const older = await call("create_checkout", args, `${server.platform}/older.json`);
    expect((older.ucp as { version: string }).version).toBe("2026-01-11");
    const none = await refusal("create_checkout", args, `${server.platform}/no-checkout.json`);
    expect(none.errors[0]!.code).toBe("capabilities_incompatible");
  });

  it("refuses manual addresses, letter text and forms with a message that says so, at their fields", async () => {
    const manual = await refusal(
      "create_checkout",
      create(
        mailpiece(server.pdf, {
          recipient_address_type: "Manual",
          recipient_address_id: undefined,
          recipient_address_manual: {
            line1: "1 Main St",
            city: "Springfield",
            state: "IL",
            zip: "62701",
            countryCode: "US",
          },
        }),
      ),
    );
    expect(manual.errors.map((e) => [e.code, e.path])).toEqual([
      ["unsupported_mailpiece", '$["svc.mailpiece"].recipient_address_manual'],
      ["unsupported_mailpiece", '$["svc.mailpiece"].recipient_address_type'],
    ]);
    expect(JSON.stringify(manual)).toContain("manual addresses");
    const letter = await refusal(
      "create_checkout",
      create({ ...mailpiece(server.pdf), pdf: undefined, letter: "Dear Grace" }),
    );
    expect(letter.errors.map((e) => e.code)).toContain("unsupported_mailpiece");
    expect(JSON.stringify(letter)).toContain("letter text");
    const form = await refusal(
      "create_checkout",
      create({ ...mailpiece(server.pdf), form: { slug: "x", fields: {} } }),
    );
    expect(JSON.stringify(form)).toContain("forms are not taken");
  });

  it("refuses what the core refuses at the member's field, and line items other than one mailpiece", async () => {
    const unknown = await refusal(
      "create_checkout",
      create(mailpiece(server.pdf, { recipient_address_id: "US|nope" })),
    );
    expect(unknown.errors).toEqual([
      expect.objectContaining({ code: "address_not_found", path: '$["svc.mailpiece"].recipient_address_id' }),
    ]);
    const two = await refusal("create_checkout", {
      ...create(mailpiece(server.pdf)),
      line_items: [{ item: { id: "mailpiece" }, quantity: 2 }],
    });
    expect(two.errors[0]).toMatchObject({ code: "invalid_quantity", path: "$.line_items[0].quantity" });
    const euro = await refusal("create_checkout", create(mailpiece(server.pdf), { currency: "EUR" }));
    expect(euro.errors[0]!.code).toBe("currency_unsupported");
    const missingId = await refusal("get_checkout", { id: "chk_00000000000000000000000000000000" });
    expect(missingId.errors[0]).toMatchObject({ code: "not_found", severity: "unrecoverable" });
    const noKey = await refusal("cancel_checkout", { id: "chk_00000000000000000000000000000000" });
    expect(noKey.errors[0]!.path).toBe("$.idempotency_key");
  });

  it("fetches a platform's profile once for many calls", async () => {
    const before = server.profileRequests.filter((p) => p === "/agent.json").length;
    const created = await call("create_checkout", create(mailpiece(server.pdf, { file_name: "cache.pdf" })));
    await call("get_checkout", { id: created.id });
    await call("get_checkout", { id: created.id });
    expect(server.profileRequests.filter((p) => p === "/agent.json").length).toBe(Math.max(before, 1));
  });
});
