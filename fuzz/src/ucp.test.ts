import { DEFAULT_SUITE_ADDRESSES, makePdf, pdfDataUrl } from "@mailpiece/conformance";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { CallToolResultSchema, McpError } from "@modelcontextprotocol/sdk/types.js";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  clientIp,
  clip,
  expectHealthy,
  expectNothingLogged,
  fuzz,
  leakedSecret,
  pathNamesField,
  printable,
  Verdict,
} from "./checks.ts";
import { refusedDials } from "./dial-guard.ts";
import { type Call, type FuzzServer, PROFILE_PATHS, startFuzzServer } from "./harness.ts";
import { EDGE_STRINGS, hostileValue, methods, nested, pathSegments } from "./hostile.ts";
import { machineHint } from "./machine-hints.ts";
import {
  EXTRA_KEYS_ARB,
  hostileArguments,
  nonObjectArguments,
  rawRpcCalls,
  type Tool,
} from "./mcp-generators.ts";
import { connectClient, machineFieldNames, RPC_CODES, rpcMessages } from "./rpc.ts";
import { fieldNames, type Hint, nearValidValue, type Schema, validValue } from "./schema-arbitrary.ts";

/**
 * UCP checkout at /ucp/mcp (and its profile at /.well-known/ucp): a session of the MCP SDK's client, every checkout
 * tool called with arguments from its inputSchema (valid, one field changed, hostile) and a platform profile in
 * `_meta.ucp.profile`: the platform's own, served by a loopback server the deployment admits (UCP_PROFILE_HOSTS),
 * that server's broken profiles, URLs it must refuse, and values that are not URLs. No generated profile URL names a
 * host beyond this machine. Every call: a checkout (which the SDK's client checks against the tool's outputSchema) or
 * a JSON-RPC error of the expected codes whose data is UCP's `{status: "error", errors: [{code, message, severity,
 * path?}]}`, each path a JSONPath into the call's arguments (or its `_meta`); never an internal error. Internal error
 * (-32603) is also what UCP answers for a provider that cannot serve (address search, document workers, the store,
 * card payments); the deployment here has all of them, so it fails the property like any unexpected error.
 */

let server: FuzzServer;
let client: Client;
let tools: Tool[];
let known: Set<string>;
let hint: Hint;
let profile: string;

const SEVERITIES = new Set(["recoverable", "requires_buyer_input", "requires_buyer_review", "unrecoverable"]);

beforeAll(async () => {
  server = await startFuzzServer();
  profile = `${server.platform}/profile.json`;
  client = await connectClient(server, "/ucp/mcp");
  tools = (await client.listTools()).tools as Tool[];
  known = await machineFieldNames(server);
  for (const tool of tools) fieldNames(tool.inputSchema as Schema, tool.inputSchema as Schema, known);
  for (const name of ["_meta", "ucp", "profile"]) known.add(name);
  const pdf = await makePdf(1);
  const postcardPdf = await makePdf(2, [450, 306]);
  const machine = machineHint({ pdf, postcardPdf, formSlugs: () => [] });
  const { us } = DEFAULT_SUITE_ADDRESSES;
  hint = (name, schema) => {
    switch (name) {
      case "svc.mailpiece":
        return fc.record(
          {
            pdf: fc.constant(pdfDataUrl(pdf)),
            sender_name: fc.constantFrom("Ada Sender", "Zoë Łukasz"),
            sender_address_type: fc.constant("Address"),
            sender_address_id: fc.constant(us.id),
            sender_address_text: fc.constant(us.text),
            recipient_name: fc.constant("Grace Recipient"),
            recipient_address_type: fc.constant("Address"),
            recipient_address_id: fc.constant(us.id),
            recipient_address_text: fc.constant(us.text),
            mail_class: fc.constantFrom("standard", "priority"),
            color: fc.boolean(),
          },
          {
            requiredKeys: [
              "pdf",
              "sender_name",
              "sender_address_type",
              "sender_address_id",
              "sender_address_text",
              "recipient_name",
              "recipient_address_type",
              "recipient_address_id",
              "recipient_address_text",
            ],
          },
        );
      case "line_items":
        return fc.constant([{ item: { id: "mailpiece" }, quantity: 1 }]);
      case "id":
        return fc.constantFrom("$CHECKOUT", "$CHECKOUT_READY");
      case "idempotency_key":
        return fc.uuid();
      case "buyer":
        return fc.record(
          {
            first_name: fc.constantFrom("Ada", "Zoë"),
            last_name: fc.constant("Lovelace"),
            email: fc.constant("ada@example.com"),
          },
          { requiredKeys: ["first_name", "email"] },
        );
      case "token":
        return fc.constantFrom("spt_test_ok", "spt_test_declined", "spt_test_3ds", "spt_unknown");
      case "handler_id":
        return fc.constant("shared_payment_token");
      default:
        return machine(name, schema);
    }
  };
}, 120_000);

afterAll(async () => {
  await client?.close();
  await server?.close();
});

/** A checkout made through the same client, for calls that name one (`$CHECKOUT`; `$CHECKOUT_READY` has a buyer). */
async function checkout(ready: boolean): Promise<string> {
  const { us } = DEFAULT_SUITE_ADDRESSES;
  const result = await client.request(
    {
      method: "tools/call",
      params: {
        name: "create_checkout",
        arguments: {
          line_items: [{ item: { id: "mailpiece" }, quantity: 1 }],
          "svc.mailpiece": {
            pdf: pdfDataUrl(await makePdf(1)),
            sender_name: "Ada Sender",
            sender_address_type: "Address",
            sender_address_id: us.id,
            sender_address_text: us.text,
            recipient_name: "Grace Recipient",
            recipient_address_type: "Address",
            recipient_address_id: us.id,
            recipient_address_text: us.text,
          },
          ...(ready ? { buyer: { first_name: "Ada", email: "ada@example.com" } } : {}),
        },
        _meta: { ucp: { profile } },
      },
    },
    CallToolResultSchema,
  );
  return (result.structuredContent as { id: string }).id;
}

async function resolvePlaceholders(args: unknown): Promise<unknown> {
  let text = JSON.stringify(args);
  if (text === undefined || !text.includes("$CHECKOUT")) return args;
  while (text.includes('"$CHECKOUT_READY"'))
    text = text.replace('"$CHECKOUT_READY"', JSON.stringify(await checkout(true)));
  while (text.includes('"$CHECKOUT"'))
    text = text.replace('"$CHECKOUT"', JSON.stringify(await checkout(false)));
  return JSON.parse(text) as unknown;
}

/** `_meta.ucp.profile` values: the platform's profile (mostly), its broken ones, refused URLs, non-URLs, none. */
function profiles(): fc.Arbitrary<unknown> {
  const notUrls = fc.oneof(fc.constantFrom(...EDGE_STRINGS), hostileValue).filter((value) => {
    if (typeof value !== "string") return true;
    try {
      new URL(value);
      return false;
    } catch {
      return true;
    }
  });
  return fc.oneof(
    { weight: 8, arbitrary: fc.constant(profile) },
    { weight: 2, arbitrary: fc.constantFrom(...PROFILE_PATHS.map((path) => `${server.platform}${path}`)) },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        "http://127.0.0.1:1/profile.json",
        `${profile}#fragment`,
        `${profile}?q=${"y".repeat(3000)}`,
        `${server.platform.replace("http:", "ftp:")}/profile.json`,
        "file:///etc/passwd",
        "javascript:alert(1)",
        "data:application/json,{}",
        "http://[::1]:1/profile.json",
        `${server.base}/.well-known/ucp`,
      ),
    },
    { weight: 1, arbitrary: notUrls },
    { weight: 1, arbitrary: fc.constant(undefined) },
  );
}

interface UcpCall {
  tool: string;
  args: unknown;
  profile: unknown;
}

/** A call as a fixed example, with the platform's profile, printed like a generated one. */
function example(tool: string, args: unknown): UcpCall {
  const call = { tool, args, profile };
  Object.defineProperty(call, fc.toStringMethod, {
    value: () => `${tool}(${clip(JSON.stringify(args) ?? "undefined", 800)})`,
  });
  return call;
}

const calls = (make: (tool: Tool) => fc.Arbitrary<unknown>, withProfiles = false): fc.Arbitrary<UcpCall> =>
  fc.constantFrom(...tools).chain((tool) =>
    fc.tuple(make(tool), withProfiles ? profiles() : fc.constant(profile)).map(([args, chosen]) => {
      const call = { tool: tool.name, args, profile: chosen };
      Object.defineProperty(call, fc.toStringMethod, {
        value: () =>
          `${tool.name}(${clip(JSON.stringify(args) ?? "undefined", 800)}) profile ${clip(String(chosen), 200)}`,
      });
      return call;
    }),
  );

function valid(tool: Tool): fc.Arbitrary<unknown> {
  return validValue(tool.inputSchema as Schema, { hint });
}

/** Checks the UCP messages and errors of an answer: codes, severities, paths into the call. */
function checkUcpDetails(
  verdict: Verdict,
  details: unknown,
  call: { args: unknown; profile: unknown },
  what: string,
): void {
  if (!Array.isArray(details)) return;
  const request = {
    ...(typeof call.args === "object" && call.args !== null ? call.args : {}),
    _meta: { ucp: { profile: call.profile } },
  };
  for (const detail of details as { code?: unknown; severity?: unknown; path?: unknown; type?: unknown }[]) {
    verdict.expect(
      typeof detail.code === "string" && /^[a-z0-9_.]+$/.test(detail.code),
      `${what} code ${JSON.stringify(detail.code)} is not a stable code`,
    );
    verdict.expect(detail.code !== "internal_error", `${what} internal_error`);
    if (detail.severity !== undefined) {
      verdict.expect(
        SEVERITIES.has(String(detail.severity)),
        `${what} severity ${JSON.stringify(detail.severity)} is not one of UCP's`,
      );
    }
    if (detail.path !== undefined) {
      verdict.expect(
        typeof detail.path === "string" &&
          detail.path.startsWith("$") &&
          pathNamesField(detail.path, request, known),
        `${what} path ${JSON.stringify(detail.path)} (${String(detail.code)}) names no field of the call`,
      );
    }
  }
}

async function callTool(generated: UcpCall): Promise<void> {
  const args = await resolvePlaceholders(generated.args);
  const call = { ...generated, args };
  const meta = call.profile === undefined ? {} : { _meta: { ucp: { profile: call.profile } } };
  const label = `tools/call ${call.tool} ${clip(JSON.stringify(args) ?? "undefined", 1500)} _meta.ucp.profile ${clip(JSON.stringify(call.profile) ?? "undefined", 300)}`;
  const verdict = new Verdict(label, "");
  let outcome: string;
  try {
    const params = { name: call.tool, arguments: args as Record<string, unknown>, ...meta };
    const result =
      typeof args === "object" && args !== null && !Array.isArray(args)
        ? await client.callTool(params)
        : await client.request({ method: "tools/call", params }, CallToolResultSchema);
    outcome = JSON.stringify(result);
    const structured = result.structuredContent as { messages?: unknown } | undefined;
    checkUcpDetails(verdict, structured?.messages, call, "a checkout message's");
    verdict.expect(result.isError !== true, "a tool result with isError (UCP refusals are JSON-RPC errors)");
  } catch (error) {
    outcome = String(error);
    if (error instanceof McpError) {
      verdict.expect(RPC_CODES.has(error.code), `JSON-RPC error ${error.code} (${clip(error.message, 300)})`);
      const data = error.data as { status?: unknown; errors?: unknown } | undefined;
      if (error.code !== -32602 || data !== undefined) {
        verdict.expect(
          data?.status === "error" && Array.isArray(data.errors),
          'an error whose data is not {status: "error", errors}',
        );
      }
      checkUcpDetails(verdict, data?.errors, call, "an error's");
      outcome += ` data ${JSON.stringify(error.data)}`;
    } else {
      verdict.expect(false, `the call failed: ${clip(String(error), 800)}`);
    }
  }
  const leaked = leakedSecret(outcome, server.secrets);
  verdict.expect(leaked === undefined, `the answer repeats a secret (${leaked})`);
  (verdict as { answer: string }).answer = clip(outcome, 2500);
  expectNothingLogged(verdict, server);
  verdict.done();
}

async function rawCall(call: Call): Promise<void> {
  const answer = await server.send(call);
  const verdict = new Verdict(call, answer);
  verdict.expect(answer.status < 500, `answered ${answer.status}`);
  for (const message of rpcMessages(answer)) {
    const error = (message as { error?: { code?: unknown } } | undefined)?.error;
    if (error !== undefined) {
      verdict.expect(
        typeof error.code === "number" && RPC_CODES.has(error.code),
        `JSON-RPC error code ${JSON.stringify(error.code)} is not an expected one`,
      );
    }
  }
  const leaked = leakedSecret(answer.text, server.secrets);
  verdict.expect(leaked === undefined, `the answer repeats a secret (${leaked})`);
  expectNothingLogged(verdict, server);
  verdict.done();
}

describe("UCP (/ucp/mcp)", () => {
  it("lists the five checkout tools", () => {
    expect(tools.map((tool) => tool.name).sort()).toEqual([
      "cancel_checkout",
      "complete_checkout",
      "create_checkout",
      "get_checkout",
      "update_checkout",
    ]);
  });

  it("/.well-known/ucp and /ucp/schemas/{name} with any name: the schema or a JSON not_found, never 5xx", async () => {
    const names = fc.oneof(
      fc.constantFrom("shared-payment-token-instrument.json", "shared-payment-token-config.json"),
      fc.constantFrom("__proto__", "constructor", "toString", "hasOwnProperty", "valueOf", "nope.json"),
      pathSegments,
    );
    await fuzz(
      fc
        .tuple(
          fc.oneof(
            names.map((name) => `/ucp/schemas/${name}`),
            fc.constant("/.well-known/ucp"),
          ),
          fc.oneof({ weight: 4, arbitrary: fc.constant("GET") }, { weight: 1, arbitrary: methods }),
        )
        .map(([path, method]) => printable({ method, path })),
      async (call) => {
        const answer = await server.send(call);
        const verdict = new Verdict(call, answer);
        verdict.expect(answer.status < 500, `answered ${answer.status}`);
        if (call.method !== "HEAD") verdict.expect(answer.json !== undefined, "the answer is not JSON");
        if (answer.status >= 400 && call.method !== "HEAD") {
          const code = (answer.json as { error?: unknown } | undefined)?.error;
          verdict.expect(
            code === "not_found" || code === "invalid_path" || code === "method_not_allowed",
            `error code ${JSON.stringify(code)} is not one the server answers for its paths`,
          );
        }
        expectNothingLogged(verdict, server);
        verdict.done();
      },
    );
    await expectHealthy(server);
  });

  it("every checkout tool with valid arguments and the platform's profile: a checkout or a UCP error naming fields", async () => {
    await fuzz(calls(valid), callTool);
    await expectHealthy(server);
  });

  it("near-valid arguments (one field of another type, out of range, too long, missing or extra)", async () => {
    await fuzz(
      calls((tool) =>
        nearValidValue(tool.inputSchema as Schema, valid(tool), tool.inputSchema as Schema, true).map(
          (near) => near.value,
        ),
      ),
      callTool,
      {
        // A field whose name is not a plain key was once reported at a mangled JSONPath ($["[\"svc"]...).
        examples: [example("create_checkout", {}), example("get_checkout", { id: "$CHECKOUT", "": "extra" })],
      },
    );
    await expectHealthy(server);
  });

  it("hostile arguments and hostile profiles: values in valid arguments, prototype keys, broken and refused profile URLs, non-URLs", async () => {
    await fuzz(
      calls(
        (tool) =>
          fc.oneof(
            valid(tool),
            fc
              .tuple(
                valid(tool),
                fc.oneof(fc.constantFrom(...fieldNames(tool.inputSchema as Schema)), EXTRA_KEYS_ARB),
                hostileValue,
              )
              .map(([args, field, value]) => {
                const copy = JSON.parse(JSON.stringify(args ?? {})) as Record<string, unknown>;
                Object.defineProperty(copy, field, {
                  value,
                  enumerable: true,
                  writable: true,
                  configurable: true,
                });
                return copy;
              }),
            hostileArguments,
          ),
        true,
      ),
      callTool,
      {
        // Arguments nested 3000 levels deep once overflowed the stack while their fingerprint was made.
        examples: [
          example("cancel_checkout", {
            id: "$CHECKOUT",
            idempotency_key: "6f9619ff-8b86-4d11-b42d-00c04fc964ff",
            extra: nested(3000, "array"),
          }),
        ],
      },
    );
    await expectHealthy(server);
  });

  it("arguments that are not an object are refused as invalid params (-32602), not as an internal error", async () => {
    await fuzz(
      calls(() => nonObjectArguments),
      callTool,
    );
    await expectHealthy(server);
  });

  it("raw JSON-RPC to /ucp/mcp: malformed bodies, batches, unknown methods, sessions, hosts, origins and methods", async () => {
    const sessionId = (client.transport as { sessionId?: string } | undefined)?.sessionId ?? "";
    await fuzz(
      fc
        .tuple(
          rawRpcCalls(
            "/ucp/mcp",
            server.host,
            sessionId,
            tools.map((t) => t.name),
          ),
          clientIp,
        )
        .map(([call, ip]) => printable({ ...call, ip })),
      rawCall,
    );
    await expectHealthy(server);
    expect((await client.listTools()).tools.length).toBe(tools.length);
  });

  it("nothing generated made the server reach past this machine", () => {
    expect(refusedDials).toEqual([]);
  });
});
