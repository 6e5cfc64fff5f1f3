import { letterOrder, makePdf, mortgageFormOrder } from "@mailpiece/conformance";
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
import { type Call, type FuzzServer, startFuzzServer } from "./harness.ts";
import { hostileValue, nested } from "./hostile.ts";
import { machineHint } from "./machine-hints.ts";
import {
  EXTRA_KEYS_ARB,
  hostileArguments,
  nonObjectArguments,
  rawRpcCalls,
  type Tool,
} from "./mcp-generators.ts";
import { CORE_ERROR_CODES, connectClient, machineFieldNames, RPC_CODES, rpcMessages } from "./rpc.ts";
import { fieldNames, type Hint, nearValidValue, type Schema, validValue } from "./schema-arbitrary.ts";

/**
 * The agent tools at /mcp: a session opened by the MCP SDK's own client (its transport's fetch calls the app in
 * process), tools/list, and every tool called with arguments from its inputSchema (valid, one field changed,
 * hostile); then raw JSON-RPC bodies the SDK would never send. Every call: a tool result (a failure names the core's
 * code and the fields at fault, each a field of the arguments) or a JSON-RPC error of the expected codes, never an
 * internal error, never a 5xx, no secret repeated, a structured result that fits the tool's outputSchema (the SDK's
 * client checks it).
 */

let server: FuzzServer;
let client: Client;
let tools: Tool[];
let known: Set<string>;
let hint: Hint;

beforeAll(async () => {
  server = await startFuzzServer();
  client = await connectClient(server, "/mcp");
  tools = (await client.listTools()).tools as Tool[];
  known = await machineFieldNames(server);
  for (const tool of tools) fieldNames(tool.inputSchema as Schema, tool.inputSchema as Schema, known);
  const slugs = (
    (await server.send({ method: "GET", path: "/api/machine/forms?limit=200" })).json as {
      forms: { slug: string }[];
    }
  ).forms.map((form) => form.slug);
  const pdf = await makePdf(1);
  const postcardPdf = await makePdf(2, [450, 306]);
  const machine = machineHint({ pdf, postcardPdf, formSlugs: () => slugs });
  hint = (name, schema) =>
    name === "order"
      ? fc.oneof(
          fc.constant(null).map(() => letterOrder()),
          fc.constant(null).map(() => mortgageFormOrder()),
        )
      : machine(name, schema);
}, 120_000);

afterAll(async () => {
  await client?.close();
  await server?.close();
});

/** A tool call as generated: the tool and its arguments. */
interface ToolCall {
  tool: string;
  args: unknown;
}

function valid(tool: Tool): fc.Arbitrary<unknown> {
  return validValue(tool.inputSchema as Schema, { hint });
}

const calls = (make: (tool: Tool) => fc.Arbitrary<unknown>): fc.Arbitrary<ToolCall> =>
  fc.constantFrom(...tools).chain((tool) =>
    make(tool).map((args) => {
      const call = { tool: tool.name, args };
      Object.defineProperty(call, fc.toStringMethod, {
        value: () => `${tool.name}(${clip(JSON.stringify(args) ?? "undefined", 800)})`,
      });
      return call;
    }),
  );

/** A tool call as a fixed example, printed like a generated one. */
function example(tool: string, args: unknown): ToolCall {
  const call = { tool, args };
  Object.defineProperty(call, fc.toStringMethod, {
    value: () => `${tool}(${clip(JSON.stringify(args) ?? "undefined", 800)})`,
  });
  return call;
}

/** The lines of a tool failure that name a field: `- path: message [code]`. */
function failureIssues(text: string): { path: string; code: string }[] {
  return [...text.matchAll(/^- (.+?): .*\[([a-z0-9_]+)\]$/gm)].map((m) => ({
    path: m[1] === "(arguments)" ? "" : m[1]!,
    code: m[2]!,
  }));
}

/** Calls a tool through the SDK's client and checks what comes back. */
async function callTool({ tool, args }: ToolCall): Promise<void> {
  const label = `tools/call ${tool} ${clip(JSON.stringify(args) ?? "undefined", 1500)}`;
  let outcome: string;
  const verdict = new Verdict(label, "");
  try {
    const result = await client.request(
      { method: "tools/call", params: { name: tool, arguments: args as Record<string, unknown> } },
      CallToolResultSchema,
    );
    outcome = JSON.stringify(result);
    const text = result.content.map((part) => (part.type === "text" ? part.text : "")).join("\n");
    if (result.isError) {
      const first = /^([a-z_]+): /.exec(text)?.[1];
      if (first !== undefined && /^[a-z]+(_[a-z]+)+$/.test(first)) {
        verdict.expect(
          (CORE_ERROR_CODES as readonly string[]).includes(first),
          `the failure's code ${first} is not one of the core's codes`,
        );
        verdict.expect(first !== "internal_error", "the tool failed with internal_error");
      }
      for (const issue of failureIssues(text)) {
        verdict.expect(
          pathNamesField(issue.path, args, known),
          `issue path ${JSON.stringify(issue.path)} (${issue.code}) names no field of the arguments`,
        );
      }
    }
  } catch (error) {
    outcome = String(error);
    if (error instanceof McpError) {
      verdict.expect(RPC_CODES.has(error.code), `JSON-RPC error ${error.code} (${clip(error.message, 300)})`);
    } else {
      verdict.expect(false, `the call failed: ${clip(String(error), 800)}`);
    }
  }
  const leaked = leakedSecret(outcome, server.secrets);
  verdict.expect(leaked === undefined, `the answer repeats a secret (${leaked})`);
  (verdict as { answer: string }).answer = clip(outcome, 2000);
  expectNothingLogged(verdict, server);
  verdict.done();
}

/** Sends a raw request to /mcp and checks the HTTP answer and the JSON-RPC messages in it. */
async function rawCall(call: Call): Promise<void> {
  const answer = await server.send(call);
  const verdict = new Verdict(call, answer);
  verdict.expect(answer.status < 500 || answer.status === 503, `answered ${answer.status}`);
  verdict.expect(
    answer.status !== 503,
    "answered 503: the session limit (1000) is not reached by the fuzzer",
  );
  for (const message of rpcMessages(answer)) {
    const error = (message as { error?: { code?: unknown } } | undefined)?.error;
    if (error !== undefined) {
      verdict.expect(
        typeof error.code === "number" && RPC_CODES.has(error.code),
        `JSON-RPC error code ${JSON.stringify(error.code)} is not an expected one`,
      );
    }
    if ((message as { unparsable?: string }).unparsable)
      verdict.expect(false, "an event whose data is not JSON");
  }
  if (answer.status >= 400 && call.method !== "HEAD") {
    verdict.expect(rpcMessages(answer).length > 0, "an error answer without a JSON-RPC error body");
  }
  const leaked = leakedSecret(answer.text, server.secrets);
  verdict.expect(leaked === undefined, `the answer repeats a secret (${leaked})`);
  expectNothingLogged(verdict, server);
  verdict.done();
}

describe("MCP (/mcp)", () => {
  it("tools/list describes every tool with an object inputSchema", () => {
    expect(tools.length).toBeGreaterThan(5);
    for (const tool of tools) expect(tool.inputSchema.type).toBe("object");
  });

  it("every tool called with valid arguments: a result or a failure naming fields, never an internal error", async () => {
    await fuzz(calls(valid), callTool, {
      // An order field whose name is not a plain key was once reported as `order.["4"]`.
      examples: [example("svc.create_machine_order", { payment_protocol: "x402", order: { "4": 1 } })],
    });
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
    );
    await expectHealthy(server);
  });

  it("hostile arguments: hostile values in valid arguments, prototype keys, objects of hostile values", async () => {
    await fuzz(
      calls((tool) =>
        fc.oneof(
          fc
            .tuple(
              valid(tool),
              fc.oneof(fc.constantFrom(...fieldNames(tool.inputSchema as Schema), "order"), EXTRA_KEYS_ARB),
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
      ),
      callTool,
      {
        // An order nested 3000 levels deep once overflowed the stack while its canonical JSON was made.
        examples: [
          example("svc.create_machine_order", {
            payment_protocol: "x402",
            order: { ...letterOrder(), zz: nested(3000, "object") },
          }),
        ],
      },
    );
    await expectHealthy(server);
  });

  it("params that do not fit the method (arguments not an object, a call without a tool name) are refused as invalid params (-32602)", async () => {
    const sessionId = (client.transport as { sessionId?: string } | undefined)?.sessionId ?? "";
    await fuzz(
      fc.oneof(
        calls(() => nonObjectArguments).map((call) => ({ sdk: call })),
        rawRpcCalls(
          "/mcp",
          server.host,
          sessionId,
          tools.map((t) => t.name),
          false,
        ).map((call) => ({ raw: printable(call) })),
      ),
      async (value) => ("sdk" in value ? callTool(value.sdk) : rawCall(value.raw)),
    );
    await expectHealthy(server);
  });

  it("raw JSON-RPC: malformed bodies, batches, unknown methods, sessions, hosts, origins and methods", async () => {
    const sessionId = (client.transport as { sessionId?: string } | undefined)?.sessionId ?? "";
    await fuzz(
      fc
        .tuple(
          rawRpcCalls(
            "/mcp",
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
    // The client's own session still answers.
    expect((await client.listTools()).tools.length).toBe(tools.length);
  });

  it("nothing generated made the server reach past this machine", () => {
    expect(refusedDials).toEqual([]);
  });
});
