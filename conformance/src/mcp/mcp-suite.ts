import assert from "node:assert/strict";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { type ContractTest, notApplicable, type Requirement, type Suite } from "../kit.ts";
import { letterOrder, makePdf, mortgageFormOrder, pdfDataUrl } from "../machine/fixtures.ts";
import type { HttpTarget } from "../machine/http-target.ts";
import { absoluteUrl, isObject } from "./json-checks.ts";
import { type McpSession, postRpc, textOf, withMcpSession } from "./mcp-session.ts";

type Json = Record<string, unknown>;

export const MCP_SUITE_TEST_NAMES = [
  "initialize answers the tools capability and a session id",
  "a request without the session id is 400 and one with an unknown session id is 404",
  "the tools of spec 1 are listed with the svc. prefix and JSON object input schemas",
  "svc.ping answers the health payload",
  "svc.list_forms pages the form catalogue and svc.get_form_schema gives a form's fields",
  "svc.create_pdf_upload opens an upload slot that takes the PDF as multipart/form-data",
  "svc.search_addresses answers suggestions, and a Container leads to single addresses",
  "svc.create_machine_order answers an unpaid order with its payment challenge",
  "svc.get_order_status tells an unpaid order from an unknown one",
  "svc.create_letter_order_draft answers an unpaid draft with a hosted checkout_url",
  "svc.create_order_draft drafts a PDF with its page count",
  "svc.create_form_order_draft drafts a workflow form",
  "bad arguments are tool errors naming the field and a stable code, and change nothing",
  "an unknown tool is a JSON-RPC error",
  "DELETE ends the session, and its id is then unknown",
] as const;

export type McpSuiteTestName = (typeof MCP_SUITE_TEST_NAMES)[number];

export interface McpSuiteOptions {
  /** The path of the MCP endpoint on the target; default "/mcp". */
  path?: string;
}

const SPEC1 = "spec 1 (machine API)";
const TOOLS_SECTION = "Agent tool (MCP) interface";
const MCP = "MCP 2025-06-18";
const spec1 = (sentence: string, section = TOOLS_SECTION): Requirement => ({
  spec: SPEC1,
  section,
  sentence,
});
const mcp = (section: string, sentence: string): Requirement => ({ spec: MCP, section, sentence });

const REQUIREMENTS: Record<McpSuiteTestName, Requirement> = {
  "initialize answers the tools capability and a session id": spec1(
    "Endpoint {base_url}/mcp, streamable HTTP transport, JSON-RPC over POST (GET and DELETE also accepted). Initialize once, then send the `mcp-session-id` header on every later request.",
  ),
  "a request without the session id is 400 and one with an unknown session id is 404": mcp(
    "Transports › Session Management",
    "Servers that require a session ID SHOULD respond to requests without an Mcp-Session-Id header (other than initialization) with HTTP 400 Bad Request; after a session ends the server MUST respond to requests containing that session ID with HTTP 404 Not Found.",
  ),
  "the tools of spec 1 are listed with the svc. prefix and JSON object input schemas": spec1(
    "Tool names carry a neutral prefix `svc.` here.",
  ),
  "svc.ping answers the health payload": spec1("svc.ping | none | health payload"),
  "svc.list_forms pages the form catalogue and svc.get_form_schema gives a form's fields": spec1(
    "svc.get_form_schema | slug | fields, dependencies, attachments, attachments_max_total_size_mb, optional checkout_flow",
  ),
  "svc.create_pdf_upload opens an upload slot that takes the PDF as multipart/form-data": spec1(
    "svc.create_pdf_upload | file_name, content_type, content_length | upload_url, upload_token, expires_at, max_bytes, required_headers; upload the PDF as multipart/form-data in field `file`",
  ),
  "svc.search_addresses answers suggestions, and a Container leads to single addresses": spec1(
    "svc.search_addresses | query (min 3 chars), country_code (default US), container, target | suggestions each with id, text, type, description; type Container must be searched again with container=<id>",
  ),
  "svc.create_machine_order answers an unpaid order with its payment challenge": spec1(
    "svc.create_machine_order: first call: view machine_order, protocol, order_id, status payment_required, payment {www_authenticate[], retry_header, retry_header_value} for MPP or payment_required_header for x402",
  ),
  "svc.get_order_status tells an unpaid order from an unknown one": spec1(
    "svc.get_order_status | order_id | view order_status, found, order_id, is_paid, current_step",
  ),
  "svc.create_letter_order_draft answers an unpaid draft with a hosted checkout_url": spec1(
    "Draft tools of the MCP interface create an unpaid draft plus a checkout URL that a human reviews and pays. Nothing is printed or mailed until checkout completes.",
    "What the service does",
  ),
  "svc.create_order_draft drafts a PDF with its page count": spec1(
    "svc.create_order_draft | request_id, pdf, file_name, sender/recipient fields, double_sided, color | view order_draft: order_id, page_count, price_usd, checkout_url, party names and address texts, checkout_session",
  ),
  "svc.create_form_order_draft drafts a workflow form": spec1(
    "svc.create_form_order_draft | request_id, slug, fields, sender/recipient fields | order draft",
  ),
  "bad arguments are tool errors naming the field and a stable code, and change nothing": spec1(
    "MCP tool failures return isError true with a human-readable text message (for example a manual address missing when type is Manual).",
    "Errors",
  ),
  "an unknown tool is a JSON-RPC error": mcp(
    "Server Features › Tools › Error Handling",
    "Protocol Errors: standard JSON-RPC errors for issues like unknown tools (-32602, Invalid params).",
  ),
  "DELETE ends the session, and its id is then unknown": mcp(
    "Transports › Session Management",
    "Clients that no longer need a particular session SHOULD send an HTTP DELETE to the MCP endpoint with the Mcp-Session-Id header, to explicitly terminate the session.",
  ),
};

/** The tools of spec 1's table; svc.search_addresses is optional (a deployment without address search). */
const SPEC_TOOLS = [
  "svc.list_forms",
  "svc.get_form_schema",
  "svc.create_letter_order_draft",
  "svc.create_form_order_draft",
  "svc.create_pdf_upload",
  "svc.create_order_draft",
  "svc.create_machine_order",
  "complete_checkout",
  "svc.get_order_status",
  "svc.ping",
] as const;
const SEARCH_TOOL = "svc.search_addresses";
/** The one tool of spec 1's table named without the prefix. */
const UNPREFIXED = new Set(["complete_checkout"]);
const PROTOCOLS = ["mpp", "x402"] as const;
type Protocol = (typeof PROTOCOLS)[number];
const SNAKE_CODE = /^[a-z][a-z0-9]*(?:_[a-z0-9]+)*$/;

/** The structured content of a successful tool result. */
function ok(name: string, result: CallToolResult): Json {
  assert.ok(!result.isError, `${name} failed: ${textOf(result).slice(0, 800)}`);
  assert.ok(result.structuredContent, `${name} answers structured content`);
  return result.structuredContent as Json;
}

/** The text of a tool error. */
function toolError(name: string, result: CallToolResult): string {
  assert.equal(
    result.isError,
    true,
    `${name} answers a tool error (isError true); got ${textOf(result).slice(0, 500)}`,
  );
  const text = textOf(result);
  assert.ok(text.trim().length > 0, `${name}'s tool error has a readable text`);
  return text;
}

/**
 * Asserts that a tool error names the field at `path` with a stable code: a line of the text names the path and
 * carries a snake_case code in brackets (`- limit: must be at least 1 [out_of_range]`), or the text leads with one
 * (`validation_failed: ...`).
 */
function namesField(text: string, path: string): void {
  const line = text.split("\n").find((candidate) => candidate.includes(path));
  assert.ok(line, `the tool error names the field ${path}: ${text.slice(0, 800)}`);
  const bracketed = /\[([a-z][a-z0-9_]*)\]/.exec(line)?.[1];
  const leading = /^([a-z][a-z0-9_]*):/.exec(text)?.[1];
  const code = bracketed ?? leading;
  assert.ok(code && SNAKE_CODE.test(code), `the tool error gives ${path} a stable snake_case code: ${line}`);
}

/** A letter order's fields without the buyer, who gives them at checkout, and without absent members. */
function draftFields(order: Json): Json {
  const { buyer_name: _name, buyer_email: _email, ...rest } = order;
  return Object.fromEntries(Object.entries(rest).filter(([, value]) => value !== undefined));
}

/** Checks an order draft as spec 1 lists it, and that its checkout page answers; returns the draft. */
async function checkDraft(target: HttpTarget, session: McpSession, name: string, result: CallToolResult) {
  const draft = ok(name, result);
  assert.equal(draft.view, "order_draft");
  assert.equal(typeof draft.order_id, "string");
  assert.ok(Number.isInteger(draft.page_count) && (draft.page_count as number) > 0, "page_count is a count");
  assert.match(String(draft.price_usd), /^\d+(\.\d{2})?$/, "price_usd is an amount in dollars");
  for (const field of ["sender_name", "sender_address_text", "recipient_name", "recipient_address_text"]) {
    assert.equal(typeof draft[field], "string", `the draft shows ${field}`);
  }
  const checkoutSession = draft.checkout_session as Json | undefined;
  assert.equal(typeof checkoutSession?.id, "string", "the draft has its checkout_session");
  const page = absoluteUrl(draft.checkout_url, "checkout_url");
  const html = await target.fetch(`${page.pathname}${page.search}`);
  assert.equal(html.status, 200, `the checkout page ${page.pathname} answers 200`);
  assert.match(html.headers.get("content-type") ?? "", /^text\/html/, "the checkout page is HTML");
  await html.body?.cancel();
  // Nothing is paid before the checkout completes.
  const status = ok(
    "svc.get_order_status",
    await session.call("svc.get_order_status", { order_id: draft.order_id }),
  );
  assert.equal(status.found, true, "the draft's order is found");
  assert.equal(status.is_paid, false, "the draft is not paid");
  return draft;
}

/**
 * The agent-tools suite (spec 1's MCP interface, over MCP's streamable HTTP transport): talks to the deployment with
 * the MCP SDK's client, every request through the target, so it runs in-process and against a URL alike. It creates
 * unpaid machine orders and order drafts and opens upload slots; it never pays.
 */
export function mcpSuite(target: HttpTarget, options: McpSuiteOptions = {}): Suite<McpSuiteTestName> {
  const path = options.path ?? "/mcp";
  const session = <T>(body: (s: McpSession) => Promise<T>) => withMcpSession(target, path, body);

  /** The unpaid machine orders the suite made, one per protocol the deployment took; made once per suite. */
  let unpaid: Promise<{ protocol: Protocol; result: CallToolResult }[]> | undefined;
  const unpaidOrders = () => {
    unpaid ??= session(async (s) => {
      const answers = [];
      for (const protocol of PROTOCOLS) {
        const order = letterOrder({ letter: `Conformance ${protocol} ${crypto.randomUUID()}` });
        answers.push({
          protocol,
          result: await s.call("svc.create_machine_order", { payment_protocol: protocol, order }),
        });
      }
      return answers;
    });
    return unpaid;
  };
  const takenOrders = async () => {
    const taken = (await unpaidOrders()).filter(({ result }) => !result.isError);
    assert.ok(taken.length > 0, "svc.create_machine_order takes at least one payment protocol (mpp or x402)");
    return taken.map(({ protocol, result }) => ({ protocol, order: result.structuredContent as Json }));
  };

  const tests: Record<McpSuiteTestName, ContractTest["run"]> = {
    "initialize answers the tools capability and a session id": () =>
      session(async (s) => {
        assert.ok(s.client.getServerCapabilities()?.tools, "the server declares the tools capability");
        assert.ok(s.client.getServerVersion()?.name, "the server names itself");
        assert.ok(s.sessionId, "initialize answers an mcp-session-id header");
        assert.match(s.sessionId, /^[\x21-\x7e]+$/, "the session id is visible ASCII only");
      }),

    "a request without the session id is 400 and one with an unknown session id is 404": async () => {
      const list = { id: 1, method: "tools/list", params: {} };
      const without = await postRpc(target, path, list);
      await without.body?.cancel();
      assert.equal(without.status, 400, "a request other than initialize without mcp-session-id is 400");
      const unknown = await postRpc(target, path, list, `conformance-unknown-${crypto.randomUUID()}`);
      await unknown.body?.cancel();
      assert.equal(unknown.status, 404, "a request with an unknown mcp-session-id is 404");
    },

    "the tools of spec 1 are listed with the svc. prefix and JSON object input schemas": () =>
      session(async (s) => {
        const names = s.tools.map((tool) => tool.name);
        const missing = SPEC_TOOLS.filter((name) => !names.includes(name));
        assert.deepEqual(missing, [], `every tool of spec 1 is listed; listed: ${names.join(", ")}`);
        for (const tool of s.tools) {
          assert.ok(
            tool.name.startsWith("svc.") || UNPREFIXED.has(tool.name),
            `${tool.name} carries the svc. prefix`,
          );
          assert.ok((tool.description ?? "").trim().length > 0, `${tool.name} has a description`);
          assert.equal(
            tool.inputSchema.type,
            "object",
            `${tool.name}'s input schema is a JSON object schema`,
          );
          const properties = tool.inputSchema.properties ?? {};
          assert.equal(typeof properties, "object", `${tool.name}'s input schema describes its properties`);
        }
      }),

    "svc.ping answers the health payload": () =>
      session(async (s) => {
        const health = ok("svc.ping", await s.call("svc.ping"));
        assert.equal(health.status, "ok");
        // The text copy carries the same payload for clients that read text only.
        const result = await s.call("svc.ping");
        assert.deepEqual(JSON.parse(textOf(result)), result.structuredContent);
      }),

    "svc.list_forms pages the form catalogue and svc.get_form_schema gives a form's fields": () =>
      session(async (s) => {
        const page = ok("svc.list_forms", await s.call("svc.list_forms", { limit: 1 }));
        const forms = page.forms as Json[];
        assert.ok(Array.isArray(forms) && forms.length === 1, "limit 1 answers one form");
        const slug = forms[0]!.slug;
        assert.equal(typeof slug, "string", "a form has its slug");
        if (typeof page.next_cursor === "string") {
          const next = ok(
            "svc.list_forms",
            await s.call("svc.list_forms", { limit: 1, cursor: page.next_cursor }),
          );
          const second = (next.forms as Json[])[0];
          assert.ok(second, "next_cursor leads to the next page");
          assert.notEqual(second.slug, slug, "the next page holds the next form");
        } else {
          assert.equal(page.next_cursor, null, "next_cursor is a string or null");
        }
        const schema = ok("svc.get_form_schema", await s.call("svc.get_form_schema", { slug }));
        assert.ok(schema.fields !== undefined && schema.fields !== null, "the schema has its fields");
        assert.equal(
          typeof schema.attachments_max_total_size_mb,
          "number",
          "the schema gives attachments_max_total_size_mb",
        );
        toolError(
          "svc.get_form_schema",
          await s.call("svc.get_form_schema", { slug: `no-such-form-${Date.now()}` }),
        );
      }),

    "svc.create_pdf_upload opens an upload slot that takes the PDF as multipart/form-data": () =>
      session(async (s) => {
        const pdf = await makePdf(2);
        const slot = ok(
          "svc.create_pdf_upload",
          await s.call("svc.create_pdf_upload", {
            file_name: "conformance.pdf",
            content_type: "application/pdf",
            content_length: pdf.byteLength,
          }),
        );
        const url = absoluteUrl(slot.upload_url, "upload_url");
        assert.ok(typeof slot.upload_token === "string" && slot.upload_token.length > 0, "an upload_token");
        assert.ok(!Number.isNaN(Date.parse(String(slot.expires_at))), "expires_at is a time");
        assert.ok(
          Number.isInteger(slot.max_bytes) && (slot.max_bytes as number) >= pdf.byteLength,
          "max_bytes",
        );
        const required = slot.required_headers as Record<string, string>;
        assert.ok(isObject(required), "required_headers is an object");
        // The multipart body sets its own content type (with its boundary) and length; the rest are sent as given.
        const headers = Object.fromEntries(
          Object.entries(required).filter(
            ([name]) => !["content-type", "content-length"].includes(name.toLowerCase()),
          ),
        );
        const contentType = Object.entries(required).find(
          ([name]) => name.toLowerCase() === "content-type",
        )?.[1];
        if (contentType !== undefined) {
          assert.match(contentType, /^multipart\/form-data/i, "the upload is multipart/form-data");
        }
        const form = new FormData();
        form.append(
          "file",
          new Blob([pdf as Uint8Array<ArrayBuffer>], { type: "application/pdf" }),
          "conformance.pdf",
        );
        const uploaded = await target.fetch(`${url.pathname}${url.search}`, {
          method: "POST",
          headers,
          body: form,
        });
        await uploaded.body?.cancel();
        assert.ok(
          uploaded.status >= 200 && uploaded.status < 300,
          `the upload is taken (got ${uploaded.status})`,
        );
      }),

    "svc.search_addresses answers suggestions, and a Container leads to single addresses": () =>
      session(async (s) => {
        if (!s.tools.some((tool) => tool.name === SEARCH_TOOL)) {
          return notApplicable("the deployment does not list svc.search_addresses (no address search)");
        }
        const found = ok(
          SEARCH_TOOL,
          await s.call(SEARCH_TOOL, { query: "350 Fifth Avenue", country_code: "US" }),
        );
        const suggestions = found.suggestions as Json[];
        assert.ok(
          Array.isArray(suggestions) && suggestions.length > 0,
          "350 Fifth Avenue, New York is found",
        );
        for (const suggestion of suggestions) {
          assert.ok(
            typeof suggestion.id === "string" && suggestion.id.startsWith("US|"),
            "an id of the country",
          );
          assert.equal(typeof suggestion.text, "string");
          assert.equal(typeof suggestion.description, "string");
          assert.ok(["Address", "Container"].includes(String(suggestion.type)), `type ${suggestion.type}`);
        }
        const container = suggestions.find((suggestion) => suggestion.type === "Container");
        if (container) {
          const inside = ok(
            SEARCH_TOOL,
            await s.call(SEARCH_TOOL, { query: "350 Fifth", container: container.id }),
          );
          assert.ok((inside.suggestions as Json[]).length > 0, "a Container searched again leads further");
        }
        namesField(toolError(SEARCH_TOOL, await s.call(SEARCH_TOOL, { query: "35" })), "query");
      }),

    "svc.create_machine_order answers an unpaid order with its payment challenge": async () => {
      for (const { protocol, result } of await unpaidOrders()) {
        if (result.isError) {
          // A deployment may take one protocol only; it says which one it refused.
          assert.match(textOf(result), new RegExp(protocol, "i"), `the refusal names ${protocol}`);
        }
      }
      for (const { protocol, order } of await takenOrders()) {
        assert.equal(order.view, "machine_order");
        assert.equal(order.protocol, protocol);
        assert.equal(order.status, "payment_required", `${protocol}: an unpaid order needs payment`);
        assert.equal(typeof order.order_id, "string");
        if (protocol === "mpp") {
          const payment = order.payment as Json;
          const challenges = payment.www_authenticate as string[];
          assert.ok(
            Array.isArray(challenges) && challenges.length > 0,
            "MPP: www_authenticate lists challenges",
          );
          for (const challenge of challenges)
            assert.match(challenge, /^Payment\s/i, "an MPP Payment challenge");
          assert.equal(payment.retry_header, "Authorization", "MPP: the retry carries Authorization");
          assert.equal(typeof payment.retry_header_value, "string");
        } else {
          const header = order.payment_required_header;
          assert.ok(typeof header === "string" && header.length > 0, "x402: payment_required_header");
          const required = JSON.parse(Buffer.from(header, "base64").toString("utf8")) as Json;
          assert.ok(Array.isArray(required.accepts) && required.accepts.length > 0, "x402: the requirements");
        }
      }
    },

    "svc.get_order_status tells an unpaid order from an unknown one": async () => {
      const order = (await takenOrders())[0]!.order;
      await session(async (s) => {
        const known = ok(
          "svc.get_order_status",
          await s.call("svc.get_order_status", { order_id: order.order_id }),
        );
        assert.equal(known.view, "order_status");
        assert.equal(known.found, true);
        assert.equal(known.order_id, order.order_id);
        assert.equal(known.is_paid, false, "an order whose challenge was not paid is not paid");
        const unknownId = crypto.randomUUID();
        const unknown = ok(
          "svc.get_order_status",
          await s.call("svc.get_order_status", { order_id: unknownId }),
        );
        assert.equal(unknown.found, false, "an unknown order is not found");
        assert.equal(unknown.is_paid, false);
      });
    },

    "svc.create_letter_order_draft answers an unpaid draft with a hosted checkout_url": () =>
      session(async (s) => {
        const fields = draftFields(letterOrder({ letter: `Conformance draft ${crypto.randomUUID()}` }));
        const name = "svc.create_letter_order_draft";
        const draft = await checkDraft(target, s, name, await s.call(name, fields));
        assert.equal(draft.recipient_name, fields.recipient_name);
        assert.equal(draft.sender_name, fields.sender_name);
        // The same request_id with the same arguments answers the same draft.
        const again = ok(name, await s.call(name, fields));
        assert.equal(again.order_id, draft.order_id, "an identical retry answers the same draft");
      }),

    "svc.create_order_draft drafts a PDF with its page count": () =>
      session(async (s) => {
        const fields = draftFields(letterOrder({ letter: undefined }));
        const name = "svc.create_order_draft";
        const pdf = pdfDataUrl(await makePdf(3));
        const draft = await checkDraft(
          target,
          s,
          name,
          await s.call(name, { ...fields, pdf, file_name: "three.pdf" }),
        );
        assert.equal(draft.page_count, 3, "the draft counts the PDF's pages");
      }),

    "svc.create_form_order_draft drafts a workflow form": () =>
      session(async (s) => {
        const { form, ...order } = mortgageFormOrder();
        const { slug, fields } = form as { slug: string; fields: Json };
        const name = "svc.create_form_order_draft";
        const draft = await checkDraft(
          target,
          s,
          name,
          await s.call(name, { ...draftFields(order), slug, fields }),
        );
        assert.equal(draft.recipient_name, order.recipient_name);
      }),

    "bad arguments are tool errors naming the field and a stable code, and change nothing": () =>
      session(async (s) => {
        const misfit = toolError(
          "svc.list_forms",
          await s.call("svc.list_forms", { limit: 0, colour: "red" }),
        );
        namesField(misfit, "limit");
        namesField(misfit, "colour");
        const protocol = (await takenOrders())[0]!.protocol;
        const order = letterOrder({ recipient_address_type: "Manual", recipient_address_manual: undefined });
        const refused = toolError(
          "svc.create_machine_order",
          await s.call("svc.create_machine_order", { payment_protocol: protocol, order }),
        );
        namesField(refused, "order.recipient_address_manual");
        const status = ok(
          "svc.get_order_status",
          await s.call("svc.get_order_status", { order_id: order.request_id }),
        );
        assert.equal(status.found, false, "a refused order is not created");
      }),

    "an unknown tool is a JSON-RPC error": () =>
      session(async (s) => {
        const error = await s.call("svc.no_such_tool").then(
          (result) => assert.fail(`an unknown tool answered a result: ${textOf(result).slice(0, 300)}`),
          (e: unknown) => e as { code?: unknown },
        );
        assert.equal(error.code, -32602, `the JSON-RPC error is invalid params (-32602): ${String(error)}`);
      }),

    "DELETE ends the session, and its id is then unknown": async () => {
      const sessionId = await session(async (s) => {
        assert.ok(s.sessionId, "the session has an id");
        const ended = await target.fetch(path, {
          method: "DELETE",
          headers: { "mcp-session-id": s.sessionId },
        });
        await ended.body?.cancel();
        assert.ok(ended.status >= 200 && ended.status < 300, `DELETE ends the session (got ${ended.status})`);
        return s.sessionId;
      });
      const after = await postRpc(target, path, { id: 2, method: "tools/list", params: {} }, sessionId);
      await after.body?.cancel();
      assert.equal(after.status, 404, "a request with the ended session's id is 404");
    },
  };

  return {
    name: `agent tools over MCP (${target.label}${path})`,
    sideEffects:
      "creates two unpaid machine orders (one per protocol) and three order drafts, and opens an upload slot; pays for nothing",
    tests: MCP_SUITE_TEST_NAMES.map((name) => ({ name, requirement: REQUIREMENTS[name], run: tests[name] })),
  };
}
